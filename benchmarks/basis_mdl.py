"""MDL choice of the RVM kernel width on Anguita & Gagliolo's cos(x^2) problem
(their artificial data set).

Data: 200 equally spaced x on [-3, 3], t = cos(x^2) + U[-0.1, 0.1] noise; an RVM with a
bias and the kernel ``exp(-(x - x')^2 / (2 s^2))`` is trained for every s on a log10 grid
with step 0.1, and the MDL-w (delta_w = 0.1) and MDL-alpha (delta_alpha = 1) code lengths
(:mod:`delve_bench.methods.basis.mdl`) are printed next to the number of relevance
vectors and the squared error against the noiseless function on 1000 points.

Which reading of AG's width rho is right: the printed one, rho a standard deviation. AG
print the kernel as ``exp(-||x - x'||^2 / (2 rho^2))``, so rho = s here.
The alternative "variance" reading, ``exp(-||x - x'||^2 / (2 rho))`` (rho = s^2, the
``log10 s^2`` column), would move AG's optimum rho = 10^-0.8 onto our MDL minimum
(s = 10^-0.4), but it contradicts the only hard numbers AG give besides the location:
the relevance-vector counts. Under the printed reading our counts at rho = 10^-0.9,
10^-0.8, 10^-0.7 are about 30, 22, 17 (AG: "more", 25, 15); under the variance reading
they would be about 12 at all three (AG's 25 -> 15 drop in one grid step is not there).
So the parameterisation is not the cause of the gap: our RVMs (both variants) still fit
cos(x^2) well at widths where AG's underfit, and our noiseless-error minimum, which does
not depend on any parameterisation, sits with our MDL minimum near s = 10^-0.4 to
10^-0.5. We reproduce AG's claims that the MDL argmin lies within about 0.1 of the error argmin,
that the counts decrease in rho (~25 at 10^-0.8 and ~15 at 10^-0.7) and that MDL-w and
MDL-alpha agree, not the argmin 10^-0.8 itself. Possible causes the paper leaves open: AG's RVM implementation and pruning ("alpha overflows the machine
precision", which keeps tiny weights that enter MDL-w's sum log|w_i|), k0, and the grid.

    OMP_NUM_THREADS=1 .venv/bin/python -u benchmarks/basis_mdl.py
"""

from __future__ import annotations

import argparse

import numpy as np

from delve_bench.methods.basis.design import rbf_design
from delve_bench.methods.basis.mdl import mdl_curve


def problem(seed: int, n: int = 200):
    x = np.linspace(-3, 3, n)[:, None]
    rng = np.random.default_rng(seed)
    t = np.cos(x[:, 0] ** 2) + rng.uniform(-0.1, 0.1, n)
    return x, t


def curve(seed: int, grid: np.ndarray, plain: bool):
    x, t = problem(seed)
    xs = np.linspace(-3, 3, 1000)[:, None]
    f = np.cos(xs[:, 0] ** 2)
    rows = []
    for p in mdl_curve(x, t, grid, delta_w=0.1, delta_alpha=1.0, plain=plain):
        Phi = rbf_design(xs, x, np.sqrt(2.0) * p.rho, bias=True)[:, p.state.idx]
        mean, _ = p.state.predict(Phi)
        rows.append((np.log10(p.rho), p.n_rv, p.mdl_w, p.mdl_alpha, np.mean((mean - f) ** 2)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--lo", type=float, default=-1.2)
    ap.add_argument("--hi", type=float, default=0.2)
    a = ap.parse_args()
    grid = np.round(np.arange(a.lo, a.hi + 0.05, 0.1), 10)
    for plain, name in ((True, "Tipping's original RVM"), (False, "fast RVM (T&F 2003)")):
        print(f"\n{name}, noise seed 0 (kernel exp(-(x-x')^2 / (2 s^2)), k0 = 201)")
        print(
            f"{'log10 s':>8s} {'log10 s^2':>9s} {'#RV':>4s} {'MDL-w':>9s} {'MDL-alpha':>10s}"
            f" {'err vs f':>9s}"
        )
        rows = curve(0, grid, plain)
        for ls, k, mw, ma, err in rows:
            print(f"{ls:8.1f} {2 * ls:9.1f} {k:4d} {mw:9.1f} {ma:10.1f} {err:9.5f}", flush=True)
        print(f"  summary over noise seeds ({name}): argmin as log10 s  [log10 s^2]")
        print(
            f"  {'seed':>4s} {'MDL-w':>12s} {'MDL-alpha':>12s} {'min error':>12s} {'#RV@MDL-a':>10s}"
        )
        for seed in range(a.seeds):
            r = rows if seed == 0 else curve(seed, grid, plain)
            iw = int(np.argmin([x[2] for x in r]))
            ia = int(np.argmin([x[3] for x in r]))
            ie = int(np.argmin([x[4] for x in r]))
            cells = [f"{r[i][0]:5.1f} [{2 * r[i][0]:4.1f}]" for i in (iw, ia, ie)]
            print(
                f"  {seed:4d} {cells[0]:>12s} {cells[1]:>12s} {cells[2]:>12s} {r[ia][1]:10d}",
                flush=True,
            )
    print(
        "\nAG (their artificial data): both MDL criteria at rho = 10^-0.8 with 25 RVs (error minimum there);"
    )
    print("15 RVs and underfitting at rho >= 10^-0.7; more RVs and overfitting at 10^-0.9.")


if __name__ == "__main__":
    main()
