"""Minimum and end spans (Friedman 1991 eqs. 43, 45, as MARS 3.6 rounds and centres them)
and the candidate knots, against a literal walk over the sorted cases."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.methods.mars.spans import Spans, knot_positions, spans


def test_worked_example_64_cases_8_variables():
    sp = spans(8, 64)
    assert sp == Spans(minspan=5, endspan=9, endspan_low=9)
    pos = knot_positions(np.arange(64.0)[None, :], sp)
    # 1-based sorted positions 55, 50, ..., 10 (never the lowest case)
    assert list(pos[0] + 1) == list(range(55, 9, -5))


@pytest.mark.parametrize(
    "nep,m", [(1, 6), (8, 64), (8, 1024), (32, 1024), (32, 37), (3, 200), (16, 13)]
)
def test_spans_formulae(nep, m):
    sp = spans(nep, m)
    a = -np.log(0.95)
    mn = int(np.log2(nep * m / a) / 2.5 + 0.5)
    me = max(int(3 + np.log2(nep / 0.05) + 0.5), mn, 2)
    assert sp.minspan == mn
    # centring moves the end spans by at most half a minspan, in opposite directions
    assert abs(sp.endspan - me) <= mn // 2 + 1 and abs(sp.endspan_low - me) <= mn // 2 + 1
    assert (sp.endspan - me) * (sp.endspan_low - me) >= 0


def walk(x_all: np.ndarray, support: np.ndarray, sp: Spans) -> list[float]:
    """MARS 3.6's downward scan over *all* sorted cases, counting support cases only."""
    o = np.argsort(x_all, kind="stable")
    x, s = x_all[o], support[o]
    n, nnl, nst, nnr = len(x), int(s.sum()), 0, -1
    knots = []
    for j in range(n - 1, 0, -1):  # 0-based j = n-1 .. 1 (the lowest case never)
        if s[j]:
            nst, nnl, nnr = nst + 1, nnl - 1, nnr + 1
        if x[j - 1] < x[j] and nst >= sp.minspan and nnl >= sp.endspan_low and nnr >= sp.endspan:
            knots.append(x[j])
            nst = 0
    return knots


@pytest.mark.parametrize("seed", range(12))
def test_knot_candidates_equal_the_literal_scan_with_ties_and_partial_support(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 400))
    levels = int(rng.integers(3, n))  # many ties when levels << n
    x = rng.integers(0, levels, n).astype(float)
    support = rng.random(n) < rng.uniform(0.3, 1.0)
    m = int(support.sum())
    if m <= 5:
        return
    sp = spans(int(rng.integers(1, 9)), m)
    xs = np.sort(x[support])[None, :]
    pos = knot_positions(xs, sp)[0]
    got = list(xs[0, pos[pos >= 0]])
    assert got == walk(x, support, sp)
