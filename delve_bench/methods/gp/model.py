"""The Gaussian-process model shared by gp-map-1 and gp-mc-1 (Rasmussen 1996 Ch. 4, C
``cov-1.c`` in App. A.5; docs/methods/gp.md).

Covariance (eq. 4.12), on DELVE-encoded (median-centred) inputs::

    C(x, x') = a0 + a1 x.x' + v0 exp(-1/2 sum_i w_i (x_i - x'_i)^2),   Q = K + r^2 I

Hyperparameters are in log space, ``theta = [log w_1..log w_m, log v0, log a0, log a1,
log r^2]``. The objective is the negative log posterior (eq. 4.15–4.18)::

    E(theta) = 1/2 log det Q + 1/2 t' Q^-1 t - log p(theta)     ((n/2) log 2 pi dropped)

with the priors of §4.4 (eqs. 4.17-4.18). Everything goes through one Cholesky factor of Q (LAPACK
``potrf``); ``Q^-1`` itself is formed only where the gradient's traces need its elements
(``potri``, the thesis' ``invspd``), and the m ARD derivatives come from one product
``(W o K1) X`` instead of m n-by-n matrices, so an evaluation costs
``n^3/3 + n^3/3 + O(m n^2)``. A Q that is not positive definite gives ``E = +inf``
(the C code exits): the line search backtracks and HMC rejects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics.distance import sq_distances

# scipy.linalg (0.2 s to import) is imported by the functions that use it, not here:
# `delve study status` and `compare` import this module only to ask whether gp-mc-1 is an
# anytime method (the study file's snapshots), and never fit a GP

LOG2PI = float(np.log(2 * np.pi))

#: prior of log v0: N(-1, 1^2); of log a0, log a1, log r^2: N(-3, 3^2) (thesis §4.4)
V0_MEAN, V0_SD = -1.0, 1.0
OTHER_MEAN, OTHER_SD = -3.0, 3.0
#: ARD prior: w^-1 ~ Gamma(Neal mean mu0 m^2, alpha = 1) (eq. 4.18)
ARD_MU0 = 1.0


def n_hyper(m: int) -> int:
    """Number of hyperparameters for m inputs: m length scales + v0, a0, a1, r^2."""
    return m + 4


def initial_theta(m: int) -> np.ndarray:
    """The thesis' start (§4.5): w_i = 1/m, v0 = 1, a0 = a1 = r^2 = e^-2."""
    return np.concatenate([np.full(m, -np.log(m)), [0.0, -2.0, -2.0, -2.0]])


@dataclass(frozen=True)
class Hyper:
    """Hyperparameters on their natural scale, unpacked from ``theta``."""

    w: np.ndarray  # inverse squared length scales (m,)
    v0: float
    a0: float
    a1: float
    r2: float

    @classmethod
    def from_theta(cls, theta: np.ndarray) -> Hyper:
        e = np.exp(np.asarray(theta, dtype=float))
        return cls(e[:-4], float(e[-4]), float(e[-3]), float(e[-2]), float(e[-1]))

    def as_dict(self) -> dict:
        """For meta.json: also the ARD length scales ``w^-1/2``."""
        return {
            "length_scales": 1.0 / np.sqrt(self.w),
            "w": self.w,
            "v0": self.v0,
            "a0": self.a0,
            "a1": self.a1,
            "r2": self.r2,
        }


def neg_log_prior(theta: np.ndarray) -> tuple[float, np.ndarray]:
    """``-log p(theta)`` and its gradient, as the C ``prior()`` (eqs. 4.17-4.18; constants of the
    Gaussians dropped, the ARD one kept with 2 pi for the C typo 6.2831953)."""
    theta = np.asarray(theta, dtype=float)
    m = len(theta) - 4
    tw, tv, to = theta[:m], theta[m], theta[m + 1 :]
    scale = ARD_MU0 / m**2
    ew = scale * np.exp(-tw)
    val = 0.5 * float(np.sum(np.log(2 * np.pi / scale) + tw + ew))
    val += 0.5 * ((tv - V0_MEAN) / V0_SD) ** 2
    val += 0.5 * float(np.sum(((to - OTHER_MEAN) / OTHER_SD) ** 2))
    grad = np.concatenate(
        [0.5 * (1.0 - ew), [(tv - V0_MEAN) / V0_SD**2], (to - OTHER_MEAN) / OTHER_SD**2]
    )
    return float(val), grad


