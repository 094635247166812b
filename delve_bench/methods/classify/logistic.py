"""logistic-1: linear logistic regression, the classification counterpart of lin-1.

Multinomial logit with a bias: for C classes ``P(c | x) = exp(a_c) / sum_k exp(a_k)``,
``a_c = w_c . x + b_c`` for c < C-1 and ``a_{C-1} = 0`` (the last class present in the
training set is the reference; for two classes this is ordinary logistic regression).
The weights maximise the log likelihood minus ``lam/2 sum_c ||w_c||^2`` (biases not
penalised) by Newton's method with step halving on that objective, from zero weights,
until the largest change of a weight is below 1e-8 or after 100 steps. ``lam = 1e-4``
(inputs are DELVE-encoded, about unit scale) leaves the maximum-likelihood fit unchanged
to four digits when it exists and keeps the weights finite when the classes are
separable, the role lin-1's cut-off of tiny singular values plays. Classes absent from
the training set get probability 0.
"""

from __future__ import annotations

import numpy as np
from scipy.special import log_softmax

from ..base import Classifier, FitContext, Prediction


def _augment(X: np.ndarray) -> np.ndarray:
    return np.hstack([X, np.ones((len(X), 1))])


def fit_multinomial(
    X: np.ndarray, t: np.ndarray, K: int, lam: float, max_steps: int = 100, tol: float = 1e-8
) -> tuple[np.ndarray, int]:
    """Penalised ML weights of a K-class multinomial logit with the last class as reference.

    Parameters
    ----------
    X : (n, p) array, inputs with a bias column last.
    t : (n,) int array, classes 0 .. K-1.

    Returns
    -------
    W : (p, K-1) array
    steps : Newton steps taken
    """
    n, p = X.shape
    Y = np.eye(K)[t][:, : K - 1]
    pen = np.full(p, lam)
    pen[-1] = 0.0  # the bias is not penalised
    W = np.zeros((p, K - 1))

    def objective(W: np.ndarray) -> float:
        A = np.hstack([X @ W, np.zeros((n, 1))])
        return float(np.sum(log_softmax(A, axis=1)[np.arange(n), t]) - 0.5 * pen @ (W**2).sum(1))

    obj = objective(W)
    steps = 0
    while steps < max_steps:
        steps += 1
        A = np.hstack([X @ W, np.zeros((n, 1))])
        P = np.exp(log_softmax(A, axis=1))[:, : K - 1]
        G = X.T @ (Y - P) - pen[:, None] * W  # (p, K-1)
        # Hessian of the negative objective: X^T diag(P_a (d_ab - P_b)) X, plus the penalty
        D = np.einsum("na,ab->nab", P, np.eye(K - 1)) - np.einsum("na,nb->nab", P, P)
        H = np.einsum("ni,nab,nj->iajb", X, D, X).reshape(p * (K - 1), p * (K - 1))
        H += np.diag(np.repeat(pen, K - 1))
        H += 1e-12 * np.trace(H) / len(H) * np.eye(len(H))  # round-off guard
        step = np.linalg.solve(H, G.reshape(-1)).reshape(p, K - 1)
        alpha = 1.0
        while True:
            new = W + alpha * step
            new_obj = objective(new)
            if new_obj >= obj - 1e-12 * abs(obj) or alpha < 1e-10:
                break
            alpha /= 2
        W, obj = new, new_obj
        if np.max(np.abs(alpha * step)) < tol:
            break
    return W, steps


class Logistic(Classifier):
    """logistic-1 (see the module docstring).

    Parameters
    ----------
    lam : float
        The weight penalty (biases are not penalised).
    max_steps : int
        Newton steps at most.

    Attributes
    ----------
    n_classes_ : int
        The number of classes C of the task.
    present_ : ndarray of shape (K,)
        The classes the training set has (the last one is the reference).
    W_ : ndarray of shape (m + 1, K - 1) or None
        The weights, biases last; None when the training set has one class.
    """

    def __init__(self, lam: float = 1e-4, max_steps: int = 100):
        self.lam, self.max_steps = lam, max_steps

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self.n_classes_ = self._classes(y, ctx)
        self.present_ = np.unique(y)  # the classes the training set has
        K = len(self.present_)
        self.W_ = None
        if K > 1:
            t = np.searchsorted(self.present_, y)
            self.W_, steps = fit_multinomial(_augment(X), t, K, self.lam, self.max_steps)
            ctx.info.update(newton_steps=steps)

    def predict(self, X: np.ndarray) -> Prediction:
        P = np.zeros((len(X), self.n_classes_))
        if self.W_ is None:
            P[:, self.present_[0]] = 1.0
        else:
            A = np.hstack([_augment(X) @ self.W_, np.zeros((len(X), 1))])
            P[:, self.present_] = np.exp(log_softmax(A, axis=1))
        return Prediction.of_probs(P)


Logistic1 = Logistic  # the plugin name of method YAMLs written before the rename
