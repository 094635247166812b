"""Conjugate-gradient minimiser with the Wolfe–Powell line search of Rasmussen (1996)
(Rasmussen 1996 App. B, C functions ``conj`` and ``lns``).

The one CG minimiser of the package: gp-map-1 uses it for the GP hyperparameters and
mlp-ese-1 for the network weights. It minimises ``f`` given a function returning
``(f, g)`` together (one call = one *evaluation*, the thesis' "epoch"); an *iteration* is
one search direction plus one line search.

* Polak–Ribière directions with a fall-back to steepest descent when the new direction
  is not a descent direction; no periodic restarts.
* Initial step ``1/(1 + |g|^2)`` and then ``z_i = z_{i-1} min(d_{i-1}/d_i, RATIO)`` (eq. B.2).
* The 1996 constants RHO = 0.25, SIG = 0.5, INT = 0.1, EXT = 3, MAX = 20, RATIO = 100
  (not the later ``minimize.m`` ones).
* The minimisation stops after two consecutive failed line searches (converged), when an
  evaluation or iteration limit or a budget is reached, or when the caller's stop
  predicate says so (e.g. early stopping on a validation set after each line search).

Departures from the C code (docs/methods/gp.md, gp-map-1 departure 2):

* the "line search failed" flag is reset when a minimisation starts (the C ``static`` was not);
* after a failed line search the retry uses the gradient at the *current* point (the C
  ``dw1 = dw2`` pointer alias);
* a line search succeeds only if all three Wolfe–Powell conditions (b), (a1), (a2) hold at
  the returned point (the C code tested only (a1) after the inner loop, which can be wrong
  when evaluations ran out);
* a failed line search moves to the lowest ``f`` seen in it (the start point if none was
  lower), as the thesis text says, instead of the last evaluated point.

``faithful=True`` restores the literal C behaviour of the last two points (success on
(a1) alone, failure leaves x at the last evaluated point).

Non-finite values: an evaluation returning ``f = +inf`` or NaN (e.g. a covariance matrix
that is not positive definite) is treated as ``+inf`` and the line search
backtracks towards the last finite point; the minimiser never raises on it.

Lazy gradients: ``fun`` may return the gradient as a zero-argument callable. The line
search calls it only when it needs the slope, which it does not at a point rejected on its
value alone (the quadratic backtracking step ignores the slope). The iterates are the
same as with eager gradients; each call of ``fun`` counts as one evaluation either way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

RHO = 0.25  # sufficient decrease (Armijo) constant
SIG = 0.5  # two-sided slope constant, 0 < RHO < SIG < 1
INT = 0.1  # do not re-evaluate within 10% of the current bracket ends
EXT = 3.0  # extrapolate at most to EXT times the current step
MAX = 20  # evaluations per line search
RATIO = 100.0  # cap on the slope-ratio step multiplier

#: ``fun(x) -> (f, g)``; ``g`` may be a zero-argument callable returning the gradient,
#: which the line search then calls only when it needs the slope (a lazy gradient)
FunGrad = Callable[[np.ndarray], tuple[float, "np.ndarray | Callable[[], np.ndarray]"]]


class BudgetLike(Protocol):
    """Anything with ``exhausted(done) -> bool`` (e.g. :class:`~.base.Budget`)."""

    def exhausted(self, done: int) -> bool: ...


@dataclass(frozen=True)
class LineSearch:
    """The outcome of one line search along ``s`` from ``x0``.

    ``f0``, ``d0``: value and slope ``g(x0)^T s`` at the start; ``z``: the accepted step
    (the point is ``x0 + z s``); ``f``, ``d``: value and slope there; ``evals``: how many
    evaluations it used.
    """

    success: bool
    f0: float
    d0: float
    z: float
    f: float
    d: float
    evals: int

    def wolfe_powell(self, rho: float = RHO, sig: float = SIG) -> bool:
        """True iff (b) sufficient decrease and (a1, a2) the two-sided slope test hold."""
        return bool(self.f <= self.f0 + rho * self.z * self.d0 and abs(self.d) <= -sig * self.d0)


@dataclass
class CGResult:
    """What :func:`minimize` returns.

    ``status``: ``"converged"`` (two consecutive failed line searches), ``"max_evals"``,
    ``"max_iter"``, ``"budget"`` or ``"stopped"`` (the callback asked to stop).
    ``trace`` holds ``f`` after every iteration.
    """

    x: np.ndarray
    f: float
    g: np.ndarray
    evals: int
    iterations: int
    failed_line_searches: int
    status: str
    trace: list[float] = field(default_factory=list)


class _Point:
    """One evaluated point ``x0 + z s`` of a line search. The gradient (and so the slope
    ``d``) is fetched only when the line search needs it: ``fun`` may return it as a
    zero-argument callable (a lazy gradient), which saves its cost at points rejected on
    their value alone. A non-finite value or gradient makes the point ``f = +inf``."""

    __slots__ = ("z", "f", "_g", "_d", "s")

    def __init__(self, fun: FunGrad, x0: np.ndarray, s: np.ndarray, z) -> None:
        self.z, self.s = np.float64(z), s
        f, g = fun(x0 + self.z * s)
        self.f = np.float64(f)
        self._g, self._d = g, None
        if not np.isfinite(self.f):
            self.f, self._g, self._d = np.float64(np.inf), np.zeros_like(x0), np.float64(np.inf)

    @classmethod
    def known(cls, f, g: np.ndarray, d, s: np.ndarray) -> _Point:
        """The start point ``x0`` (``z = 0``), whose value, gradient and slope are known."""
        p = cls.__new__(cls)
        p.z, p.f, p._g, p._d, p.s = np.float64(0.0), np.float64(f), g, np.float64(d), s
        return p

    @property
    def g(self) -> np.ndarray:
        if callable(self._g):
            self._g = self._g()
        g = np.asarray(self._g, dtype=float)
        if not np.all(np.isfinite(g)):
            g = np.zeros_like(g)
            self.f, self._d = np.float64(np.inf), np.float64(np.inf)
        self._g = g
        return g

    @property
    def d(self):
        if self._d is None:
            g = self.g
            if self._d is None:
                self._d = np.float64(g @ self.s)
        return self._d


def _evaluate(fun: FunGrad, x: np.ndarray) -> tuple[float, np.ndarray]:
    """``(f, g)`` with a lazy gradient resolved; non-finite values mean ``f = +inf``."""
    p = _Point(fun, x, np.zeros_like(x), 0.0)
    g = p.g
    return float(p.f), g


def _bad(v: float) -> bool:
    return not np.isfinite(v)


def line_search(
    fun: FunGrad,
    x0: np.ndarray,
    f1: float,
    g1: np.ndarray,
    s: np.ndarray,
    z: float,
    max_evals: int = MAX,
    faithful: bool = False,
) -> tuple[LineSearch, np.ndarray, np.ndarray]:
    """The thesis' ``lns``: find a Wolfe–Powell point along ``s`` from ``x0`` (App. B).

    ``f1``, ``g1`` are ``f`` and its gradient at ``x0`` (``g1^T s < 0``); ``z`` is the
    initial guess of the step. Returns the outcome, the new point and its gradient.
    On failure the point is the best one seen (``faithful``: the last one evaluated).
    """
    with np.errstate(all="ignore"):  # divisions by zero and sqrt(<0) give inf/NaN: handled
        return _lns(fun, x0, np.float64(f1), g1, s, np.float64(z), max_evals, faithful)


def _lns(fun, x0, f1, g1, s, z, max_evals, faithful):
    """Body of :func:`line_search`; all scalars are numpy float64 so that 1/0 is inf.
    The variable names follow the C code: point 2 is the current point (``p2``), point 3
    the other interpolation point at ``z3`` relative to point 2."""
    d1 = np.float64(g1 @ s)
    best = _Point.known(f1, g1, d1, s)  # the lowest point so far
    p2 = _Point(fun, x0, s, z)
    evals = 1
    if p2.f < best.f:
        best = p2
    f3, d3, z3 = f1, d1, -z  # point 3 := point 1, position relative to point 2
    lim = -1.0
    while evals < max_evals:
        # tighten the bracket while (b) or (a2) is violated; d2 is not needed when (b) fails
        while (p2.f > f1 + z * RHO * d1 or p2.d > -SIG * d1) and evals < max_evals:
            lim = z
            if p2.f > f1:  # quadratic fit, ignoring d2 (may be misleading far out)
                z2 = z3 - (0.5 * d3 * z3 * z3) / (d3 * z3 + p2.f - f3)
            else:  # cubic fit using f2, d2, f3, d3
                f2, d2 = p2.f, p2.d
                A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
                B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
                z2 = (np.sqrt(B * B - A * d2 * z3 * z3) - B) / A
            if _bad(z2):
                z2 = z3 / 2  # bisection
            z2 = min(z2, INT * z3)  # z3 < 0: move at least 10% towards point 3 ...
            z2 = max(z2, (1 - INT) * z3)  # ... but not within 10% of it
            z += z2
            p2 = _Point(fun, x0, s, z)
            evals += 1
            if p2.f < best.f:
                best = p2
            z3 -= z2  # point 3 stays; re-express relative to the new point 2
        # check (a1); with the loop exit this is the full Wolfe–Powell test (fix #9)
        f2, d2 = p2.f, p2.d
        if faithful:
            ok = d2 > SIG * d1
        else:
            ok = f2 <= f1 + z * RHO * d1 and abs(d2) <= -SIG * d1
        if ok:
            return _result(True, f1, d1, z, f2, d2, evals), x0 + z * s, p2.g
        if evals >= max_evals:
            break
        # extrapolate: the slope is still strongly negative
        A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
        B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
        z2 = -d2 * z3 * z3 / (B + np.sqrt(B * B - A * d2 * z3 * z3))
        if _bad(z2) or z2 < 0:
            z2 = z * (EXT - 1) if lim < -0.5 else 0.5 * (lim - z)
        elif lim > -0.5 and z + z2 > lim:  # beyond the bracket: bisect
            z2 = 0.5 * (lim - z)
        elif lim < -0.5 and z + z2 > z * EXT:  # cap at EXT times the total step
            z2 = z * (EXT - 1)
        elif z2 < -z3 * INT:  # at least 10% of the last interval
            z2 = -z3 * INT
        elif lim > -0.5 and z2 < (lim - z) * (1 - INT):  # (sic, as in the C code)
            z2 = (lim - z) * (1 - INT)
        f3, d3, z3 = f2, d2, -z2  # point 3 := old point 2
        z += z2
        p2 = _Point(fun, x0, s, z)
        evals += 1
        if p2.f < best.f:
            best = p2
    if faithful:
        g2 = p2.g
        return _result(False, f1, d1, z, p2.f, p2.d, evals), x0 + z * s, g2
    gb = best.g
    if not np.isfinite(best.f):  # its lazy gradient turned out non-finite: stay at x0
        best, gb = _Point.known(f1, g1, d1, s), g1
    return _result(False, f1, d1, best.z, best.f, best.d, evals), x0 + best.z * s, gb


def _result(ok, f0, d0, z, f, d, evals) -> LineSearch:
    return LineSearch(
        success=bool(ok),
        f0=float(f0),
        d0=float(d0),
        z=float(z),
        f=float(f),
        d=float(d),
        evals=evals,
    )


class ConjugateGradient:
    """The state of the thesis' ``conj`` held in an object (the C code used statics).

    Create it at the start point (one evaluation), then call :meth:`iterate` for one
    direction + line search at a time; ``x``, ``f``, ``g``, ``evals`` and
    ``iterations`` are always the current state.
    """

    def __init__(self, fun: FunGrad, x0: np.ndarray, faithful: bool = False):
        self.fun = fun
        self.faithful = faithful
        self.x = np.array(x0, dtype=float)
        self.f, self.g = _evaluate(fun, self.x)
        if not np.isfinite(self.f):
            raise ValueError("cg: the objective is not finite at the start point")
        self.evals = 1
        self.iterations = 0
        self.failed = 0
        self.converged = False
        self._restart_direction()
        self._ls_failed = False  # reset on restart (the C ``static`` was not)

    def _restart_direction(self) -> None:
        self.s = -self.g
        self.d1 = float(-(self.s @ self.s))
        self.z = 1.0 / (1.0 - self.d1)  # 1 / (1 + |g|^2), eq. B.2

    def iterate(self, max_evals: int = MAX) -> LineSearch | None:
        """One iteration using at most ``min(MAX, max_evals)`` evaluations; returns the line
        search, or None when already converged (two consecutive failures) or at a point
        with zero gradient."""
        if self.converged or max_evals <= 0:
            return None
        if self.d1 == 0.0:  # exact stationary point: nothing to do
            self.converged = True
            return None
        ls, x2, g2 = line_search(
            self.fun,
            self.x,
            self.f,
            self.g,
            self.s,
            self.z,
            min(MAX, max_evals),
            self.faithful,
        )
        self.evals += ls.evals
        self.iterations += 1
        g1 = self.g
        self.x, self.f, self.g = x2, ls.f, g2
        if ls.success:
            beta = float((g2 @ g2 - g1 @ g2) / (g1 @ g1))  # Polak–Ribière
            self.s = beta * self.s - g2
            d2 = float(g2 @ self.s)
            if d2 > 0:  # not a descent direction: steepest descent
                self.s = -g2
                d2 = float(-(self.s @ self.s))
            if d2 == 0.0:
                self.converged = True
                return ls
            self.z = ls.z * min(self.d1 / d2, RATIO)  # slope-ratio initial step
            self.d1 = d2
            self._ls_failed = False
        else:
            self.failed += 1
            if self._ls_failed:
                self.converged = True
                return ls
            self._restart_direction()  # steepest descent from the current point (#8)
            self._ls_failed = True
        return ls


def minimize(
    fun: FunGrad,
    x0: np.ndarray,
    max_evals: int | None = None,
    budget: BudgetLike | None = None,
    callback: Callable[[ConjugateGradient, LineSearch], bool | None] | None = None,
    max_iter: int | None = None,
    faithful: bool = False,
) -> CGResult:
    """Minimise ``f`` from ``x0`` with the thesis' conjugate gradients (App. B).

    Stops at ``max_evals`` evaluations (the count includes the start point and is never
    exceeded: the last line search is shortened), ``max_iter`` iterations, when
    ``budget.exhausted(evals)`` is true between iterations, when ``callback(cg,
    line_search)`` (called after every line search) returns true, or on convergence
    (two consecutive failed line searches). The returned point is the current CG point,
    which with the default (non-faithful) line search is also the best point found.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f, grad)`` for x of shape (d,): the value and the gradient of shape
        (d,), or a zero-argument callable returning it (computed only when the line search
        needs the slope). One call is one evaluation. A non-finite f is treated as +inf.
    x0 : ndarray of shape (d,)
        Start point; f must be finite there.
    max_evals : int, optional
        Limit on evaluations.
    budget : object with ``exhausted(evals) -> bool``, optional
        E.g. a :class:`delve_bench.methods.base.Budget`, checked between iterations.
    callback : callable, optional
        ``callback(cg, line_search)`` after every line search; a true result stops.
    max_iter : int, optional
        Limit on iterations (line searches).
    faithful : bool
        The literal C line search (see the module docstring).

    Returns
    -------
    CGResult
        ``x`` (d,), ``f``, ``g`` (d,), evaluations, iterations, failed line searches, the
        stop ``status`` and the value after every iteration (``trace``).
    """
    cg = ConjugateGradient(fun, x0, faithful=faithful)
    trace = [cg.f]
    status = "converged"
    while True:
        if max_evals is not None and cg.evals >= max_evals:
            status = "max_evals"
            break
        if max_iter is not None and cg.iterations >= max_iter:
            status = "max_iter"
            break
        if budget is not None and budget.exhausted(cg.evals):
            status = "budget"
            break
        left = MAX if max_evals is None else max_evals - cg.evals
        ls = cg.iterate(left)
        if ls is None:
            status = "converged"
            break
        trace.append(cg.f)
        if callback is not None and callback(cg, ls):
            status = "stopped"
            break
        if cg.converged:
            status = "converged"
            break
    return CGResult(
        x=cg.x.copy(),
        f=cg.f,
        g=cg.g.copy(),
        evals=cg.evals,
        iterations=cg.iterations,
        failed_line_searches=cg.failed,
        status=status,
        trace=trace,
    )
