"""knn-cv-1: k nearest neighbours with k chosen by leave-one-out CV per loss
(Rasmussen 1996 §3.4, App. A.2; docs/methods/linear-knn.md).

* squared Euclidean distance; distances within ``tol = 1e-6`` of the k-th count as tied:
  the tied cases at or before position k are replaced by the mean target of *all* cases
  tied with the k-th (we take the true mean, not the C code's
  divide-by-(count-1));
* ``vs2`` (sigma-squared regulariser) = mean squared difference between each training
  target and its tie-adjusted leave-one-out nearest neighbour;
* k_S, k_A, k_L minimise the LOO squared error, absolute error (median of the
  neighbours) and Gaussian negative log density with variance
  ``v = (sum (y - ybar)^2 + vs2) / k`` (eq. 3.11), over k = 1..n-1; ties go to the
  smallest k.

Everything is vectorised over cases and over k: prefix sums give the tie-adjusted means
and variances of every k at once, and the medians of all prefixes come from deleting
cases one by one from a per-row linked list in value order (O(1) numpy steps per k).
Exact ties are rare; the medians of tied (case, k) pairs are recomputed directly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..numerics.distance import sq_distances
from .base import FitContext, Gaussian, Method, Prediction

TOL = 1e-6
_CHUNK_ENTRIES = 1 << 21  # rows per LOO chunk = this / n


def tie_bounds(ds: np.ndarray, tol: float = TOL) -> tuple[np.ndarray, np.ndarray]:
    """For rows of sorted distances, ``lo[c, i]`` = first j with ds[c,j] > ds[c,i] - tol and
    ``hi[c, i]`` = first j with ds[c,j] >= ds[c,i] + tol: the block of cases tied with i.

    One searchsorted over all rows at once: complex numbers sort lexicographically, so
    ``row + 1j*distance`` is a sorted key without any loss of precision.
    """
    q, p = ds.shape
    rows = np.arange(q, dtype=np.float64)[:, None]
    keys = (rows + 1j * ds).ravel()
    base = (np.arange(q) * p)[:, None]
    lo = np.searchsorted(keys, (rows + 1j * (ds - tol)).ravel(), side="right").reshape(q, p) - base
    hi = np.searchsorted(keys, (rows + 1j * (ds + tol)).ravel(), side="left").reshape(q, p) - base
    return lo, hi


class TieStats(NamedTuple):
    """Tie-adjusted statistics of each query's k nearest neighbours, arrays of shape
    (queries, ks): the tied cases at or before position k count with the tie mean."""

    total: np.ndarray  # sum of the k adjusted targets
    sumsq: np.ndarray  # sum of their squares
    lo: np.ndarray  # first position of the block of cases tied with the k-th
    tie_mean: np.ndarray  # mean target of that block
    tied: np.ndarray  # bool: the block has more than one case


class Neighbours:
    """Targets of each query's neighbours sorted by distance, with tie information and
    prefix sums, so the tie-adjusted statistics of any k are O(1) per query."""

    def __init__(self, D: np.ndarray, y: np.ndarray, keep: int | None = None):
        order = np.argsort(D, axis=1, kind="stable")[:, :keep]  # keep=n-1 drops the left-out case
        self.order = order  # neighbour indices, nearest first
        self.ds = np.take_along_axis(D, order, 1)
        self.ys = y[order]
        self.lo, self.hi = tie_bounds(self.ds)
        zero = np.zeros((len(D), 1))
        self.S1 = np.hstack([zero, np.cumsum(self.ys, 1)])
        self.S2 = np.hstack([zero, np.cumsum(self.ys**2, 1)])

    def stats(self, k: np.ndarray | int) -> TieStats:
        """Tie-adjusted sums of the k nearest neighbours' targets.

        ``k`` is an int (all rows) or a (rows, ks) array of neighbour counts; every field
        of the result has shape (rows, ks), ks = 1 for an int.
        """
        q, p = self.ys.shape
        k = np.asarray(k) if np.ndim(k) else np.full((q, 1), k)
        lo = np.take_along_axis(self.lo, k - 1, 1)
        hi = np.take_along_axis(self.hi, k - 1, 1)
        s1_lo, s1_hi = np.take_along_axis(self.S1, lo, 1), np.take_along_axis(self.S1, hi, 1)
        ytie = (s1_hi - s1_lo) / (hi - lo)
        m = k - lo  # tied cases at or before k: each replaced by the tie mean
        total = s1_lo + m * ytie
        sumsq = np.take_along_axis(self.S2, lo, 1) + m * ytie**2
        return TieStats(total=total, sumsq=sumsq, lo=lo, tie_mean=ytie, tied=(hi - lo) > 1)

    def class_counts(self, onehot: np.ndarray, k: np.ndarray | int) -> np.ndarray:
        """Tie-adjusted class counts among the k nearest: (rows, ks, C) for a (rows, ks)
        array of k (or an int), ``onehot`` (n, C) the training classes. Cases tied with
        the k-th contribute the tie block's class frequencies, as the regression
        statistics use the tie mean."""
        q, p = self.ys.shape
        k = np.asarray(k) if np.ndim(k) else np.full((q, 1), k)
        Y = onehot[self.order]  # (q, p, C), nearest first
        S = np.concatenate([np.zeros((q, 1, Y.shape[2])), np.cumsum(Y, axis=1)], axis=1)
        lo = np.take_along_axis(self.lo, k - 1, 1)
        hi = np.take_along_axis(self.hi, k - 1, 1)
        s_lo = np.take_along_axis(S, lo[:, :, None], 1)
        s_hi = np.take_along_axis(S, hi[:, :, None], 1)
        return s_lo + (k - lo)[:, :, None] * (s_hi - s_lo) / (hi - lo)[:, :, None]

    def adjusted_median(
        self, rows: np.ndarray, k: int, lo: np.ndarray, ytie: np.ndarray
    ) -> np.ndarray:
        """Median of the tie-adjusted k neighbours of ``rows`` (positions >= lo -> ytie)."""
        nb = self.ys[rows, :k].copy()
        replace = np.arange(k)[None, :] >= lo[:, None]
        nb = np.where(replace, ytie[:, None], nb)
        return np.median(nb, axis=1)


def prefix_medians(ys: np.ndarray) -> np.ndarray:
    """``M[c, k-1]`` = median of ``ys[c, :k]`` for every row c and every k = 1..p.

    Start from all p values in a doubly linked list in value order with a pointer at the
    lower median, then delete values from the far end one k at a time; each deletion moves
    the pointer by at most one link. Vectorised over rows.
    """
    q, p = ys.shape
    rows = np.arange(q)
    vorder = np.argsort(ys, axis=1, kind="stable")
    vals = np.full((q, p + 2), np.nan)
    vals[:, 1:-1] = np.take_along_axis(ys, vorder, 1)
    rank = np.empty_like(vorder)
    np.put_along_axis(rank, vorder, np.broadcast_to(np.arange(1, p + 1), (q, p)).copy(), 1)
    nxt = np.broadcast_to(np.arange(1, p + 3), (q, p + 2)).copy()
    prv = np.broadcast_to(np.arange(-1, p + 1), (q, p + 2)).copy()
    lo = np.full(q, (p - 1) // 2 + 1)
    M = np.empty((q, p))

    def median(k: int) -> np.ndarray:
        if k % 2:
            return vals[rows, lo]
        return 0.5 * (vals[rows, lo] + vals[rows, nxt[rows, lo]])

    M[:, p - 1] = median(p)
    for k in range(p, 1, -1):  # delete the k-th nearest; size k -> k-1
        x = rank[:, k - 1]
        lo = np.where(x < lo, lo, prv[rows, lo]) if k % 2 else np.where(x <= lo, nxt[rows, lo], lo)
        px, nx = prv[rows, x], nxt[rows, x]
        nxt[rows, px] = nx
        prv[rows, nx] = px
        M[:, k - 2] = median(k - 1)
    return M


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


class KnnCv1(Method):
    """The thesis' knn-cv-1."""

    losses = ("S", "A", "L")

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        if len(y) < 2:
            raise ValueError("knn-cv-1 needs at least 2 training cases")
        self.X, self.y = X, y
        loo, self.vs2 = loo_losses(X, y)
        self.k_S, self.k_A, self.k_L = (
            int(np.argmin(row)) + 1 for row in loo
        )  # first min: smallest k
        ctx.info.update(k_S=self.k_S, k_A=self.k_A, k_L=self.k_L, vs2_encoded=self.vs2)

    def predict(self, X: np.ndarray) -> Prediction:
        nb = Neighbours(sq_distances(X, self.X), self.y)
        rows = np.arange(len(X))
        mean = nb.stats(self.k_S).total[:, 0] / self.k_S
        a = nb.stats(self.k_A)
        median = nb.adjusted_median(rows, self.k_A, a.lo[:, 0], a.tie_mean[:, 0])
        sl = nb.stats(self.k_L)
        m_L = sl.total[:, 0] / self.k_L
        v = (self.vs2 + sl.sumsq[:, 0]) / self.k_L - m_L**2
        return Prediction(mean=mean, median=median, density=Gaussian(m_L, v))
