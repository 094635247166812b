"""GCV backward deletion against brute-force least squares (Friedman 1991 §3.6)."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.methods.mars.backward import backward_pass


def rss(X, y, cols) -> float:
    A = np.column_stack([np.ones(len(y)), X[:, cols]])
    r = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    return float(r @ r)


@pytest.mark.parametrize("seed", range(4))
def test_deletion_path_and_gcv_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, M = 80, 9
    X = np.maximum(0, rng.normal(size=(n, M)))
    X[:, 4] = 2 * X[:, 1] - X[:, 3]  # collinear: never enters
    beta = rng.normal(size=M) * (rng.random(M) < 0.6)
    y = X @ beta + rng.normal(scale=0.5, size=n)
    iters, d = 6, 3.0
    res = backward_pass(X, y, iters, d)
    assert res.n_independent == M - 1
    c = (d * iters + M - 1) / (M - 1)
    assert res.cost_per_bf == pytest.approx(c)
    # replay the deletions by brute force: each step removes the column whose removal
    # gives the smallest RSS, and the path's GCVs follow C(M') = 1 + c M'
    inside = [k for k in range(M) if k != 4]
    gcvs = []
    for size in range(M - 1, 0, -1):
        cost = 1 + c * size
        gcvs.append((cost, rss(X, y, inside) / n / (1 - cost / n) ** 2))
        if size > 1:
            trial = [rss(X, y, [j for j in inside if j != k]) for k in inside]
            inside.pop(int(np.argmin(trial)))
    np.testing.assert_allclose(res.path, gcvs, rtol=1e-6)
    best = min(range(len(gcvs)), key=lambda i: (gcvs[i][1], i))
    gcv0 = np.var(y) / (1 - 1 / n) ** 2
    if gcv0 <= gcvs[best][1]:
        assert not res.selected.any()
    else:
        assert res.gcv == pytest.approx(gcvs[best][1], rel=1e-6)
        cols = np.flatnonzero(res.selected)
        A = np.column_stack([np.ones(n), X[:, cols]])
        w = np.linalg.lstsq(A, y, rcond=None)[0]
        np.testing.assert_allclose(res.coef[cols], w[1:], rtol=1e-5, atol=1e-8)
        assert res.intercept == pytest.approx(w[0], rel=1e-5, abs=1e-8)


def test_constant_model_wins_on_noise():
    rng = np.random.default_rng(5)
    n = 40
    X = np.maximum(0, rng.normal(size=(n, 6)))
    y = rng.normal(size=n)
    res = backward_pass(X, y, 5, 3.0)
    assert not res.selected.any() and res.intercept == pytest.approx(y.mean())
    assert res.gcv == pytest.approx(np.var(y) / (1 - 1 / n) ** 2)
