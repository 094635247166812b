"""The knot search of one parent over all its eligible variables at once.

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

The sums over the basis only change by the columns added since the parent was last
examined (Gram-Schmidt never changes earlier columns), so a :class:`ParentSearch` keeps,
per variable and candidate knot, ``A = sum_k (H.Q_k)(Q_k.y)``, ``B = sum_k (H.Q_k)^2``
and ``C = sum_k (H.Q_k)(Q_k.L)`` and adds only the new columns' terms. The block sums
between consecutive candidate knots are one sparse-times-dense product.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sps

from .spans import Spans, knot_positions

#: relative residual sum of squares below which a candidate counts as collinear
COLLINEAR = 1e-4


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
class Candidates:
    """The best candidate of each searched variable of one parent.

    ``rss_linear``: RSS after adding L (the current RSS where L is collinear);
    ``linear_ok``: L was not collinear; ``rss_pair``: RSS after L (if not collinear)
    and the best hinge, NaN when no knot qualified; ``knot``: that hinge's knot.
    """

    variables: np.ndarray
    linear_ok: np.ndarray
    rss_linear: np.ndarray
    rss_pair: np.ndarray
    knot: np.ndarray


class ParentSearch:
    """Sufficient statistics of one parent for all its eligible variables.

    Parameters
    ----------
    b : (n,) array
        The parent basis function on the training cases (ones for the constant).
    xs : SortedInputs
        The standardized inputs, sorted.
    xmin : (p,) array
        Minimum of each input over all training cases.
    yc : (n,) array
        Centred targets.
    variables : (P,) int array
        The variables eligible for this parent.
    sp : Spans
        The parent's minimum and end spans.
    """

    def __init__(self, b, xs: SortedInputs, xmin, yc, variables, sp: Spans):
        n = len(b)
        P = len(variables)
        desc = xs.order[variables, ::-1]  # case indices, x descending
        if np.all(b > 0):
            m = n
            xd = xs.values[variables, ::-1]
        else:
            keep = b[desc] > 0
            m = int(np.count_nonzero(keep[0]))
            desc = desc[keep].reshape(P, m)
            xd = xs.values[variables, ::-1][keep].reshape(P, m)
        self.n, self.n_support, self.variables, self.spans = n, m, variables, sp
        self.row = {int(v): r for r, v in enumerate(variables)}
        q = knot_positions(xd[:, ::-1], sp)  # ascending positions, highest first
        K = q.shape[1]
        self.K = K
        valid = q >= 0
        j = np.where(valid, m - 1 - q, 0)  # the same positions in descending order
        self.t = np.take_along_axis(xd, j, axis=1)
        t = self.t
        bd = b[desc]
        bx = bd * xd
        yd = yc[desc]
        # suffix sums over x >= t are prefix sums in descending order
        W = np.stack([bd, bd * bd, bd * yd, bx, bx * bd, bx * yd, bx * bx])
        np.cumsum(W, axis=2, out=W)
        S0, T0, U0, S1, T1, U1, T2 = np.take_along_axis(W, np.broadcast_to(j, (7, P, K)), axis=2)
        # blocks between consecutive candidates, top first: row r*K + c holds descending
        # positions (j_{c-1}, j_c]; rows of invalid (padding) candidates are empty
        last = np.where(valid, j, -1).max(axis=1, initial=-1)
        lengths = np.diff(
            np.concatenate([np.full((P, 1), -1), np.where(valid, j, last[:, None])], axis=1), axis=1
        ).ravel()
        take = np.arange(m)[None, :] <= last[:, None]
        indptr = np.zeros(P * K + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        nnz = int(indptr[-1])
        self._indptr = indptr
        self._idx = desc[take].astype(np.int32)
        self._data_b, self._data_bx = bd[take], bx[take]
        # one sparse matrix for both weightings: rows [b blocks; b x blocks]
        self._M = sps.csr_matrix(
            (
                np.concatenate([self._data_b, self._data_bx]),
                np.concatenate([self._idx, self._idx]),
                np.concatenate([indptr, indptr[1:] + nnz]).astype(np.int32),
            ),
            shape=(2 * P * K, n),
        )
        self._row_M: dict[int, sps.csr_matrix] = {}
        # the linear candidates L_v = b (x_v - min x_v), zero off the support: (P, n)
        xm = xmin[variables]
        self.xmin = xm
        self.L = (xs.XT[variables] - xm[:, None]) * b
        L_sum = self.L.sum(axis=1)
        self.L_ss = np.einsum("ij,ij->i", self.L, self.L) - L_sum**2 / n
        self.L_y = self.L @ yc
        # what does not depend on the basis: sum H, the centred SS of H, H.y, H.L
        xm = xm[:, None]
        sum_h = S1 - t * S0
        self.dv = T2 - 2 * t * T1 + t * t * T0 - sum_h**2 / n
        self.hy = U1 - t * U0
        self.hL = T2 - (t + xm) * T1 + t * xm * T0 - sum_h * L_sum[:, None] / n
        self.admissible = valid & (self.dv > 0)
        # accumulated projections on the basis columns seen so far
        self.L_proj_ss = np.zeros(P)
        self.L_proj_y = np.zeros(P)
        self.lin_done = np.zeros(P, dtype=np.intp)
        self.A = np.zeros((P, K))
        self.B = np.zeros((P, K))
        self.C = np.zeros((P, K))
        self.knot_done = np.zeros(P, dtype=np.intp)

    def rows(self, var: int) -> slice:
        """Rows to search: all variables (``var < 0``) or one."""
        if var < 0:
            return slice(None)
        r = self.row[var]
        return slice(r, r + 1)

    # ----------------------------------------------------------------- catching up
    def _catch_up(self, rows: slice, Q, dy, kr, knots: bool) -> None:
        """Add the projections on basis columns not yet seen by ``rows``."""
        k0 = int(self.lin_done[rows].min())
        if knots and self.K:
            k0 = min(k0, int(self.knot_done[rows].min()))
        if k0 >= kr:
            return
        QS = Q[:, k0:kr]
        cols = np.arange(k0, kr)
        dyn = dy[k0:kr]
        proj = self.L[rows] @ QS  # (R, nn): L_v . Q_k
        fresh = cols[None, :] >= self.lin_done[rows][:, None]
        pl = proj * fresh
        self.L_proj_ss[rows] += np.einsum("rk,rk->r", pl, pl)
        self.L_proj_y[rows] += pl @ dyn
        self.lin_done[rows] = kr
        if not knots or self.K == 0:
            return
        V0, V1 = self._block_suffix(rows, QS)
        fresh = (cols[None, :] >= self.knot_done[rows][:, None])[:, None, :]
        HQ = (V1 - self.t[rows][:, :, None] * V0) * fresh
        self.A[rows] += HQ @ dyn
        self.B[rows] += np.einsum("rkc,rkc->rk", HQ, HQ)
        self.C[rows] += np.einsum("rkc,rc->rk", HQ, proj)
        self.knot_done[rows] = kr

    def _block_suffix(self, rows: slice, QS):
        """Suffix sums of b Q and b x Q at the candidate knots of ``rows``."""
        P, K = len(self.variables), self.K
        if rows.start is None:
            BQ = (self._M @ QS).reshape(2, P, K, QS.shape[1])
            np.cumsum(BQ, axis=2, out=BQ)
            return BQ[0], BQ[1]
        r = rows.start
        M = self._row_M.get(r)
        if M is None:
            a, c = self._indptr[r * K], self._indptr[(r + 1) * K]
            ptr = self._indptr[r * K : (r + 1) * K + 1] - a
            M = sps.csr_matrix(
                (
                    np.concatenate([self._data_b[a:c], self._data_bx[a:c]]),
                    np.concatenate([self._idx[a:c], self._idx[a:c]]),
                    np.concatenate([ptr, ptr[1:] + (c - a)]).astype(np.int32),
                ),
                shape=(2 * K, self.n),
            )
            self._row_M[r] = M
        BQ = (M @ QS).reshape(2, 1, K, QS.shape[1])
        np.cumsum(BQ, axis=2, out=BQ)
        return BQ[0], BQ[1]

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, rows: slice, Q, dy, kr: int, rss: float, knots: bool) -> Candidates:
        """Score the linear candidate and (if ``knots``) every allowed knot for each row.

        ``Q[:, :kr]`` is the current centred orthonormal basis and ``dy = Q^T y``.
        """
        self._catch_up(rows, Q, dy, kr, knots)
        L_ss = self.L_ss[rows]
        resid = L_ss - self.L_proj_ss[rows]
        lin_ok = (L_ss > 0) & (resid >= COLLINEAR * L_ss)
        norm = np.sqrt(np.where(lin_ok, resid, 1.0))
        qy = np.where(lin_ok, (self.L_y[rows] - self.L_proj_y[rows]) / norm, 0.0)
        rss_lin = rss - qy * qy
        R = len(rss_lin)
        if not (knots and self.K):
            nan = np.full(R, np.nan)
            return Candidates(self.variables[rows], lin_ok, rss_lin, nan, nan)
        # H against the basis and, if L enters first, against L's orthonormal column
        hq = (self.hL[rows] - self.C[rows]) * np.where(lin_ok, 1.0 / norm, 0.0)[:, None]
        hr = self.hy[rows] - self.A[rows] - hq * qy[:, None]
        dv = self.dv[rows]
        hh = dv - self.B[rows] - hq * hq
        ok = self.admissible[rows] & (hh > COLLINEAR * dv)
        gain = np.where(ok, hr * hr / np.where(ok, hh, 1.0), -np.inf)
        best = np.argmax(gain, axis=1)  # first maximum: the highest knot among ties
        at = np.arange(R)
        g = gain[at, best]
        found = g > -np.inf
        rss_pair = np.where(found, rss_lin - g, np.nan)
        knot = np.where(found, self.t[rows][at, best], np.nan)
        return Candidates(self.variables[rows], lin_ok, rss_lin, rss_pair, knot)
