"""knn-class-cv-1: k nearest neighbours for classification, k by leave-one-out per loss.

The classification counterpart of knn-cv-1 (Rasmussen 1996 §3.4), on its neighbour code
(:class:`delve_bench.methods.knn.neighbours.Neighbours`):

* squared Euclidean distance on the encoded inputs; cases whose distance is within 1e-6
  of the k-th neighbour's count as tied with it, and the tied cases at or before position
  k contribute the tie block's class frequencies (knn-cv-1's tie averaging);
* class probabilities from the neighbours' class counts n_c with add-1/2 smoothing
  (Krichevsky & Trofimov), ``p_c = (n_c + 1/2) / (k + C/2)``, so no class has
  probability 0 and L stays finite;
* k_Z, k_Q and k_L minimise the summed leave-one-out Z, Q and L losses (scored by
  :func:`delve_bench.losses.class_losses`, ties in Z counted as DELVE's rule says) over
  k = 1 .. n-1, the smallest k on ties; each loss is served by its own k.

All k and all cases are scored at once with prefix sums of the sorted neighbours' classes
(memory-bounded chunks of cases), as knn-cv-1 does.
"""

from __future__ import annotations

import numpy as np

from ...losses import class_losses
from ...numerics.distance import sq_distances
from ..base import Classifier, FitContext, Prediction
from ..knn.neighbours import Neighbours

ALPHA = 0.5
_CHUNK_ENTRIES = 1 << 21


def smoothed(counts: np.ndarray, k: np.ndarray | int, C: int, alpha: float) -> np.ndarray:
    """``(n_c + alpha) / (k + C alpha)`` over the last axis."""
    k = np.asarray(k, dtype=float)
    return (counts + alpha) / (k[..., None] + C * alpha)


def loo_class_losses(X: np.ndarray, y: np.ndarray, C: int, alpha: float = ALPHA) -> np.ndarray:
    """Summed LOO Z, Q, L (3 x (n-1)) for k = 1 .. n-1."""
    n = len(y)
    p = n - 1
    onehot = np.eye(C)[y]
    ks = np.arange(1, n)[None, :]
    chunk = max(1, _CHUNK_ENTRIES // max(p * C, 1))
    total = np.zeros((3, p))
    for start in range(0, n, chunk):
        rows = np.arange(start, min(n, start + chunk))
        D = sq_distances(X[rows], X)
        D[np.arange(len(rows)), rows] = np.inf  # leave the case itself out: it sorts last
        nb = Neighbours(D, y.astype(float), keep=p)
        k = np.broadcast_to(ks, (len(rows), p))
        P = smoothed(nb.class_counts(onehot, k), k, C, alpha)
        out = class_losses(y[rows], P)
        total += np.vstack([out["Z"].sum(0), out["Q"].sum(0), out["L"].sum(0)])
    return total


class KnnClassCv(Classifier):
    """knn-class-cv-1 (see the module docstring).

    Parameters
    ----------
    alpha : float
        The add-alpha smoothing of the class counts (1/2: Krichevsky & Trofimov).

    Attributes
    ----------
    n_classes_ : int
        The number of classes C.
    X_ : ndarray of shape (n, m)
        The training inputs.
    y_ : ndarray of shape (n,)
        The training classes, codes 0 .. C-1.
    k_ : dict of str to int
        The neighbour count serving each of Z, Q and L.
    """

    def __init__(self, alpha: float = ALPHA):
        self.alpha = alpha

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        if len(y) < 2:
            raise ValueError("knn-class-cv-1 needs at least 2 training cases")
        self.n_classes_ = self._classes(y, ctx)
        self.X_, self.y_ = X, np.asarray(y)
        loo = loo_class_losses(X, self.y_, self.n_classes_, self.alpha)
        self.k_ = {loss: int(np.argmin(row)) + 1 for loss, row in zip("ZQL", loo, strict=True)}
        ctx.info.update(k_Z=self.k_["Z"], k_Q=self.k_["Q"], k_L=self.k_["L"])

    def predict(self, X: np.ndarray) -> Prediction:
        nb = Neighbours(sq_distances(X, self.X_), self.y_.astype(float))
        onehot = np.eye(self.n_classes_)[self.y_]
        P = {
            loss: smoothed(nb.class_counts(onehot, k)[:, 0], k, self.n_classes_, self.alpha)
            for loss, k in self.k_.items()
        }
        return Prediction.of_probs(P["L"], by_loss={"Z": P["Z"], "Q": P["Q"]})


KnnClassCv1 = KnnClassCv  # the plugin name of method YAMLs written before the rename
