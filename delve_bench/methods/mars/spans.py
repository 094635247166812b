"""Minimum span and end spans (Friedman 1991, eqs. 43 and 45) and the knot candidates.

Knots are placed at most every ``minspan`` parent-supported cases and not within
``endspan`` cases of either end, counted on the parent's support (cases where the parent
basis function is positive). MARS 3.6 rounds both spans and then centres the grid of
knots by splitting the leftover cases between the two ends (``me`` at the top, ``mel``
at the bottom).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# MARS 3.6's own approximations of ln 2 and 2.5 ln 2: they decide the rounding
LN2 = 0.693147
LN2_X_2_5 = 1.732868


@dataclass(frozen=True)
class Spans:
    """Knot spacing for one parent: every ``minspan`` support cases, at least
    ``endspan`` cases above the highest knot and ``endspan_low`` below the lowest."""

    minspan: int
    endspan: int
    endspan_low: int


def spans(n_vars: int, n_support: int, alpha: float = 0.05, minspan: int = 0) -> Spans:
    """MARS 3.6's ``mnspan`` for ``n_vars`` eligible variables and ``n_support`` cases.

    ``L(alpha) = log2(n_vars n_support / -ln(1 - alpha)) / 2.5`` (eq. 43) and
    ``Le(alpha) = 3 + log2(n_vars / alpha)`` (eq. 45), rounded; a user ``minspan > 0``
    replaces L and scales Le with it.
    """
    a = -np.log(1.0 - alpha)
    fmn = -np.log(a / (n_vars * n_support)) / LN2_X_2_5
    fme = -np.log(alpha * 0.125 / n_vars) / LN2
    if minspan > 0:
        me, mn = int(minspan * fme / fmn + 0.5), minspan
    else:
        me, mn = int(fme + 0.5), int(fmn + 0.5)
    me = max(me, mn, 2)
    # centre the knot grid: split the cases left over by the last whole minspan
    s = n_support - 2 * me - 1
    q = s // mn if s >= 0 else -((-s) // mn)  # Fortran integer division truncates
    low = s - q * mn
    high = (q + 1) * mn - s
    u = min(low, high)
    g = 1 if low <= high else -1
    half = int(u / 2)
    me_low = me + g * half + (g if u % 2 != 0 else 0)
    return Spans(mn, me + g * half, me_low)


def knot_positions(x_sorted: np.ndarray, sp: Spans) -> np.ndarray:
    """Candidate knot positions for each variable, highest first.

    Parameters
    ----------
    x_sorted : (P, m) array
        Each row: one variable's values on the parent's ``m`` support cases, ascending.
    sp : Spans

    Returns
    -------
    (P, K) int array
        Positions into each row (0-based), descending, padded with -1.

    MARS 3.6 (``marsgo``) walks down from the top: a position ``q`` is a candidate if
    it is the lowest of its tied values, at least ``minspan`` cases lie between it
    (inclusive) and the previous knot, at least ``endspan`` cases lie above it and at
    least ``endspan_low`` below. The walk restarts its count at each knot, so ties make
    the chain irregular; rows without ties are the arithmetic case.
    """
    P, m = x_sorted.shape
    mn, me, mel = sp.minspan, sp.endspan, sp.endspan_low
    start = m - 1 - me  # the first position with >= me cases above it (me >= mn)
    if start < mel or P == 0:
        return np.full((P, 0), -1, dtype=np.intp)
    K = (start - mel) // mn + 1
    out = np.full((P, K), -1, dtype=np.intp)
    lowest_of_tie = np.ones((P, m), dtype=bool)
    lowest_of_tie[:, 1:] = x_sorted[:, 1:] > x_sorted[:, :-1]
    plain = lowest_of_tie.all(axis=1)
    out[plain] = start - mn * np.arange(K)
    tied = np.flatnonzero(~plain)
    if tied.size:
        # prev[r, q] = highest candidate-eligible position <= q (-1: none)
        prev = np.where(lowest_of_tie[tied], np.arange(m), -1)
        np.maximum.accumulate(prev, axis=1, out=prev)
        flat = prev.ravel()
        base = np.arange(tied.size) * m
        q = flat[base + start]
        for k in range(K):
            ok = q >= mel
            if not ok.any():
                break
            out[tied, k] = np.where(ok, q, -1)
            nxt = q - mn
            q = np.where(nxt >= 0, flat[base + np.maximum(nxt, 0)], -1)
    return out
