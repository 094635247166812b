"""The knot search: every examined parent and eligible variable at once.

For a parent ``b`` and a variable ``x``, the candidate pair adds the linear term
``L = b (x - min x)`` and, at a knot ``t``, the hinge ``H_t = b (x - t)_+``. MARS 3.6
(Friedman 1991 §3.9, ``marsgo``) scores every allowed knot in one downward sweep with
running sums; here the same sufficient statistics are suffix sums over each variable's
sorted support, taken at the candidate knots only:

    S0 = sum b,  S1 = sum b x,  T0 = sum b^2,  T1 = sum b^2 x,  T2 = sum b^2 x^2,
    U0 = sum b y,  U1 = sum b x y,  V0_k = sum b Q_k,  V1_k = sum b x Q_k

over the cases with ``x >= t`` (y centred, Q the centred orthonormal basis). Then
``sum H = S1 - t S0``, ``sum H^2 = T2 - 2t T1 + t^2 T0``, ``H.y = U1 - t U0`` and
``H.Q_k = V1_k - t V0_k``: each candidate costs O(1) once the sums exist.

Gram-Schmidt never changes earlier columns of Q, so for each (parent, variable) row the
table keeps, per candidate knot, ``A = sum_k (H.Q_k)(Q_k.y)``, ``B = sum_k (H.Q_k)^2``
and ``C = sum_k (H.Q_k)(Q_k.L)`` and adds only the terms of columns added since the row
was last examined. Rows of all parents live in one table, so an iteration's search is
one sparse-times-dense product (block sums between consecutive knots) and a handful of
array operations, whatever the number of parents.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps

from .spans import Spans, knot_positions

#: relative residual sum of squares below which a candidate counts as collinear
COLLINEAR = 1e-4
#: the (row, knot) tables of :class:`KnotSearch`, stacked in this order
TAB = ("t", "dv", "hy", "hL", "A", "B", "C")


@dataclass(frozen=True)
class SortedInputs:
    """Per-fit sort of the standardized inputs (n, p): ``order[v]`` sorts input ``v``,
    ``values[v]`` are its sorted values, ``XT`` is ``X.T`` (contiguous)."""

    order: np.ndarray
    values: np.ndarray
    XT: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> SortedInputs:
        XT = np.ascontiguousarray(X.T)
        order = np.argsort(XT, axis=1)  # the order within ties never matters
        return cls(order, np.take_along_axis(XT, order, axis=1), XT)


@dataclass(frozen=True)
class ParentRows:
    """The table rows of one parent: ``first + i`` is variable ``variables[i]``."""

    first: int
    variables: np.ndarray
    n_support: int
    spans: Spans

    def rows(self, var: int) -> np.ndarray:
        """Rows to search: all variables (``var < 0``) or one."""
        if var < 0:
            return np.arange(self.first, self.first + len(self.variables))
        return np.array([self.first + int(np.searchsorted(self.variables, var))])


@dataclass(frozen=True)
class Candidates:
    """The best candidate of each searched row.

    ``rss_linear``: RSS after adding L (the current RSS where L is collinear);
    ``linear_ok``: L was not collinear; ``rss_pair``: RSS after L (if not collinear)
    and the best hinge, NaN when no knot qualified; ``knot``: that hinge's knot.
    """

    variables: np.ndarray
    linear_ok: np.ndarray
    rss_linear: np.ndarray
    rss_pair: np.ndarray
    knot: np.ndarray
    xmin: np.ndarray


class KnotSearch:
    """Sufficient statistics of every (parent, variable) row examined so far.

    Parameters
    ----------
    xs : SortedInputs
        The standardized training inputs, sorted.
    xmin : (p,) array
        Minimum of each input over all training cases.
    yc : (n,) array
        Centred targets.
    max_rows : int
        Capacity: at most (nk + 1) parents times p variables.
    """

    def __init__(self, xs: SortedInputs, xmin: np.ndarray, yc: np.ndarray, max_rows: int):
        self.xs, self.xmin, self.yc = xs, xmin, yc
        n = len(yc)
        self.n = n
        self.rows = 0
        self.K = 0
        R = max_rows
        self.var = np.empty(R, dtype=np.intp)
        self.L = np.empty((R, n))  # L on all cases (zero off the parent's support)
        self.L_ss = np.empty(R)  # centred sum of squares of L
        self.L_y = np.empty(R)
        self.L_proj_ss = np.empty(R)  # accumulated sum_k (L.Q_k)^2
        self.L_proj_y = np.empty(R)  # accumulated sum_k (L.Q_k)(Q_k.y)
        self.done = np.empty(R, dtype=np.intp)  # basis columns accumulated
        self._knot_tables(R, 0)
        # block structure: data of block (row r, knot c) at [ptr[r, c], ptr[r, c + 1])
        self._idx = np.zeros(0, dtype=np.int32)
        self._data = np.zeros((2, 0))  # rows: b, b x
        self._nnz = 0
        self._Z = np.column_stack([np.ones(n), np.ones(n), yc])  # [1, parent, y]

    def _knot_tables(self, R: int, K: int) -> None:
        """(Re)allocate the (row, knot) tables with K columns, keeping what exists."""
        old = {n: getattr(self, n) for n in ("tab", "admissible", "ptr") if hasattr(self, n)}
        # rows are initialised when their parent is added. tab[TAB.index(name)] holds
        # the knot t, the centred SS of H (dv), H.y (hy), H.L (hL) and the accumulated
        # A, B, C of every (row, knot)
        self.tab = np.empty((len(TAB), R, K))
        self.admissible = np.empty((R, K), dtype=bool)
        self.ptr = np.empty((R, K + 1), dtype=np.int64)
        r = self.rows
        for name, a in old.items():
            new = getattr(self, name)
            k = a.shape[-1]
            new[..., :r, :k] = a[..., :r, :]
            # beyond a row's knots: empty blocks (ending where the row ends), no candidates
            new[..., :r, k:] = a[..., :r, -1:] if name == "ptr" else 0
        self.K = K

    # ---------------------------------------------------------------- new parents
    def add_parent(
        self, b: np.ndarray, variables: np.ndarray, sp: Spans, n_support: int
    ) -> ParentRows:
        """Append the rows of parent ``b`` (n,), positive on ``n_support`` cases, for the
        eligible ``variables``."""
        xs, n, P, m = self.xs, self.n, len(variables), n_support
        desc = xs.order[variables, ::-1]  # case indices, x descending
        if m == n:
            xd = xs.values[variables, ::-1]
        else:
            keep = b[desc] > 0
            desc = desc[keep].reshape(P, m)
            xd = xs.values[variables, ::-1][keep].reshape(P, m)
        q = knot_positions(xd[:, ::-1], sp)  # ascending positions, highest first
        K = q.shape[1]
        if K > self.K:
            self._knot_tables(len(self.var), K)
        valid = q >= 0
        j = np.where(valid, m - 1 - q, 0)  # the same positions in descending order
        t = np.take_along_axis(xd, j, axis=1)
        rows = slice(self.rows, self.rows + P)
        # blocks between consecutive knots, top first: block c holds the descending
        # positions (j_{c-1}, j_c]; a row's data ends at its lowest knot
        last = np.where(valid, j, -1).max(axis=1, initial=-1)
        ends = np.where(valid, j, last[:, None]) + 1  # (P, K) block ends per row
        take = np.arange(m)[None, :] < (last + 1)[:, None]
        idx = desc[take]
        nnz = len(idx)
        bk = b[idx]
        xk = xd[take]
        bxk = bk * xk
        local = np.concatenate([[0], np.cumsum(last + 1)[:-1]])  # row starts in idx
        ptr = self.ptr[rows]
        ptr[:, 0] = self._nnz + local
        ptr[:, 1 : K + 1] = (self._nnz + local)[:, None] + ends
        ptr[:, K + 1 :] = ptr[:, K : K + 1]
        self._append(idx, bk, bxk)
        # suffix sums over x >= t: block sums (one sparse product) accumulated downwards
        starts = local[:, None] + np.concatenate([np.zeros((P, 1), np.intp), ends], axis=1)[:, :K]
        indptr = np.concatenate([starts.ravel(), [nnz]]).astype(np.int32)
        # rows [b; b x; b x^2] times columns [1, b, y]: every sum in one product
        Z = self._Z
        Z[:, 1] = b
        M = sps.csr_matrix(
            (
                np.concatenate([bk, bxk, bxk * xk]),
                np.tile(self._idx[self._nnz - nnz : self._nnz], 3),
                np.concatenate([indptr[:-1], indptr[:-1] + nnz, indptr + 2 * nnz]),
            ),
            shape=(3 * P * K, n),
        )
        sums = np.cumsum((M @ Z).reshape(3, P, K, 3), axis=2)
        S0, T0, U0 = sums[0, ..., 0], sums[0, ..., 1], sums[0, ..., 2]
        S1, T1, U1 = sums[1, ..., 0], sums[1, ..., 1], sums[1, ..., 2]
        T2 = sums[2, ..., 1]
        # the linear candidates L_v = b (x_v - min x_v)
        xm = self.xmin[variables]
        L = (xs.XT[variables] - xm[:, None]) * b
        L_sum = L.sum(axis=1)
        self.var[rows] = variables
        self.L[rows] = L
        self.L_ss[rows] = np.einsum("ij,ij->i", L, L) - L_sum**2 / n
        self.L_y[rows] = L @ self.yc
        self.L_proj_ss[rows] = self.L_proj_y[rows] = self.done[rows] = 0
        # what does not depend on the basis: the centred SS of H, H.y, H.L
        xm = xm[:, None]
        sum_h = S1 - t * S0
        dv = T2 - 2 * t * T1 + t * t * T0 - sum_h**2 / n
        tab = self.tab[:, rows]
        tab[...] = 0.0
        tab[0, :, :K] = t
        tab[1, :, :K] = dv
        tab[2, :, :K] = U1 - t * U0
        tab[3, :, :K] = T2 - (t + xm) * T1 + t * xm * T0 - sum_h * L_sum[:, None] / n
        self.admissible[rows] = False
        self.admissible[rows, :K] = valid & (dv > 0)
        first = self.rows
        self.rows += P
        return ParentRows(first, np.asarray(variables), m, sp)

    def _append(self, idx: np.ndarray, b: np.ndarray, bx: np.ndarray) -> None:
        """Append block data (case indices, b, b x) to the growing buffers."""
        nnz = len(idx)
        if self._nnz + nnz > len(self._idx):
            cap = max(2 * len(self._idx), self._nnz + nnz)
            idx_, data = np.empty(cap, dtype=np.int32), np.empty((2, cap))
            idx_[: self._nnz], data[:, : self._nnz] = (
                self._idx[: self._nnz],
                self._data[:, : self._nnz],
            )
            self._idx, self._data = idx_, data
        s = slice(self._nnz, self._nnz + nnz)
        self._idx[s], self._data[0, s], self._data[1, s] = idx, b, bx
        self._nnz += nnz

    # ----------------------------------------------------------------- catching up
    def _catch_up(self, sel: np.ndarray, Q: np.ndarray, dy: np.ndarray, kr: int) -> None:
        """Add the projections on the basis columns the rows ``sel`` have not seen, one
        group of rows per number of columns already seen."""
        done = self.done[sel]
        for k0 in np.unique(done[done < kr]).tolist():
            rows = sel[done == k0]
            QS = Q[:, k0:kr]
            dyn = dy[k0:kr]
            proj = self.L[rows] @ QS  # (R, nn): L_v . Q_k
            self.L_proj_ss[rows] += np.einsum("rk,rk->r", proj, proj)
            self.L_proj_y[rows] += proj @ dyn
            if self.K == 0:
                continue
            V0, V1 = self._block_suffix(rows, QS)
            V1 -= self.tab[0, rows][:, :, None] * V0  # H . Q_k
            self.tab[4:, rows] += np.stack(
                [V1 @ dyn, np.einsum("rkc,rkc->rk", V1, V1), np.einsum("rkc,rc->rk", V1, proj)]
            )
        self.done[sel] = kr

    def _block_suffix(self, sel: np.ndarray, QS: np.ndarray):
        """Suffix sums of b Q and b x Q at every knot of the rows ``sel``."""
        R, K = len(sel), self.K
        ptr = self.ptr[sel]
        lengths = np.diff(ptr, axis=1).ravel()
        first = ptr[:, 0]
        total = int(ptr[:, -1].sum() - first.sum())
        # gather the rows' data: consecutive ranges [ptr[r, 0], ptr[r, K])
        span = ptr[:, -1] - first
        offsets = np.repeat(first - np.concatenate([[0], np.cumsum(span)[:-1]]), span)
        g = np.arange(total) + offsets
        indptr = np.zeros(R * K + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        M = sps.csr_matrix(
            (
                self._data[:, g].ravel(),
                np.tile(self._idx[g], 2),
                np.concatenate([indptr, indptr[1:] + total]).astype(np.int32),
            ),
            shape=(2 * R * K, self.n),
        )
        BQ = (M @ QS).reshape(2, R, K, QS.shape[1])
        np.cumsum(BQ, axis=2, out=BQ)
        return BQ[0], BQ[1]

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, sel: np.ndarray, Q, dy, kr: int, rss: float) -> Candidates:
        """Score the linear candidate and every allowed knot of each row in ``sel``.

        ``Q[:, :kr]`` is the current centred orthonormal basis and ``dy = Q^T y``.
        """
        self._catch_up(sel, Q, dy, kr)
        L_ss = self.L_ss[sel]
        resid = L_ss - self.L_proj_ss[sel]
        lin_ok = (L_ss > 0) & (resid >= COLLINEAR * L_ss)
        inv = np.where(lin_ok, 1.0 / np.sqrt(np.where(lin_ok, resid, 1.0)), 0.0)
        qy = (self.L_y[sel] - self.L_proj_y[sel]) * inv
        rss_lin = rss - qy * qy
        var = self.var[sel]
        if self.K == 0:  # no parent so far has an admissible knot
            nan = np.full(len(sel), np.nan)
            return Candidates(var, lin_ok, rss_lin, nan, nan, self.xmin[var])
        # H against the basis and, if L enters first, against L's orthonormal column
        t, dv, hy, hL, A, B, C = self.tab[:, sel]
        hq = (hL - C) * inv[:, None]
        hr = hy - A - hq * qy[:, None]
        hh = dv - B - hq * hq
        ok = self.admissible[sel] & (hh > COLLINEAR * dv)
        gain = np.where(ok, hr * hr / np.where(ok, hh, 1.0), -np.inf)
        best = np.argmax(gain, axis=1)  # first maximum: the highest knot among ties
        at = np.arange(len(sel))
        g = gain[at, best]
        found = g > -np.inf
        rss_pair = np.where(found, rss_lin - g, np.nan)
        knot = np.where(found, t[at, best], np.nan)
        return Candidates(var, lin_ok, rss_lin, rss_pair, knot, self.xmin[var])
