"""The suffix-sum knot search against brute-force least squares on every candidate."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.methods.mars.basis import BasisFunction
from delve_bench.methods.mars.forward import _Basis
from delve_bench.methods.mars.knots import KnotSearch, SortedInputs
from delve_bench.methods.mars.spans import knot_positions, spans


def rss(cols: list[np.ndarray], y: np.ndarray) -> float:
    A = np.column_stack([np.ones(len(y)), *cols])
    r = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    return float(r @ r)


@pytest.mark.parametrize("seed,ties", [(0, False), (1, True), (2, False), (3, True)])
def test_candidates_equal_brute_force_least_squares(seed, ties):
    rng = np.random.default_rng(seed)
    n, p = 150, 4
    X = rng.normal(size=(n, p))
    if ties:
        X = np.round(X * 2) / 2
    y = np.sin(2 * X[:, 0]) + X[:, 1] * (X[:, 2] > 0) + 0.1 * rng.normal(size=n)
    xs = SortedInputs.of(X)
    xmin = X.min(axis=0)
    yc = y - y.mean()
    B = _Basis(X, yc, nk=6)
    # a basis to search against, and the parent: bf 2 = (x0 - t)_+ (partial support)
    t0 = float(np.median(X[:, 0]))
    for bf in [
        BasisFunction(3, 1, xmin[3], 0),
        BasisFunction(0, 1, t0, 0),
        BasisFunction(0, -1, t0, 0),
    ]:
        B.add(bf)
    for parent in (0, 2):
        b = B.column(parent)
        variables = np.array([1, 2, 3]) if parent else np.arange(p)
        sp = spans(len(variables), int((b > 0).sum()))
        table = KnotSearch(xs, xmin, yc, max_rows=p)
        rows = table.add_parent(b, variables, sp, int((b > 0).sum())).rows(-1)
        cand = table.evaluate(rows, B.Q, B.dy, B.kr, B.rss)
        basis_cols = [B.columns[:, k] for k in range(len(B))]
        for r, v in enumerate(variables):
            L = b * np.maximum(0, X[:, v] - xmin[v])
            assert cand.rss_linear[r] == pytest.approx(rss(basis_cols + [L], y), rel=1e-9)
            # (x0 is in the basis as a linear term and as a mirror pair: L is collinear)
            assert cand.linear_ok[r] == (v not in (0, 3) or parent != 0)
            lin = [L] if cand.linear_ok[r] else []
            sup = np.sort(X[b > 0, v])
            pos = knot_positions(sup[None, :], sp)[0]
            knots = sup[pos[pos >= 0]]
            brute = [rss(basis_cols + lin + [b * np.maximum(0, X[:, v] - t)], y) for t in knots]
            if not knots.size:
                assert np.isnan(cand.rss_pair[r])
                continue
            best = int(np.argmin(brute))
            assert cand.knot[r] == knots[best]
            assert cand.rss_pair[r] == pytest.approx(brute[best], rel=1e-8)


def test_incremental_projections_equal_a_fresh_search():
    """Columns added after a parent was first examined are caught up exactly."""
    rng = np.random.default_rng(7)
    n = 200
    X = rng.uniform(size=(n, 3))
    y = X[:, 0] * X[:, 1] + rng.normal(scale=0.05, size=n)
    xs, xmin, yc = SortedInputs.of(X), X.min(axis=0), y - y.mean()
    B = _Basis(X, yc, nk=8)
    B.add(BasisFunction(2, 1, xmin[2], 0))
    sp = spans(3, n)
    table = KnotSearch(xs, xmin, yc, max_rows=9)
    old = table.add_parent(np.ones(n), np.arange(3), sp, n)
    table.evaluate(old.rows(1), B.Q, B.dy, B.kr, B.rss)  # one variable first
    for bf in [
        BasisFunction(0, 1, 0.4, 0),
        BasisFunction(0, -1, 0.4, 0),
        BasisFunction(1, 1, 0.6, 1),
    ]:
        B.add(bf)
    table.evaluate(old.rows(2), B.Q, B.dy, B.kr, B.rss)  # another, later
    fresh = table.add_parent(np.ones(n), np.arange(3), sp, n)
    # rows that have seen 1, 0 and 4 columns, and fresh rows, caught up together
    a = table.evaluate(old.rows(-1), B.Q, B.dy, B.kr, B.rss)
    b = table.evaluate(fresh.rows(-1), B.Q, B.dy, B.kr, B.rss)
    np.testing.assert_allclose(a.rss_linear, b.rss_linear, rtol=1e-12)
    np.testing.assert_allclose(a.rss_pair, b.rss_pair, rtol=1e-12)
    np.testing.assert_array_equal(a.knot, b.knot)


def test_collinear_linear_candidate_is_rejected():
    """A variable already in the model as a linear term: L is collinear (MARS: 1e-4)."""
    rng = np.random.default_rng(2)
    n = 100
    X = rng.uniform(size=(n, 2))
    y = X[:, 0] + rng.normal(scale=0.1, size=n)
    xs, xmin, yc = SortedInputs.of(X), X.min(axis=0), y - y.mean()
    B = _Basis(X, yc, nk=4)
    B.add(BasisFunction(0, 1, xmin[0], 0))
    table = KnotSearch(xs, xmin, yc, max_rows=2)
    rows = table.add_parent(np.ones(n), np.arange(2), spans(2, n), n).rows(-1)
    cand = table.evaluate(rows, B.Q, B.dy, B.kr, B.rss)
    assert not cand.linear_ok[0] and cand.linear_ok[1]
    assert cand.rss_linear[0] == pytest.approx(B.rss)
