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
    X : (n, p) array
        Standardized inputs.
    order : (p, n) int array
        ``order[v]`` sorts ``X[:, v]`` ascending.
    xmin : (p,) array
        Minimum of each input over all training cases.
    yc : (n,) array
        Centred targets.
    variables : (P,) int array
        The variables eligible for this parent.
    sp : Spans
        The parent's minimum and end spans.
    """

    def __init__(self, b, X, order, xmin, yc, variables, sp: Spans):
        n = len(b)
        S = np.flatnonzero(b > 0)
        m, P = len(S), len(variables)
        self.n, self.support, self.variables, self.spans = n, S, variables, sp
        self.row = {int(v): r for r, v in enumerate(variables)}
        bS, yS = b[S], yc[S]
        pos = np.full(n, -1, dtype=np.intp)
        pos[S] = np.arange(m)
        ordv = order[variables]
        o = pos[ordv[b[ordv] > 0].reshape(P, m)]  # (P, m): support positions by x
        XS = X[np.ix_(S, variables)]
        xs = np.take_along_axis(XS.T, o, axis=1)
        q = knot_positions(xs, sp)
        K = q.shape[1]
        self.K = K
        self.valid = q >= 0
        self.t = np.take_along_axis(xs, np.maximum(q, 0), axis=1)
        # blocks between consecutive candidates, top first: row r*K + c holds the cases
        # at sorted positions [q_c, q_{c-1}) with q_{-1} = m
        upper = np.concatenate([np.full((P, 1), m), q[:, :-1]], axis=1)
        lengths = np.where(self.valid, upper - q, 0)
        lowest = np.where(self.valid, q, m).min(axis=1, initial=m)
        keep = np.arange(m)[None, :] < (m - lowest)[:, None]
        idx = o[:, ::-1][keep]
        xk = xs[:, ::-1][keep]
        bk = bS[idx]
        self.indptr = np.concatenate([[0], np.cumsum(lengths.ravel())])
        self.indices = idx
        self.data_b, self.data_bx = bk, bk * xk
        shape = (P * K, m)
        self._Mb = sps.csr_matrix((self.data_b, idx, self.indptr), shape=shape)
        self._Mbx = sps.csr_matrix((self.data_bx, idx, self.indptr), shape=shape)
        Mbxx = sps.csr_matrix((self.data_bx * xk, idx, self.indptr), shape=shape)
        Z = np.column_stack([np.ones(m), bS, yS])
        Rb = self._suffix(self._Mb @ Z, P)
        Rx = self._suffix(self._Mbx @ Z, P)
        self.S0, self.T0, self.U0 = Rb[..., 0], Rb[..., 1], Rb[..., 2]
        self.S1, self.T1, self.U1 = Rx[..., 0], Rx[..., 1], Rx[..., 2]
        self.T2 = self._suffix((Mbxx @ bS)[:, None], P)[..., 0]
        # the linear candidates L_v = b (x_v - min x_v), on the support
        self.xmin = xmin[variables]
        self.L = bS[:, None] * (XS - self.xmin)
        self.L_sum = self.L.sum(axis=0)
        self.L_ss = np.einsum("ij,ij->j", self.L, self.L) - self.L_sum**2 / n
        self.L_y = self.L.T @ yS
        # accumulated projections on the basis columns seen so far
        self.L_proj_ss = np.zeros(P)
        self.L_proj_y = np.zeros(P)
        self.lin_done = np.zeros(P, dtype=np.intp)
        self.A = np.zeros((P, K))
        self.B = np.zeros((P, K))
        self.C = np.zeros((P, K))
        self.knot_done = np.zeros(P, dtype=np.intp)

    def _suffix(self, block_sums: np.ndarray, P: int) -> np.ndarray:
        return np.cumsum(block_sums.reshape(P, self.K, block_sums.shape[1]), axis=1)

    @property
    def n_support(self) -> int:
        return len(self.support)

    def rows(self, var: int) -> np.ndarray:
        """Rows to search: all variables (``var < 0``) or one."""
        if var < 0:
            return np.arange(len(self.variables))
        return np.array([self.row[var]])

    # ----------------------------------------------------------------- catching up
    def _new_columns(self, rows, Q, kr, knots: bool):
        k0 = int(self.lin_done[rows].min())
        if knots:
            k0 = min(k0, int(self.knot_done[rows].min()))
        return k0, Q[self.support, k0:kr]

    def _catch_up(self, rows, Q, dy, kr, knots: bool) -> None:
        k0, QS = self._new_columns(rows, Q, kr, knots)
        if QS.shape[1] == 0:
            return
        cols = np.arange(k0, kr)
        dyn = dy[k0:kr]
        proj = self.L[:, rows].T @ QS  # (R, nn): L_v . Q_k
        lin_new = cols[None, :] >= self.lin_done[rows][:, None]
        pl = proj * lin_new
        self.L_proj_ss[rows] += np.einsum("rk,rk->r", pl, pl)
        self.L_proj_y[rows] += pl @ dyn
        self.lin_done[rows] = kr
        if not knots or self.K == 0:
            return
        V0, V1 = self._block_suffix(rows, QS)
        knot_new = cols[None, :] >= self.knot_done[rows][:, None]
        HQ = (V1 - self.t[rows][:, :, None] * V0) * knot_new[:, None, :]
        self.A[rows] += HQ @ dyn
        self.B[rows] += np.einsum("rkc,rkc->rk", HQ, HQ)
        self.C[rows] += np.einsum("rkc,rc->rk", HQ, proj * knot_new)
        self.knot_done[rows] = kr

    def _block_suffix(self, rows, QS):
        """Suffix sums of b Q and b x Q at the candidate knots of ``rows``."""
        P, K = len(self.variables), self.K
        if len(rows) == P:
            V0 = self._suffix(self._Mb @ QS, P)
            V1 = self._suffix(self._Mbx @ QS, P)
            return V0, V1
        V0 = np.zeros((len(rows), K, QS.shape[1]))
        V1 = np.zeros_like(V0)
        for i, r in enumerate(rows):
            kv = int(self.valid[r].sum())
            if kv == 0:
                continue
            lo, hi = self.indptr[r * K], self.indptr[r * K + kv]
            G = QS[self.indices[lo:hi]]
            starts = self.indptr[r * K : r * K + kv] - lo
            V0[i, :kv] = np.cumsum(
                np.add.reduceat(G * self.data_b[lo:hi, None], starts, axis=0), axis=0
            )
            V1[i, :kv] = np.cumsum(
                np.add.reduceat(G * self.data_bx[lo:hi, None], starts, axis=0), axis=0
            )
        return V0, V1

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, rows, Q, dy, kr: int, rss: float, knots: bool) -> Candidates:
        """Score the linear candidate and (if ``knots``) every allowed knot for each row.

        ``Q[:, :kr]`` is the current centred orthonormal basis and ``dy = Q^T y``.
        """
        self._catch_up(rows, Q, dy, kr, knots)
        n = self.n
        resid = self.L_ss[rows] - self.L_proj_ss[rows]
        lin_ok = (self.L_ss[rows] > 0) & (resid >= COLLINEAR * self.L_ss[rows])
        safe = np.where(lin_ok, resid, 1.0)
        qy = np.where(lin_ok, (self.L_y[rows] - self.L_proj_y[rows]) / np.sqrt(safe), 0.0)
        rss_lin = rss - qy**2
        rss_pair = np.full(len(rows), np.nan)
        knot = np.full(len(rows), np.nan)
        if knots and self.K:
            t = self.t[rows]
            S0, S1, T0, T1, T2 = (a[rows] for a in (self.S0, self.S1, self.T0, self.T1, self.T2))
            sum_h = S1 - t * S0
            dv = T2 - 2 * t * T1 + t * t * T0 - sum_h**2 / n  # centred SS of H
            hr = self.U1[rows] - t * self.U0[rows] - self.A[rows]
            hh = dv - self.B[rows]
            # with L in the basis: project H on its orthonormalised column too
            xm = self.xmin[rows][:, None]
            hL = T2 - (t + xm) * T1 + t * xm * T0 - sum_h * self.L_sum[rows][:, None] / n
            hq = np.where(lin_ok[:, None], (hL - self.C[rows]) / np.sqrt(safe)[:, None], 0.0)
            hr = hr - hq * qy[:, None]
            hh = hh - hq**2
            ok = self.valid[rows] & (dv > 0) & (hh > COLLINEAR * dv)
            gain = np.where(ok, hr**2 / np.where(ok, hh, 1.0), -np.inf)
            best = np.argmax(gain, axis=1)  # first maximum: the highest knot among ties
            g = gain[np.arange(len(rows)), best]
            found = np.isfinite(g)
            rss_pair = np.where(found, rss_lin - g, np.nan)
            knot = np.where(found, t[np.arange(len(rows)), best], np.nan)
        return Candidates(self.variables[rows], lin_ok, rss_lin, rss_pair, knot)
