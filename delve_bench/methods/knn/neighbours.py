"""The neighbour statistics shared by knn-cv-1 (:mod:`.cv`) and knn-class-cv-1
(:mod:`delve_bench.methods.classify.knn`): sorted neighbours with their tie blocks, the
tie-adjusted sums of every k at once, and the medians of every prefix (Rasmussen 1996
§3.4; docs/methods/linear-knn.md).

Cases whose squared distance is within ``tol = 1e-6`` of the k-th neighbour's count as tied
with it: the tied cases at or before position k are replaced by the mean target of *all*
cases tied with the k-th (we take the true mean, not the C code's divide-by-(count-1)).
Everything is vectorised over cases and over k: prefix sums give the tie-adjusted means
and variances of every k at once, and the medians of all prefixes come from deleting
cases one by one from a per-row linked list in value order (O(1) numpy steps per k).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

TOL = 1e-6


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
