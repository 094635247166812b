"""Platt's (1999) sigmoid: class probabilities from a two-class decision value.

``P(y = +1 | f) = 1 / (1 + exp(A f + B))``, with A, B minimising the cross-entropy to
Platt's regularised targets ``t+ = (N+ + 1) / (N+ + 2)`` for positive and
``t- = 1 / (N- + 2)`` for negative cases (his guard against overfitting the sigmoid), on
decision values the classifier did not fit (held-out or leave-one-out). Minimised by
Newton's method with backtracking and a 1e-12 ridge on the Hessian, the numerically
robust form of Lin, Lin & Weng (2007), from A = 0, B = log((N- + 1) / (N+ + 1)).

``intercept=False`` fixes B = 0, so the probability exceeds 1/2 exactly where f > 0 and
the classifier's own decision rule is kept (used for the OFS classifiers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit


@dataclass(frozen=True)
class Platt:
    """A fitted sigmoid ``P(+1 | f) = 1 / (1 + exp(A f + B))``."""

    A: float
    B: float

    def prob_positive(self, f: np.ndarray) -> np.ndarray:
        return expit(-(self.A * np.asarray(f, dtype=float) + self.B))


def _nll(z: np.ndarray, t: np.ndarray) -> float:
    """Cross-entropy of p = 1/(1+exp(z)) to targets t, without overflow."""
    return float(
        np.sum(
            np.where(
                z >= 0,
                t * z + np.log1p(np.exp(-np.abs(z))),
                (t - 1) * z + np.log1p(np.exp(-np.abs(z))),
            )
        )
    )


def fit_platt(f: np.ndarray, y: np.ndarray, intercept: bool = True, max_iter: int = 100) -> Platt:
    """Fit Platt's sigmoid to decision values ``f`` (n,) with labels ``y`` (n,) in {-1, +1}."""
    f = np.asarray(f, dtype=float)
    pos = np.asarray(y) > 0
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    theta = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0)) if intercept else 0.0])
    free = 2 if intercept else 1
    X = np.column_stack([f, np.ones_like(f)])[:, :free]

    def z_of(th: np.ndarray) -> np.ndarray:
        return f * th[0] + th[1]

    obj = _nll(z_of(theta), t)
    for _ in range(max_iter):
        p = expit(-z_of(theta))
        grad = X.T @ (t - p)
        if np.max(np.abs(grad)) < 1e-5:
            break
        H = (X * (p * (1 - p))[:, None]).T @ X + 1e-12 * np.eye(free)
        step = -np.linalg.solve(H, grad)
        stepsize, gd = 1.0, float(grad @ step)
        while stepsize >= 1e-10:
            new = theta.copy()
            new[:free] += stepsize * step
            new_obj = _nll(z_of(new), t)
            if new_obj < obj + 1e-4 * stepsize * gd:
                theta, obj = new, new_obj
                break
            stepsize /= 2
        else:
            break  # line search failed: the current sigmoid is as good as it gets
    return Platt(float(theta[0]), float(theta[1]))
