"""rvm-class-1: Tipping's (2001) relevance vector classifier, grown by the fast
marginal-likelihood algorithm of Tipping & Faul (2003) with the Laplace approximation.

Two classes, targets t in {0, 1} (1: the target's second listed value). Model
``P(t = 1 | x) = sigma(sum_i w_i phi_i(x))`` over a dictionary of N Gaussian RBFs
``exp(-||x - x_n||^2 / tau)`` centred on the training inputs plus a bias column, with a
zero-mean Gaussian prior of precision alpha_i on each weight (alpha_i = inf: the
function is not in the model).

For the current model the Laplace approximation replaces the Bernoulli likelihood by a
Gaussian around the posterior mode: the mode ``mu`` maximises
``sum_n [t_n log y_n + (1 - t_n) log(1 - y_n)] - 1/2 sum_i alpha_i w_i^2`` (Newton's
method with step halving, warm-started, at most 25 steps), ``Sigma = (Phi^T B Phi + A)^-1``
with ``B = diag(y_n (1 - y_n))``. This is a linear-Gaussian problem with noise precisions
B and pseudo-targets ``Phi mu + B^-1 (t - y)``, so the factors of every candidate are
(Tipping & Faul 2003, §5)

    S_m = phi_m^T B phi_m - phi_m^T B Phi Sigma Phi^T B phi_m,   Q_m = phi_m^T (t - y),

and the choice of the iteration (add, delete or re-estimate one alpha, or stop) is the
Gaussian RVM's own: :func:`delve_bench.methods.basis.rvm.choose_action` with
:func:`~delve_bench.methods.basis.evidence.sparsity_quality`. After each action the mode
and the factors are recomputed (O(N P M)), as SparseBayes does for non-Gaussian
likelihoods. Start: the bias alone, its alpha from a least-squares fit of the logits of
0.05 + 0.9 t, kept within [1e-3, 1e3] (SparseBayes' initialisation); a candidate almost
parallel to an in-model function (normalised inner product > 1 - 1e-3) is not added.

The width tau = s * median_{i<j} ||x_i - x_j||^2 is chosen per training set by 5-fold
cross-validation, as Tipping (2001) chose his kernel widths: the grid s in {4, 2, 1, 1/2,
1/4, 1/8, 1/16} is walked from the smoothest kernel to the roughest, scoring each by the
mean held-out negative log probability (stratified folds from the method's seeded
generator), and the walk stops at the first width that does not improve on the best so
far (narrower kernels only add relevance vectors and cost from there on). The Laplace
evidence of the final model, ``log p(t | mu) - 1/2 mu^T A mu + 1/2 log|A| - 1/2
log|Phi^T B Phi + A|``, is recorded but not used for the width: on the benchmarks it
keeps rising as the kernels narrow towards interpolation (german: 200 of 700 cases as
relevance vectors and a worse test error), where the Gaussian approximation of a nearly
separable posterior is poor. Prediction: ``P(t = 1 | x) = sigma(phi(x)^T mu)`` (Tipping
2001, §4.1; no moderation). Model size: the relevance vectors, without the bias.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from scipy.special import expit, log_expit

from ...numerics.distance import sq_distances
from ..base import Classifier, FitContext, Prediction
from ..basis.evidence import _cholesky, sparsity_quality
from ..basis.rvm import ALIGNMENT_MAX, choose_action
from .ofs import SCALES, median_sq_distance

INIT_ALPHA_MIN, INIT_ALPHA_MAX = 1e-3, 1e3
MODE_STEPS = 25
MODE_GRAD_TOL = 1e-6


def _loglik(t: np.ndarray, a: np.ndarray) -> float:
    """Bernoulli log likelihood of activations ``a``."""
    return float(np.sum(t * log_expit(a) + (1 - t) * log_expit(-a)))


def posterior_mode(
    Phi: np.ndarray, t: np.ndarray, alpha: np.ndarray, mu: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float]:
    """The Laplace mode by Newton's method from ``mu``: (mu, lower Cholesky factor of the
    Hessian ``Phi^T B Phi + A``, penalised log likelihood)."""

    def objective(w: np.ndarray) -> float:
        return _loglik(t, Phi @ w) - 0.5 * float(alpha @ w**2)

    obj = objective(mu)
    for _ in range(MODE_STEPS):
        y = expit(Phi @ mu)
        g = Phi.T @ (t - y) - alpha * mu
        L = _cholesky((Phi * (y * (1 - y))[:, None]).T @ Phi + np.diag(alpha))
        if np.max(np.abs(g)) < MODE_GRAD_TOL:
            return mu, L, obj
        step = cho_solve((L, True), g)
        lr = 1.0
        while lr > 1e-8:
            new = mu + lr * step
            new_obj = objective(new)
            if new_obj >= obj:
                break
            lr /= 2
        else:
            break
        mu, obj = new, new_obj
    y = expit(Phi @ mu)
    L = _cholesky((Phi * (y * (1 - y))[:, None]).T @ Phi + np.diag(alpha))
    return mu, L, obj


@dataclass
class RvcFit:
    idx: list[int]  # dictionary columns in the model (the bias is column N)
    alpha: np.ndarray
    mu: np.ndarray
    log_evidence: float
    iterations: int
    adds: int = 0
    deletes: int = 0
    reestimates: int = 0
    converged: bool = False


def fast_rvc(B: np.ndarray, t: np.ndarray, max_iterations: int = 10000, stop=None) -> RvcFit:
    """The fast marginal-likelihood RVM for two classes on the dictionary ``B`` (N x P)
    whose last column is the bias; ``t`` in {0, 1}."""
    N, P = B.shape
    norms = np.sqrt(np.einsum("np,np->p", B, B))
    bias = P - 1
    logit = np.log((0.05 + 0.9 * t) / (1 - (0.05 + 0.9 * t)))
    w0 = float(B[:, bias] @ logit / (norms[bias] ** 2))
    idx = [bias]
    alpha = np.array([np.clip(1.0 / max(w0 * w0, 1e-300), INIT_ALPHA_MIN, INIT_ALPHA_MAX)])
    mu = np.zeros(1)
    aligned = np.zeros(P, bool)
    fit = RvcFit(idx, alpha, mu, -np.inf, 0)
    it = 0
    while True:
        Phi = B[:, idx]
        mu, L, obj = posterior_mode(Phi, t, alpha, mu)
        y = expit(Phi @ mu)
        w = y * (1 - y)
        Bw = B * np.sqrt(w)[:, None]
        V = solve_triangular(L, Bw[:, idx].T @ Bw, lower=True)  # L^-1 Phi^T B phi_m
        S = np.einsum("np,np->p", Bw, Bw) - np.einsum("mp,mp->p", V, V)
        Q = B.T @ (t - y)
        fit.log_evidence = (
            obj + 0.5 * float(np.sum(np.log(alpha))) - float(np.sum(np.log(np.diag(L))))
        )
        if it >= max_iterations or (stop is not None and stop(it)):
            break
        s, q = sparsity_quality(S, Q, idx, alpha)
        act = choose_action(S, Q, s, q, idx, alpha, aligned)
        if act.terminate:
            fit.converged = True
            break
        j = act.index
        if act.kind == "delete":
            pos = idx.index(j)
            idx = idx[:pos] + idx[pos + 1 :]
            alpha, mu = np.delete(alpha, pos), np.delete(mu, pos)
            fit.deletes += 1
        elif act.kind == "reestimate":
            alpha = alpha.copy()
            alpha[idx.index(j)] = act.new_alpha
            fit.reestimates += 1
        else:
            cos = B[:, j] @ B[:, idx] / (norms[j] * norms[idx])
            if np.any(cos > ALIGNMENT_MAX):
                aligned[j] = True
            else:
                idx = idx + [j]
                alpha, mu = np.append(alpha, act.new_alpha), np.append(mu, 0.0)
                fit.adds += 1
        it += 1
    fit.idx, fit.alpha, fit.mu, fit.iterations = idx, alpha, mu, it
    return fit


def _design(D: np.ndarray, tau: float) -> np.ndarray:
    """RBF columns ``exp(-D / tau)`` and a bias column."""
    return np.hstack([np.exp(-D / tau), np.ones((len(D), 1))])


def cv_log_loss(
    D: np.ndarray, t: np.ndarray, tau: float, folds: np.ndarray, max_iterations: int
) -> float:
    """Mean held-out negative log probability of the RVC at width ``tau`` over the folds
    (``folds[n]`` = fold of case n), from the full squared-distance matrix ``D``."""
    total = 0.0
    for k in np.unique(folds):
        tr, va = folds != k, folds == k
        fit = fast_rvc(_design(D[np.ix_(tr, tr)], tau), t[tr], max_iterations)
        a = _design(D[np.ix_(va, tr)], tau)[:, fit.idx] @ fit.mu
        total -= _loglik(t[va], a)
    return total / len(t)


def stratified_folds(t: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Fold numbers 0..k-1: each class dealt round-robin in a random order."""
    folds = np.empty(len(t), dtype=np.intp)
    start = 0
    for c in np.unique(t):
        idx = rng.permutation(np.flatnonzero(t == c))
        folds[idx] = (start + np.arange(len(idx))) % k
        start += len(idx)
    return folds


