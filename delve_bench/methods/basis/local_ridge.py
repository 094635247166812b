"""Local ridge regression: one lambda per basis function, re-estimated by GCV sweeps.

Orr (1996) §6.3-6.4 and App. A.11; docs/methods/basis.md. The cost is
``sum_i (y_i - f(x_i))^2 + sum_j lambda_j w_j^2``; with everything else fixed, GCV as a
function of one ``lambda_j`` is ``p (a D^2 - 2 b D + c) / (alpha D - beta)^2``,
``D = lambda_j + d``, where (``P_j`` the projection matrix without basis j)

    a = y^T P_j^2 y, b = (y^T P_j^2 h_j)(y^T P_j h_j), c = (h_j^T P_j^2 h_j)(y^T P_j h_j)^2,
    alpha = trace P_j, beta = h_j^T P_j^2 h_j, d = h_j^T P_j h_j.

Its only stationary point is ``D* = (c alpha - b beta) / (b alpha - a beta)``; each
``lambda_j`` is set to the GCV minimiser over ``[0, inf]``. ``lambda_j = inf`` prunes j.

Readings of what Orr leaves open (docs/methods/basis.md, Orr's family):

* initialisation: ORR's option (a), every centre at the global-ridge lambda re-estimated
  by GCV, by default; option (b), lambda 0 on the OLS forward-selected subset (GCV, Orr's
  stopping rule, through the one selection engine :mod:`.orthogonal`) and inf elsewhere,
  on request. Every candidate is swept, so a pruned or never-selected centre can
  (re-)enter with a finite lambda. Local ridge is a post-processor:
  the radius is the one the starting model chose by its own GCV, not re-chosen by the
  GCV after the sweeps, which with p free lambdas favours near-interpolating narrow
  bases (on kin-8nm/std.256 it went to the narrowest radius, where the test error was
  more than double);
* sweeps in index order; stop when a sweep lowers GCV by a relative 1e-4 or less
  (Orr's thresh = 1e4) or after ``max_sweeps``; the model kept is the one with the lowest
  GCV after a sweep (or the start): each step lowers GCV in exact arithmetic, but on nearly
  dependent columns a sweep can raise it in floating point. GCV's sum of squares is taken
  from the residual, never from the Gram form, which cancels away all precision when the
  fit is close;
* the minimiser is found by comparing GCV at ``lambda = 0``, at ``inf`` and at the
  stationary point when it lies in ``(0, inf)``. This equals ORR's case table wherever the
  table applies, needs no ``a beta == alpha b`` test, and stays right should the table's last row
  meet ``a beta > alpha b`` (then ``D*`` is a maximum of GCV, not a minimum);
* ``P_j`` is never formed: the method keeps ``A^-1 = (H^T H + Lambda)^-1`` of the active
  (finite-lambda) set and the Gram matrix ``F^T F``; removing j is the partitioned-inverse
  downdate (valid also at ``lambda_j = 0``, where Orr's eq. A.7 fails) and re-adding it is
  Orr's eq. A.4, so each single-lambda step costs O(m^2) and a sweep O(P m^2);
* a candidate numerically in the span of the others (``d < 1e-10 h_j^T h_j``) gets
  ``lambda_j = inf``; so does, in the starting model, a column beyond the numerical rank
  of the starting columns (:func:`independent_columns`). Without that, noise-free data
  (e.g. hwang-g1/clean, where GCV takes the global ridge lambda to 1e-20) made
  ``H^T H + Lambda`` singular to working precision and the fit fail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_solve, cholesky, qr

from .orthogonal import OrthogonalSelection, run_selection
from .ridge import global_ridge
from .stopping import OrrStop

SPAN_EPS = 1e-10


@dataclass
class LocalRidgeFit:
    active: np.ndarray  # candidate indices with finite lambda, in model order
    lam: np.ndarray  # their lambdas
    weights: np.ndarray  # (H^T H + Lambda)^-1 H^T y on the active columns
    gcv: float
    gamma: float
    sweeps: int
    history: list[float]  # GCV after each sweep (index 0: the initial model)
    initial: list[int]  # the starting active set


@dataclass
class _Coeffs:
    """The five GCV coefficients of one basis function, plus ``d`` and the pieces needed
    to re-add it (``u = A_-j^-1 H_-j^T h_j``)."""

    a: float
    b: float
    c: float
    alpha: float
    beta: float
    d: float
    u: np.ndarray

    def gcv(self, lam: float, p: int) -> float:
        """GCV with this basis function at ``lam`` (inf = removed), the others fixed."""
        if np.isinf(lam):
            return p * self.a / self.alpha**2
        D = lam + self.d
        den = self.alpha * D - self.beta
        if den <= 0:
            return np.inf
        return p * (self.a * D * D - 2 * self.b * D + self.c) / den**2

    def best_lambda(self, p: int) -> float:
        cands = [0.0, np.inf]
        den = self.b * self.alpha - self.a * self.beta
        if den != 0:
            lam = (self.c * self.alpha - self.b * self.beta) / den - self.d
            if np.isfinite(lam) and lam > 0:
                cands.append(float(lam))
        vals = [self.gcv(lam, p) for lam in cands]
        return cands[int(np.argmin(vals))]


class LocalRidge:
    """Local-ridge state over the candidate columns of ``F`` (p x P)."""

    def __init__(self, F: np.ndarray, y: np.ndarray, active: list[int], lam: np.ndarray):
        self.F, self.y = F, np.asarray(y, float)
        self.p = len(self.y)
        self.K = F.T @ F
        self.Fty = F.T @ self.y
        self.yy = float(self.y @ self.y)
        lam = np.broadcast_to(np.asarray(lam, float), (len(active),))
        independent = independent_columns(F, active)
        self.active = [j for j in active if j in independent]
        self.lam = np.full(F.shape[1], np.inf)
        self.lam[self.active] = [v for j, v in zip(active, lam, strict=True) if j in independent]
        I = self._I()
        A = self.K[np.ix_(I, I)] + np.diag(self.lam[I])
        self.Ainv = cho_solve((cholesky(A, lower=True), True), np.eye(len(I)))

    def _I(self) -> np.ndarray:
        return np.asarray(self.active, dtype=int)

    # ------------------------------------------------------------------ quantities
    def weights(self) -> np.ndarray:
        return self.Ainv @ self.Fty[self._I()]

    def trace_P(self) -> float:
        I = self._I()
        return self.p - float(np.sum(self.Ainv * self.K[np.ix_(I, I)]))

    def sse(self) -> float:
        I = self._I()
        if not len(I):
            return self.yy
        # from the residual itself: the Gram form y'y - 2 w'H'y + w'H'Hw cancels away all
        # precision when the fit is close (it read 0 on a kin-8nm/std.64 start)
        r = self.y - self.F[:, I] @ self.weights()
        return float(r @ r)

    def gcv(self) -> float:
        """``p y^T P^2 y / (trace P)^2`` (ORR 5.2)."""
        return self.p * self.sse() / self.trace_P() ** 2

    def state(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """A copy of what the sweeps change (active set, lambdas, A^-1)."""
        return list(self.active), self.lam.copy(), self.Ainv.copy()

    def restore(self, state: tuple[list[int], np.ndarray, np.ndarray]) -> None:
        self.active, self.lam, self.Ainv = list(state[0]), state[1].copy(), state[2].copy()

    # ------------------------------------------------------------------ one lambda
    def _remove(self, j: int) -> None:
        """Drop j from the active set: partitioned-inverse downdate of A^-1."""
        k = self.active.index(j)
        b = self.Ainv[:, k]
        keep = np.arange(len(self.active)) != k
        self.Ainv = self.Ainv[np.ix_(keep, keep)] - np.outer(b[keep], b[keep]) / b[k]
        del self.active[k]

    def coefficients(self, j: int) -> _Coeffs:
        """a, b, c, alpha, beta, d of basis j w.r.t. the current active set without j
        (j must not be active), all from Gram-matrix products in O(m^2)."""
        I = self._I()
        G = self.K[np.ix_(I, I)]
        Hty, Hth = self.Fty[I], self.K[I, j]
        uy, uh = self.Ainv @ Hty, self.Ainv @ Hth
        a = self.yy - 2 * uy @ Hty + uy @ G @ uy  # ||P_j y||^2
        Kjj, yj = self.K[j, j], self.Fty[j]
        d = Kjj - Hth @ uh  # h^T P_j h
        beta = Kjj - 2 * Hth @ uh + uh @ G @ uh  # ||P_j h||^2
        yPh = yj - Hty @ uh  # y^T P_j h
        yP2h = yj - Hth @ uy - Hty @ uh + uy @ G @ uh  # y^T P_j^2 h
        alpha = self.p - float(np.sum(self.Ainv * G))
        return _Coeffs(
            a=max(a, 0.0),
            b=yP2h * yPh,
            c=max(beta, 0.0) * yPh**2,
            alpha=alpha,
            beta=max(beta, 0.0),
            d=d,
            u=uh,
        )

    def _add(self, j: int, lam: float, co: _Coeffs) -> None:
        """Put j back with ``lam`` (Orr's eq. A.4: ``Delta = lam + d``)."""
        D = lam + co.d
        u = co.u
        top = self.Ainv + np.outer(u, u) / D
        self.Ainv = np.block([[top, -u[:, None] / D], [-u[None, :] / D, np.array([[1.0 / D]])]])
        self.active.append(j)

    def optimise(self, j: int) -> float:
        """Set ``lambda_j`` to its GCV minimiser (others fixed); returns the new GCV."""
        if j in self.active:
            self._remove(j)
        co = self.coefficients(j)
        if co.d < SPAN_EPS * self.K[j, j]:
            lam = np.inf
        else:
            lam = co.best_lambda(self.p)
        self.lam[j] = lam
        if np.isfinite(lam):
            self._add(j, lam, co)
        return co.gcv(lam, self.p)


def independent_columns(F: np.ndarray, columns: list[int]) -> set[int]:
    """The columns of ``F`` (of those listed) that are not numerically in the span of the
    others: column-pivoted QR, whose k-th diagonal element is the residual norm of the k-th
    chosen column against those chosen before it, cut where it falls below
    ``sqrt(SPAN_EPS)`` times the first (the sweeps' test ``d < SPAN_EPS h^T h`` on norms).

    The starting model drops the others (lambda = inf): with tiny starting lambdas on
    nearly dependent columns ``H^T H + Lambda`` is singular to working precision (on
    noise-free data GCV takes the global ridge lambda to 1e-20 and below), and the Gram
    formulas of the sweeps cannot resolve what such columns add."""
    if not columns:
        return set()
    R, pivots = qr(F[:, columns], mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    rank = int(np.sum(diag >= np.sqrt(SPAN_EPS) * diag[0])) if diag[0] > 0 else 0
    return {columns[k] for k in pivots[:rank]}


@dataclass
class Start:
    """A starting model for the sweeps: active columns, their lambdas, and its GCV."""

    active: list[int]
    lam: np.ndarray
    gcv: float


def starting_model(
    F: np.ndarray, y: np.ndarray, init: str = "ridge", wait: int = 2, thresh: float = 1e4
) -> Start:
    """Orr's two initialisations (§6.4). ``"ridge"`` (option a): every candidate at the
    global-ridge lambda re-estimated by GCV (:func:`.ridge.global_ridge`, Orr §6.2);
    ``"ols"`` (option b): lambda 0 on the subset chosen by OLS forward selection with GCV
    and Orr's stopping rule (``wait``, ``thresh``) through the one engine,
    :class:`.orthogonal.OrthogonalSelection`, inf elsewhere."""
    if init == "ridge":
        fit = global_ridge(F, y, "gcv")
        return Start(
            active=list(range(F.shape[1])), lam=np.full(F.shape[1], fit.lam), gcv=fit.value
        )
    if init == "ols":
        sel = OrthogonalSelection(F, y, lam=0.0, criterion="gcv")
        stopper = OrrStop(wait, thresh)
        m = run_selection(sel, stopper, min(500, F.shape[1], len(y) - 1))
        return Start(active=[int(j) for j in sel.sel[:m]], lam=np.zeros(m), gcv=stopper.best)
    raise ValueError(f"init must be 'ridge' or 'ols', not {init!r}")


def local_ridge(
    F: np.ndarray,
    y: np.ndarray,
    init: str | Start = "ridge",
    max_sweeps: int = 20,
    tol: float = 1e-4,
    stop=None,
) -> LocalRidgeFit:
    """Local ridge regression by GCV sweeps over every candidate column of ``F``, from
    ``init`` (a :class:`Start`, or the name of one for :func:`starting_model`).
    ``stop(sweeps)`` may end the sweeps early."""
    start = starting_model(F, y, init) if isinstance(init, str) else init
    lr = LocalRidge(F, y, list(start.active), start.lam)
    history = [lr.gcv()]
    best = lr.state()
    sweeps = 0
    while sweeps < max_sweeps and not (stop is not None and stop(sweeps)):
        for j in range(F.shape[1]):
            lr.optimise(j)
        sweeps += 1
        history.append(lr.gcv())
        if history[-1] < min(history[:-1]):
            best = lr.state()
        if history[-2] - history[-1] <= tol * history[-2]:
            break
    # each step lowers GCV in exact arithmetic; on nearly dependent columns a sweep can
    # raise it in floating point, and then the model GCV prefers is the one kept
    lr.restore(best)
    I = list(lr.active)
    return LocalRidgeFit(
        active=np.asarray(I, int),
        lam=lr.lam[I],
        weights=lr.weights(),
        gcv=min(history),
        gamma=lr.p - lr.trace_P(),
        sweeps=sweeps,
        history=history,
        initial=list(start.active),
    )
