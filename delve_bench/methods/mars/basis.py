"""MARS basis functions: products of truncated linear factors (Friedman 1991, eq. 24).

Basis function ``m`` (numbered from 1; 0 is the constant) is ``s (x_v - t)_+`` times its
parent. A "linear" basis function is the hinge at the training minimum of ``x_v``: it is
zero below that minimum (MARS 3.6's ``fmrs``), not the straight line ``x_v - min``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MarsSettings:
    """MARS 3.6's controls (defaults: its own, with the thesis' nk = 15 and mi = 8).

    Parameters
    ----------
    nk : int
        Maximum number of non-constant basis functions of the forward pass.
    mi : int
        Maximum number of factors (variables) in one basis function.
    df : float
        Degrees of freedom charged per forward step in GCV (Friedman 1991 §3.6).
    alpha : float
        The significance level behind the minimum and end spans (eqs. 43, 45).
    minspan : int
        A fixed minimum span (0: from alpha).
    fast_k, fast_beta, fast_h : int, float, int
        Fast-MARS queue length K, ageing beta and variable-cache age h (Friedman 1993).
    """

    nk: int = 15
    mi: int = 8
    df: float = 3.0
    alpha: float = 0.05
    minspan: int = 0
    fast_k: int = 10
    fast_beta: float = 1.0
    fast_h: int = 5

    def __post_init__(self):
        if self.nk < 1 or self.mi < 1 or self.fast_k < 1 or self.fast_h < 1:
            raise ValueError("nk, mi, fast_k and fast_h must be at least 1")
        if not 0.0 < self.alpha < 1.0 or self.df < 0 or self.minspan < 0:
            raise ValueError("need 0 < alpha < 1, df >= 0 and minspan >= 0")


@dataclass(frozen=True)
class BasisFunction:
    """``sign * (x[variable] - knot)_+`` times basis function ``parent`` (0: constant)."""

    variable: int
    sign: int
    knot: float
    parent: int


def factors(basis: list[BasisFunction], m: int) -> list[BasisFunction]:
    """The factors of basis function ``m`` (1-based), itself first, then its ancestors."""
    out = []
    while m > 0:
        bf = basis[m - 1]
        out.append(bf)
        m = bf.parent
    return out


def variables_of(basis: list[BasisFunction], m: int) -> frozenset[int]:
    return frozenset(f.variable for f in factors(basis, m))


def hinge(x: np.ndarray, sign: int, knot: float) -> np.ndarray:
    """``max(0, sign (x - knot))``."""
    return np.maximum(0.0, sign * (x - knot))


def linear_design(X: np.ndarray, basis: list[BasisFunction], which) -> np.ndarray:
    """Columns of the piecewise-linear basis functions ``which`` (1-based) at ``X``.

    Parameters
    ----------
    X : (n, p) array
        Inputs on the scale the knots are given in.
    basis : list of BasisFunction
    which : sequence of int

    Returns
    -------
    (n, len(which)) array
    """
    out = np.empty((len(X), len(which)))
    for j, m in enumerate(which):
        col = np.ones(len(X))
        for f in factors(basis, m):
            col *= hinge(X[:, f.variable], f.sign, f.knot)
        out[:, j] = col
    return out