def _gram(Z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``Z Z'`` by a plain ``gemm`` (Fortran-ordered result, into ``out`` (n, n) if given,
    which must be Fortran-ordered). numpy's ``Z @ Z.T`` takes the ``syrk`` path, several
    times slower for the few columns (inputs) we have."""
    from scipy.linalg import blas

    if out is None:
        return blas.dgemm(1.0, Z, Z, trans_b=1)
    return blas.dgemm(1.0, Z, Z, trans_b=1, c=out, overwrite_c=1)


def _se_part(Xs: np.ndarray, log_v0: float, out: np.ndarray | None = None) -> np.ndarray:
    """``v0 exp(-1/2 |xs_p - xs_q|^2)`` for the scaled inputs ``Xs = X sqrt(w)``, in place
    over one n-by-n buffer (``out`` if given, Fortran-ordered):
    ``log v0 + xs_p.xs_q - |xs_p|^2/2 - |xs_q|^2/2``, clipped at ``log v0`` (rounding),
    exponentiated."""
    h = 0.5 * (Xs * Xs).sum(1) - 0.5 * log_v0
    K1 = _gram(Xs, out)
    K1 -= h[:, None]
    K1 -= h[None, :]
    np.minimum(K1, log_v0, out=K1)
    return np.exp(K1, out=K1)


class GPObjective:
    """``E(theta)`` and its gradient for one training set; callable as ``fun(theta) ->
    (E, grad)`` for :func:`~delve_bench.numerics.cg.minimize` and
    :class:`~delve_bench.numerics.hmc.HMC`. ``X`` (n, m) encoded inputs, ``t`` (n,)
    encoded targets. The gradient is returned lazily, as a callable: the expensive part
    (``Q^-1`` by ``potri``) is paid only when the caller needs it. ``evals`` counts calls.
    """

    def __init__(self, X: np.ndarray, t: np.ndarray):
        self.X = np.ascontiguousarray(X, dtype=float)
        self.t = np.asarray(t, dtype=float)
        self.n, self.m = self.X.shape
        self.X1 = np.hstack([np.ones((self.n, 1)), self.X])  # [1, X]: bias and linear parts
        self.XXt = _gram(self.X)  # the linear part's X X' never changes
        self.X2 = self.X * self.X
        self.x2 = self.X2.sum(1)  # |x_p|^2 = diag(X X')
        self.evals = 0
        # n-by-n (Q, K1) buffer pairs free for the next evaluation: an evaluation holds
        # its pair until its gradient is taken (HMC: at once), so that the steady state
        # allocates nothing (a fresh n-by-n array costs its page faults, at n = 256 as
        # much as the exp of its elements)
        self._free: list[tuple[np.ndarray, np.ndarray]] = []

    def _buffers(self) -> tuple[np.ndarray, np.ndarray]:
        if self._free:
            return self._free.pop()
        n = self.n
        return np.empty((n, n), order="F"), np.empty((n, n), order="F")

    def covariance(
        self, h: Hyper, out: tuple[np.ndarray, np.ndarray] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(Q, K1)``: the full training covariance and its squared-exponential part
        (both symmetric and Fortran-ordered; into the buffers ``out`` if given)."""
        Q, K1 = out if out is not None else (np.empty((self.n, self.n), order="F"), None)
        K1 = _se_part(self.X * np.sqrt(h.w), np.log(h.v0), K1)
        np.multiply(h.a1, self.XXt, out=Q)
        Q += h.a0
        Q += K1
        Q.T.reshape(-1)[:: self.n + 1] += h.r2  # the diagonal (a view: Q is contiguous)
        return Q, K1

    def __call__(self, theta: np.ndarray):
        from scipy.linalg import lapack

        self.evals += 1
        theta = np.asarray(theta, dtype=float)
        nan = np.full(len(theta), np.nan)
        if not np.all(np.isfinite(theta)) or np.any(np.abs(theta) > 700):
            return np.inf, nan
        h = Hyper.from_theta(theta)
        bufs = self._buffers()
        Q, K1 = self.covariance(h, bufs)
        # Q is Fortran-ordered: factorised in place without a copy; clean=1 zeroes the
        # upper triangle, which potri leaves alone
        L, info = lapack.dpotrf(Q, lower=1, clean=1, overwrite_a=1)
        if info != 0:  # not positive definite: an impossible state (E = +inf)
            self._free.append(bufs)
            return np.inf, nan
        q, _ = lapack.dpotrs(L, self.t, lower=1)
        E = float(np.sum(np.log(np.diag(L)))) + 0.5 * float(self.t @ q)
        prior, gprior = neg_log_prior(theta)
        E += prior
        if not np.isfinite(E):
            self._free.append(bufs)
            return np.inf, nan
        memo: list[np.ndarray] = []  # potri overwrites L: compute the gradient once

        def gradient() -> np.ndarray:
            if not memo:
                memo.append(self._gradient(h, L, q, K1, gprior))
                self._free.append(bufs)  # L and K1 are spent: the next evaluation's
            return memo[0]

        return E, gradient

    def _gradient(self, h: Hyper, L, q, K1, gprior) -> np.ndarray:
        """``dE/dtheta_j = 1/2 sum_pq (Q^-1 - q q')_pq dQ_pq/dtheta_j + d(-log p)/dtheta_j``.

        Only the lower triangle ``Ql`` of ``Q^-1`` is formed (``potri``); a full sum over a
        symmetric ``S`` is ``2 sum(Ql o S) - sum(diag Ql o diag S)``. For the ARD terms,
        ``dQ/dlog w_k = -1/2 w_k (x_pk - x_qk)^2 K1`` and
        ``sum_pq A_pq (x_pk - x_qk)^2 = X2'(A1) + X2'(A'1) - 2 sum_p x_pk (A X)_pk``,
        so every derivative comes from a few matrix-vector and n-by-(m+1) products."""
        from scipy.linalg import lapack

        X, X2, m = self.X, self.X2, self.m
        Ql, info = lapack.dpotri(L, lower=1, overwrite_c=1)  # lower triangle of Q^-1
        if info != 0:
            return np.full(m + 4, np.nan)
        dQl = np.diag(Ql).copy()
        dA = dQl * np.diag(K1)
        # q q' o K1 part: K1 [q, q o X]
        Y = q[:, None] * self.X1
        KY = K1 @ Y
        Kq, KYX = KY[:, 0], KY[:, 1:]
        A = np.multiply(Ql, K1, out=K1)  # lower triangle of Q^-1 o K1 (K1 is spent)
        AX1 = A @ self.X1  # [row sums, A X]
        cA = A.sum(0)  # column sums
        S = X2.T @ (AX1[:, 0] + cA) - 2.0 * np.einsum("pk,pk->k", X, AX1[:, 1:])
        T = 2.0 * (X2.T @ (q * Kq) - np.einsum("pk,pk->k", Y[:, 1:], KYX))
        g = np.empty(m + 4)
        g[:m] = -0.25 * h.w * (2.0 * S - T)
        # log v0: dQ = K1
        g[m] = 0.5 * (2.0 * (AX1[:, 0].sum()) - dA.sum() - q @ Kq)
        # log a0: dQ = a0 11';  log a1: dQ = a1 X X';  [Ql 1, Ql X] in one product
        QX1 = Ql @ self.X1
        sum_qi = 2.0 * QX1[:, 0].sum() - dQl.sum()
        tr_xqx = 2.0 * np.einsum("pk,pk->", X, QX1[:, 1:]) - dQl @ self.x2
        g[m + 1] = 0.5 * h.a0 * (sum_qi - q.sum() ** 2)
        g[m + 2] = 0.5 * h.a1 * (tr_xqx - float(np.sum((X.T @ q) ** 2)))
        # log r^2: dQ = r^2 I
        g[m + 3] = 0.5 * h.r2 * (dQl.sum() - q @ q)
        return g + gprior


