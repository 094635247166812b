"""The piecewise-cubic MARS model (Friedman 1991 §3.7; MARS 3.6 ``cubic``/``side``).

Each hinge ``(x - t)_+`` (or ``(t - x)_+``) of a selected basis function is replaced by a
truncated cubic that equals the hinge outside ``[t-, t+]`` and joins it with continuous
first derivative at both side knots. The side knots are midpoints: ``t- = (lo + t)/2``
and ``t+ = (t + hi)/2``, where ``lo`` (``hi``) is the nearest knot below (above) ``t``
on the same variable among all factors of the selected basis functions of the same ANOVA
function (same set of variables), defaulting to the training minimum (maximum). Linear
factors (knot at the minimum) stay hinges. The intercept and all coefficients are then
refitted by least squares (Cholesky with a 1e-5 relative ridge); nothing is reselected.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .basis import BasisFunction, factors, variables_of

#: relative ridge of the cubic refit (MARS 3.6 ``lsf``)
RIDGE = 1e-5


@dataclass(frozen=True)
class CubicFactor:
    """Friedman's truncated cubic for ``sign (x - knot)_+`` with side knots
    ``lower < knot < upper`` (equal to the minimum for a linear factor)."""

    variable: int
    sign: int
    knot: float
    lower: float
    upper: float

    def coefficients(self) -> tuple[float, float]:
        """(p, r) of ``p (x - a)^2 + r (x - a)^3`` on the smoothing interval, where ``a``
        is ``lower`` for sign +1 and ``upper`` for sign -1."""
        if self.upper <= self.lower:
            return 0.0, 0.0
        um, up = (self.lower, self.upper) if self.sign > 0 else (self.upper, self.lower)
        t, s = self.knot, float(self.sign)
        return s * (2 * up + um - 3 * t) / (up - um) ** 2, s * (2 * t - up - um) / (up - um) ** 3

    def __call__(self, x: np.ndarray) -> np.ndarray:
        s = float(self.sign)
        um, up = (self.lower, self.upper) if self.sign > 0 else (self.upper, self.lower)
        p, r = self.coefficients()
        z = s * x
        d = x - um
        inner = p * d * d + r * d * d * d
        return np.where(z <= s * um, 0.0, np.where(z >= s * up, z - s * self.knot, inner))


def side_knots(
    basis: list[BasisFunction], selected, xmin: np.ndarray, xmax: np.ndarray
) -> list[tuple[CubicFactor, ...]]:
    """The cubic factors of each selected basis function (1-based numbers ``selected``)."""
    groups: dict[frozenset[int], list[int]] = {}
    for m in selected:
        groups.setdefault(variables_of(basis, m), []).append(m)
    knots: dict[tuple[frozenset[int], int], np.ndarray] = {}
    for g, members in groups.items():
        for v in g:
            knots[g, v] = np.array(
                [f.knot for m in members for f in factors(basis, m) if f.variable == v]
            )
    out = []
    for m in selected:
        g = variables_of(basis, m)
        fs = []
        for f in factors(basis, m):
            lo_x, hi_x = xmin[f.variable], xmax[f.variable]
            if f.knot <= lo_x:
                fs.append(CubicFactor(f.variable, f.sign, f.knot, lo_x, lo_x))
                continue
            on_v = knots[g, f.variable]
            below = on_v[(on_v < f.knot) & (on_v > lo_x)]
            above = on_v[(on_v > f.knot) & (on_v < hi_x)]
            lo = below.max() if below.size else lo_x
            hi = above.min() if above.size else hi_x
            fs.append(
                CubicFactor(f.variable, f.sign, f.knot, 0.5 * (lo + f.knot), 0.5 * (f.knot + hi))
            )
        out.append(tuple(fs))
    return out


@dataclass(frozen=True)
class CubicModel:
    """``intercept + sum_j coef[j] prod_f f(x)`` over the cubic terms."""

    terms: list[tuple[CubicFactor, ...]]
    intercept: float
    coef: np.ndarray
    gcv: float

    def design(self, X: np.ndarray) -> np.ndarray:
        """(n, terms) values of the cubic basis functions at ``X`` (n, p)."""
        out = np.ones((len(X), len(self.terms)))
        for j, term in enumerate(self.terms):
            for f in term:
                out[:, j] *= f(X[:, f.variable])
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.intercept + self.design(X) @ self.coef


def fit_cubic(
    X: np.ndarray,
    y: np.ndarray,
    basis: list[BasisFunction],
    selected,
    cost_per_bf: float,
    xmin: np.ndarray,
    xmax: np.ndarray,
) -> CubicModel:
    """Smooth the selected basis functions and refit all coefficients.

    Parameters
    ----------
    X : (n, p) array
        Standardized training inputs.
    y : (n,) array
    basis : list of BasisFunction
    selected : sequence of int
        1-based numbers of the selected basis functions.
    cost_per_bf : float
        The backward pass' c, for the cubic model's GCV.
    xmin, xmax : (p,) arrays
        Training range of each input.
    """
    n = len(y)
    ybar = float(y.mean())
    yc = y - ybar
    syy = float(yc @ yc)
    if len(selected) == 0:
        return CubicModel([], ybar, np.zeros(0), (syy / n) / (1.0 - 1.0 / n) ** 2)
    model = CubicModel(side_knots(basis, list(selected), xmin, xmax), ybar, np.zeros(0), 0.0)
    D = model.design(X)
    mean = D.mean(axis=0)
    Dc = D - mean
    G = Dc.T @ Dc
    rhs = Dc.T @ yc
    Gr = G + RIDGE * np.diag(np.diag(G))
    try:
        coef = scipy.linalg.cho_solve(scipy.linalg.cho_factor(Gr), rhs)
    except np.linalg.LinAlgError:  # an all-zero column: MARS 3.6 has no answer here
        coef = np.linalg.lstsq(Dc, yc, rcond=None)[0]
    rss = syy - float(coef @ rhs) - RIDGE * float(np.diag(G) @ coef**2)
    cost = 1.0 + cost_per_bf * len(selected)
    gcv = (rss / n) / (1.0 - cost / n) ** 2
    return CubicModel(model.terms, ybar - float(coef @ mean), coef, gcv)
