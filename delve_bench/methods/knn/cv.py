"""knn-cv-1: k nearest neighbours with k chosen by leave-one-out CV per loss
(Rasmussen 1996 §3.4, App. A.2; docs/methods/linear-knn.md).

* squared Euclidean distance, with the tie averaging of :mod:`.neighbours`;
* ``vs2`` (sigma-squared regulariser) = mean squared difference between each training
  target and its tie-adjusted leave-one-out nearest neighbour;
* k_S, k_A, k_L minimise the LOO squared error, absolute error (median of the
  neighbours) and Gaussian negative log density with variance
  ``v = (sum (y - ybar)^2 + vs2) / k`` (eq. 3.11), over k = 1..n-1; ties go to the
  smallest k.

All k are scored at once (:class:`.neighbours.Neighbours`); exact ties are rare, and the
medians of tied (case, k) pairs are recomputed directly.
"""

from __future__ import annotations

import numpy as np

from ...defaults import REGRESSION_LOSSES
from ...numerics.distance import sq_distances
from ..base import FitContext, Gaussian, Method, Prediction
from .neighbours import Neighbours, prefix_medians

_CHUNK_ENTRIES = 1 << 21  # rows per LOO chunk = this / n


def loo_losses(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Summed LOO losses (3 x (n-1): S, A, 2*NLL) for k = 1..n-1, and vs2."""
    n = len(y)
    p = n - 1
    ks = np.arange(1, n)[None, :]
    chunk = max(1, _CHUNK_ENTRIES // max(p, 1))
    parts = []
    for start in range(0, n, chunk):  # memory-bounded blocks of cases, each fully vectorised
        rows = np.arange(start, min(n, start + chunk))
        D = sq_distances(X[rows], X)
        D[np.arange(len(rows)), rows] = np.inf  # leave the case itself out...
        nb = Neighbours(D, y, keep=p)  # ...it sorts last and is dropped
        st = nb.stats(np.broadcast_to(ks, (len(rows), p)))
        med = prefix_medians(nb.ys)
        for k in np.unique(np.nonzero(st.tied)[1] + 1):  # rare: exact ties change the median
            r = np.flatnonzero(st.tied[:, k - 1])
            med[r, k - 1] = nb.adjusted_median(r, k, st.lo[r, k - 1], st.tie_mean[r, k - 1])
        parts.append((rows, st.total / ks, st.sumsq, med))
    t = y
    mean = np.vstack([m for _, m, _, _ in parts])
    vs2 = float(np.mean((mean[:, 0] - t) ** 2))
    sumsq = np.vstack([s for _, _, s, _ in parts])
    med = np.vstack([m for _, _, _, m in parts])
    v = (vs2 + sumsq) / ks - mean**2
    err2 = (mean - t[:, None]) ** 2
    out = np.vstack(
        [err2.sum(0), np.abs(med - t[:, None]).sum(0), (np.log(2 * np.pi * v) + err2 / v).sum(0)]
    )
    return out, vs2


class KnnCv(Method):
    """The thesis' knn-cv-1.

    Attributes
    ----------
    X_ : ndarray of shape (n, m)
        The training inputs.
    y_ : ndarray of shape (n,)
        The training targets.
    vs2_ : float
        The variance regulariser (encoded target units squared).
    k_S_, k_A_, k_L_ : int
        The neighbour counts serving S, A and L.
    """

    losses = REGRESSION_LOSSES

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        if len(y) < 2:
            raise ValueError("knn-cv-1 needs at least 2 training cases")
        self.X_, self.y_ = X, y
        loo, self.vs2_ = loo_losses(X, y)
        self.k_S_, self.k_A_, self.k_L_ = (
            int(np.argmin(row)) + 1 for row in loo
        )  # first min: smallest k
        ctx.info.update(k_S=self.k_S_, k_A=self.k_A_, k_L=self.k_L_, vs2_encoded=self.vs2_)

    def predict(self, X: np.ndarray) -> Prediction:
        nb = Neighbours(sq_distances(X, self.X_), self.y_)
        rows = np.arange(len(X))
        mean = nb.stats(self.k_S_).total[:, 0] / self.k_S_
        a = nb.stats(self.k_A_)
        median = nb.adjusted_median(rows, self.k_A_, a.lo[:, 0], a.tie_mean[:, 0])
        sl = nb.stats(self.k_L_)
        m_L = sl.total[:, 0] / self.k_L_
        v = (self.vs2_ + sl.sumsq[:, 0]) / self.k_L_ - m_L**2
        return Prediction(mean=mean, median=median, density=Gaussian(m_L, v))