@dataclass(frozen=True)
class Posterior:
    """The GP conditioned on the training set for one hyperparameter setting (eq. 4.10)."""

    X: np.ndarray
    h: Hyper
    L: np.ndarray  # lower Cholesky factor of Q
    q: np.ndarray  # Q^-1 t

    @classmethod
    def fit(cls, X: np.ndarray, t: np.ndarray, theta: np.ndarray) -> Posterior:
        """Factorise Q at ``theta``; raises ``numpy.linalg.LinAlgError`` if Q is not
        positive definite (cannot happen at a point where the objective was finite)."""
        from scipy.linalg import lapack

        obj = GPObjective(X, t)
        h = Hyper.from_theta(theta)
        Q, _ = obj.covariance(h)
        L, info = lapack.dpotrf(Q, lower=1, clean=1, overwrite_a=1)
        if info != 0:
            raise np.linalg.LinAlgError("GP covariance is not positive definite")
        q, _ = lapack.dpotrs(L, obj.t, lower=1)
        return cls(obj.X, h, L, q)

    def predict(self, Xt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance of the *noisy* target (the C ``pred()`` includes
        r^2, which the L loss needs): ``mu = g' Q^-1 t``,
        ``s^2 = C(x, x) + r^2 - g' Q^-1 g`` with ``g_p = C(x, x_p)``."""
        from scipy.linalg import solve_triangular

        h = self.h
        Xt = np.asarray(Xt, dtype=float)
        sw = np.sqrt(h.w)
        G = h.v0 * np.exp(-0.5 * sq_distances(Xt * sw, self.X * sw))
        G += h.a1 * (Xt @ self.X.T)
        G += h.a0
        mu = G @ self.q
        V = solve_triangular(self.L, G.T, lower=True, check_finite=False)
        var = h.a0 + h.a1 * (Xt * Xt).sum(1) + h.v0 + h.r2 - (V * V).sum(0)
        # rounding can only lower the variance below the noise level
        return mu, np.maximum(var, h.r2)
