"""lin-1: linear least squares with SVD regularisation (Rasmussen 1996 §3.3, App. A.1;
docs/methods/linear-knn.md).

``A = X~^T X~`` with a bias column; directions with eigenvalue ``lambda_i <= 1e-6 max
lambda`` are dropped; ``w = A~^-1 X~^T t``; the noise is ``SSE / (n - num_fit)``. The
predictive distribution is Gaussian with variance ``sigma^2 + x~^T A~^-1 x~`` exactly as
in the thesis and its C code (the second term is *not* scaled by
sigma^2); ``corrected=True`` gives the textbook ``sigma^2 (1 + x~^T A~^-1 x~)`` under a new
method name. L is produced only when n > m + 1.
"""

from __future__ import annotations

import numpy as np

from ...defaults import REGRESSION_LOSSES
from ..base import FitContext, Gaussian, Method, Prediction

MAX_SV_RATIO = 1e6


class Lin(Method):
    """The thesis' lin-1.

    Parameters
    ----------
    corrected : bool
        False (lin-1): predictive variance ``sigma^2 + x~^T A~^-1 x~`` as in the thesis;
        True: the textbook ``sigma^2 (1 + x~^T A~^-1 x~)``.

    Attributes
    ----------
    A_inv_ : ndarray of shape (m + 1, m + 1)
        The regularised inverse of ``X~^T X~`` (bias last).
    w_ : ndarray of shape (m + 1,)
        The weights, bias last.
    num_fit_ : int
        Directions kept by the eigenvalue cut-off.
    sigma2_ : float
        Noise variance ``SSE / (n - num_fit_)`` (NaN when n <= num_fit_).
    has_density_ : bool
        Whether L is served (n > m + 1 and a positive finite noise variance).
    """

    losses = REGRESSION_LOSSES

    def __init__(self, corrected: bool = False):
        self.corrected = corrected

    @staticmethod
    def _augment(X: np.ndarray) -> np.ndarray:
        return np.hstack([X, np.ones((len(X), 1))])

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xa = self._augment(X)
        n, p = Xa.shape
        A = Xa.T @ Xa
        lam, V = np.linalg.eigh(A)  # A is symmetric PSD: its SVD is its eigendecomposition
        keep = lam > lam.max() / MAX_SV_RATIO
        inv = np.where(keep, 1.0 / np.where(keep, lam, 1.0), 0.0)
        self.A_inv_ = (V * inv) @ V.T
        self.w_ = self.A_inv_ @ (Xa.T @ y)
        self.num_fit_ = int(keep.sum())
        resid = Xa @ self.w_ - y
        dof = n - self.num_fit_
        self.sigma2_ = float(resid @ resid / dof) if dof > 0 else np.nan
        # L only if n > m + 1 (thesis: "too few training examples" otherwise)
        self.has_density_ = n > p and np.isfinite(self.sigma2_) and self.sigma2_ > 0
        ctx.info.update(num_fit=self.num_fit_, sigma2_encoded=self.sigma2_)
        if not self.has_density_:
            ctx.info["warning"] = (
                "too few training examples for a predictive distribution (n <= m+1)"
            )

    def predict(self, X: np.ndarray) -> Prediction:
        Xa = self._augment(X)
        mu = Xa @ self.w_
        density = None
        if self.has_density_:
            quad = np.einsum("ij,jk,ik->i", Xa, self.A_inv_, Xa)
            var = self.sigma2_ * (1 + quad) if self.corrected else self.sigma2_ + quad
            density = Gaussian(mu, var)
        return Prediction(mean=mu, median=mu, density=density)
