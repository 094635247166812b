"""ABF: the model with All the candidate Basis Functions, whose CG is Barrio et al.'s width
stage too (:mod:`.widths` runs it once per training set for every method using it).

Barrio et al. (2009) §6.2.1; docs/methods/basis.md: the N Gaussian RBFs centred on the
training inputs, one shared weight precision alpha, noise precision beta, and one width per
input dimension; ``log alpha, log beta, log r_d`` are optimised jointly by conjugate
gradients on the log marginal likelihood (eq. 8) with the width gradient of eq. 49
``dL/dr_d = sum_nm D_nm dphi_nm/dr_d``, ``D = beta[(t - Phi mu) mu^T - Phi Sigma]``. Because
the centres are the inputs, Phi is symmetric: one eigendecomposition ``Phi = V diag(l) V^T``
per evaluation gives the likelihood, Sigma, mu and D.

Readings of what the paper leaves open: initial widths r_d = 1 on inputs scaled to
[-1, 1], alpha = 1e-3 and beta = 1 / (0.1 var t) as in the SSGE initialisation (§5.2.5);
CG over the log parameters with the project's one CG minimiser
(:mod:`delve_bench.numerics.cg`, the
thesis' Polak-Ribiere CG with the Wolfe-Powell line search), stopped after
``max_iterations`` iterations, when the largest gradient
component falls below ``gtol`` = 1e-4, or on the thesis' convergence test (two failed
line searches); one work unit = one CG iteration. The gradient is returned lazily: the
line search asks for it only at points it does not reject on their value, which saves
the O(N^3) ``Phi Sigma`` product there. :func:`optimise_abf` is the CG alone (what the
width stage needs), :func:`abf_posterior` the model at its end point (what abf-1 adds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics.cg import minimize
from ..base import LOG2PI
from .design import rbf_design


@dataclass
class AbfFit:
    widths: np.ndarray
    alpha: float
    beta: float
    log_ml: float
    iterations: int
    evaluations: int
    X: np.ndarray  # centres (= training inputs)
    mu: np.ndarray
    Sigma: np.ndarray

    def predict(self, Xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Phi = rbf_design(Xs, self.X, self.widths)
        mean = Phi @ self.mu
        var = 1.0 / self.beta + np.einsum("ij,ij->i", Phi @ self.Sigma, Phi)
        return mean, var


def log_ml_and_grad(theta: np.ndarray, X: np.ndarray, t: np.ndarray, want_post: bool = False):
    """Log marginal likelihood of ABF and its gradient w.r.t. (log alpha, log beta,
    log r_1..r_D)."""
    L, grad, post = _log_ml_lazy(theta, X, t)
    if want_post:
        return (L, grad(), *post())
    return L, grad()


def _log_ml_lazy(theta: np.ndarray, X: np.ndarray, t: np.ndarray):
    """``(L, grad(), post())``: the value from one eigendecomposition ``Phi = V l V^T``
    (O(N^3)); the gradient and the posterior (mu, Sigma) as closures, computed on demand."""
    N, D = X.shape
    la, lb, lr = theta[0], theta[1], theta[2:]
    a, b, r = np.exp(la), np.exp(lb), np.exp(lr)
    Phi = rbf_design(X, X, r)
    lam, V = np.linalg.eigh(Phi)
    u = V.T @ t
    den = b * lam**2 + a
    c = 1.0 / b + lam**2 / a
    L = -0.5 * (N * LOG2PI + np.sum(np.log(c)) + np.sum(u**2 / c))
    mu_e = b * lam * u / den  # mu in the eigenbasis
    res_e = a * u / den  # t - Phi mu in the eigenbasis

    def grad() -> np.ndarray:
        gamma = np.sum(b * lam**2 / den)
        mu2, sse = float(mu_e @ mu_e), float(res_e @ res_e)
        g = np.empty_like(theta)
        g[0] = 0.5 * (gamma - a * mu2)
        g[1] = 0.5 * ((N - gamma) - b * sse)
        mu = V @ mu_e
        resid = V @ res_e
        PhiSigma = (V * (lam / den)) @ V.T
        W = b * (np.outer(resid, mu) - PhiSigma) * Phi  # D * Phi (eq. 49)
        rs, cs = W.sum(1), W.sum(0)
        X2 = X**2
        quad = np.einsum("nd,nd->d", X, W @ X)
        g[2:] = 2.0 / r**2 * (X2.T @ rs + X2.T @ cs - 2.0 * quad)
        return g

    def post() -> tuple[np.ndarray, np.ndarray]:
        return V @ mu_e, (V / den) @ V.T

    return L, grad, post


@dataclass(frozen=True)
class AbfOptimum:
    """Where the CG on the ABF marginal likelihood ended: everything the width stage
    passes on, without the O(N^2) posterior.

    Attributes
    ----------
    theta : ndarray of shape (2 + D,)
        ``(log alpha, log beta, log r_1..r_D)`` at the end point.
    log_ml : float
        The log marginal likelihood there.
    iterations, evaluations : int
        CG iterations (line searches) and likelihood evaluations.
    """

    theta: np.ndarray
    log_ml: float
    iterations: int
    evaluations: int

    @property
    def widths(self) -> np.ndarray:
        return np.exp(self.theta[2:])


def optimise_abf(
    X: np.ndarray,
    t: np.ndarray,
    widths0: float | np.ndarray = 1.0,
    max_iterations: int = 100,
    stop=None,
    gtol: float = 1e-4,
) -> AbfOptimum:
    """Maximise the ABF marginal likelihood by CG; ``stop(iterations)`` may end it early."""
    N, D = X.shape
    var_t = float(np.var(t)) or 1.0
    theta0 = np.concatenate(
        [[np.log(1e-3), np.log(1.0 / (0.1 * var_t))], np.log(np.broadcast_to(widths0, (D,)))]
    )

    def f(th):
        L, grad, _ = _log_ml_lazy(th, X, t)
        if not np.isfinite(L):
            return np.inf, np.zeros_like(th)  # the CG backtracks from non-finite points
        return -L, lambda: -grad()

    def done(cg, _ls) -> bool:
        small = float(np.max(np.abs(cg.g))) < gtol
        return small or (stop is not None and stop(cg.iterations))

    res = minimize(f, theta0, max_iter=max_iterations, callback=done)
    # the CG keeps the value of its current point: -f there is exactly the L it computed
    return AbfOptimum(
        theta=res.x, log_ml=float(-res.f), iterations=res.iterations, evaluations=res.evals
    )


def abf_posterior(X: np.ndarray, t: np.ndarray, opt: AbfOptimum) -> AbfFit:
    """The ABF model on all of ``X`` at the end point ``opt`` of :func:`optimise_abf`
    (one more eigendecomposition)."""
    th = opt.theta
    L, _, mu, Sigma = log_ml_and_grad(th, X, t, want_post=True)
    return AbfFit(
        widths=np.exp(th[2:]),
        alpha=float(np.exp(th[0])),
        beta=float(np.exp(th[1])),
        log_ml=float(L),
        iterations=opt.iterations,
        evaluations=opt.evaluations,
        X=X,
        mu=mu,
        Sigma=Sigma,
    )


def fit_abf(
    X: np.ndarray,
    t: np.ndarray,
    widths0: float | np.ndarray = 1.0,
    max_iterations: int = 100,
    stop=None,
    gtol: float = 1e-4,
) -> AbfFit:
    """Maximise the ABF marginal likelihood by CG and return the model there;
    ``stop(iterations)`` may end the CG early."""
    return abf_posterior(X, t, optimise_abf(X, t, widths0, max_iterations, stop, gtol))
