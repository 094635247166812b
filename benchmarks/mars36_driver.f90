! A driver for Friedman's Fortran MARS 3.6, for benchmarks/mars.py. MARS itself is not
! part of delve-bench: get mars36_fort.f (e.g. snl-dakota/surfpack src/mars/, where the
! routine fmod is renamed fmodm) and build the reference outside the repository:
!
!     gfortran -O2 -std=legacy -w -o marsref mars36_driver.f90 mars36_fort.f
!
! usage: marsref IN OUT [reps]
! IN:  "n p nk mi nt", then n rows "x1 .. xp y", then nt rows "x1 .. xp"
! OUT: the intercept, nk rows "coef var knot parent cost" (MARS's tb table: var < 0 for
!      a mirror hinge, parent 0 for the constant, coef 0 if pruned), nt rows of test
!      predictions "linear cubic", and the CPU seconds per fit (fit + both predictions,
!      averaged over reps in-process fits).
program marsref
  implicit none
  integer :: n, p, nk, mi, nt, i, j, reps, r, nfm, nim, nsp, ndp, nmm, u
  real, allocatable :: x(:,:), x0(:,:), y(:), w(:), fm(:), sp(:), xt(:,:), f1(:), f2(:)
  integer, allocatable :: lx(:), im(:), mm(:)
  double precision, allocatable :: dp(:)
  character(len=512) :: fin, fout, arg
  real :: t0, t1
  call get_command_argument(1, fin)
  call get_command_argument(2, fout)
  reps = 1
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read(arg, *) reps
  end if
  open(newunit=u, file=fin, status='old')
  read(u, *) n, p, nk, mi, nt
  allocate(x(n,p), x0(n,p), y(n), w(n), lx(p), xt(max(nt,1),p), f1(max(nt,1)), f2(max(nt,1)))
  do i = 1, n
    read(u, *) (x0(i,j), j=1,p), y(i)
  end do
  do i = 1, nt
    read(u, *) (xt(i,j), j=1,p)
  end do
  close(u)
  w = 1.0
  lx = 1
  nfm = 3 + nk*(5*mi+6) + 2*p + 100
  nim = 21 + nk*(3*mi+8) + 100
  nsp = n*(max(nk+1,2)+3) + max(3*n+5*nk+p, 2*p, 4*n) + 2*p + 4*nk + 2*max(nt,n) + 100
  ndp = max(n*nk, (nk+1)*(nk+1)) + max((nk+2)*3, 4*nk) + 100
  nmm = n*p + 2*mi + 100
  allocate(fm(nfm), im(nim), sp(nsp), dp(ndp), mm(nmm))
  call print(0)
  call cpu_time(t0)
  do r = 1, reps
    x = x0
    call mars(n, p, x, y, w, nk, mi, lx, fm, im, sp, dp, mm)
    if (nt > 0) then
      call fmodm(1, nt, xt, fm, im, f1, sp)
      call fmodm(2, nt, xt, fm, im, f2, sp)
    end if
  end do
  call cpu_time(t1)
  open(newunit=u, file=fout, status='replace')
  write(u, '(es24.16)') fm(im(11))
  do j = 1, nk
    write(u, '(5es24.16)') fm(im(12)+5*(j-1)), fm(im(12)+5*(j-1)+1), fm(im(12)+5*(j-1)+2), &
      fm(im(12)+5*(j-1)+3), fm(im(12)+5*(j-1)+4)
  end do
  do i = 1, nt
    write(u, '(2es24.16)') f1(i), f2(i)
  end do
  write(u, '(es24.16)') (t1 - t0) / reps
  close(u)
end program marsref