class RvmClass(Classifier):
    """rvm-class-1 (see the module docstring).

    Parameters
    ----------
    scales : sequence of float
        The kernel widths, multiples of the median squared pairwise distance, walked from
        smooth to rough.
    folds : int
        K of the stratified cross-validation of the width.
    max_iterations : int
        The most fast-RVM iterations of one fit.

    Attributes
    ----------
    tau_ : float
        The chosen kernel width ``s * median``.
    centres_ : ndarray of shape (k, m)
        The relevance vectors.
    w_ : ndarray of shape (k,)
        Their weights.
    b_ : float
        The bias (0 when it is not relevant).
    """

    max_classes = 2

    def __init__(self, scales=SCALES, folds: int = 5, max_iterations: int = 10000):
        self.scales = tuple(sorted(scales, reverse=True))  # smooth to rough
        self.folds, self.max_iterations = folds, max_iterations

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self._classes(y, ctx)
        if len(y) < 2:  # no pairwise distance to set the kernel width from
            raise ValueError("rvm-class-1 needs at least 2 training cases")
        t = (np.asarray(y) == 1).astype(float)
        med = median_sq_distance(X)
        D = sq_distances(X, X)
        k = max(2, min(self.folds, int(np.bincount(t.astype(int), minlength=2).min())))
        folds = stratified_folds(t, k, ctx.rng)
        best: tuple[float, float] | None = None
        curve = {}
        for i, s in enumerate(self.scales):
            if i and ctx.budget.exhausted(i):
                break
            score = cv_log_loss(D, t, s * med, folds, self.max_iterations)
            curve[f"{s:g}"] = score
            if best is None or score < best[0]:
                best = (score, s)
            else:
                break  # the first width that does not improve ends the walk
        assert best is not None  # the first width is always tried
        cv, s = best
        fit = fast_rvc(_design(D, s * med), t, self.max_iterations)
        N = len(X)
        self.tau_ = s * med
        rv = [j for j in fit.idx if j < N]
        self.centres_ = X[rv]
        self.w_ = np.array([m for j, m in zip(fit.idx, fit.mu, strict=True) if j < N])
        self.b_ = float(sum(m for j, m in zip(fit.idx, fit.mu, strict=True) if j == N))
        ctx.info.update(
            model_size=len(rv),
            tau=self.tau_,
            scale=s,
            cv_log_loss=cv,
            log_evidence=fit.log_evidence,
            iterations=fit.iterations,
            adds=fit.adds,
            deletes=fit.deletes,
            reestimates=fit.reestimates,
            converged=fit.converged,
            width_curve=curve,
        )

    def decision(self, X: np.ndarray) -> np.ndarray:
        return np.exp(-sq_distances(X, self.centres_) / self.tau_) @ self.w_ + self.b_

    def predict(self, X: np.ndarray) -> Prediction:
        p1 = expit(self.decision(X))
        return Prediction.of_probs(np.column_stack([1.0 - p1, p1]))


RvmClass1 = RvmClass  # the plugin name of method YAMLs written before the rename
