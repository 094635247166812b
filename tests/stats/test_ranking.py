"""Friedman test, Nemenyi critical difference and Holm post-hoc against Demšar (2006)'s
worked example (§3.2.2, Table 6), and Holm / Benjamini-Hochberg against their definitions."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.stats.multiple import adjust
from delve_bench.stats.ranking import (
    DEMSAR_METHODS,
    DEMSAR_RANKS,
    block_ranks,
    friedman,
    groups,
    nemenyi_cd,
)

NAMES = list(DEMSAR_METHODS)


def test_demsar_worked_example():
    R = block_ranks(np.array(DEMSAR_RANKS)).mean(0)  # ranks of ranks are the ranks
    assert np.round(R, 3).tolist() == [3.143, 2.000, 2.893, 1.964]
    f = friedman(NAMES, R, 14)
    assert round(f.chi2, 2) == 9.28
    assert round(f.iman_davenport, 2) == 3.69
    assert f.p_iman_davenport == pytest.approx(0.0198, abs=1e-4)
    assert round(f.cd, 2) == 1.25  # Nemenyi, alpha = 0.05
    assert round(nemenyi_cd(4, 14, 0.10), 2) == 1.12  # and at alpha = 0.10
    # Demšar: at 0.05 no pair differs; C4.5 vs C4.5+m+cf (1.18) only misses
    assert not any(any(row) for row in f.different)


def test_block_ranks_average_ties_within_each_row():
    losses = np.array(
        [
            [0.3, 0.1, 0.2, 0.1],  # a tie for first: 1.5 each
            [2.0, 2.0, 2.0, -1.0],  # a three-way tie after the lowest
            [np.inf, -0.0, 0.0, -np.inf],  # -0.0 equals 0.0; infinities rank at the ends
            [1.0, np.nan, 0.0, 2.0],  # a NaN makes the row NaN, as scipy's rankdata
        ]
    )
    got = block_ranks(losses)
    assert got[:3].tolist() == [[4.0, 1.5, 3.0, 1.5], [3.0, 3.0, 3.0, 1.0], [4.0, 2.5, 2.5, 1.0]]
    assert np.isnan(got[3]).all()
    assert block_ranks(np.empty((2, 0))).shape == (2, 0)


def test_block_ranks_are_scipys_rankdata_bit_for_bit():
    """The ranks were scipy.stats.rankdata's: the numpy ones must not move a report's
    average ranks by one ulp (ties of few distinct values, NaN and infinities drawn)."""
    from scipy.stats import rankdata

    rng = np.random.default_rng(3)
    for _ in range(300):
        shape = (int(rng.integers(1, 6)), int(rng.integers(1, 9)))
        x = rng.integers(0, 4, size=shape).astype(float)
        x[rng.random(shape) < 0.1] = rng.choice([np.nan, np.inf, -np.inf, -0.0])
        x += rng.standard_normal(shape) * (rng.random() < 0.5)
        assert block_ranks(x).tobytes() == rankdata(x, axis=1).tobytes()


def test_nemenyi_q_values_are_demsar_table_5():
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), q05, strict=True):
        assert nemenyi_cd(k, 1, 0.05) / np.sqrt(k * (k + 1) / 6) == pytest.approx(q, abs=1e-3)


def test_holm_posthoc_uses_normal_z_and_holm():
    from scipy import stats as sps

    R = block_ranks(np.array(DEMSAR_RANKS)).mean(0)
    f = friedman(NAMES, R, 14, posthoc="holm")
    se = np.sqrt(4 * 5 / (6 * 14))
    raw = {
        (a, b): 2 * sps.norm.sf(abs(R[i] - R[j]) / se)
        for i, a in enumerate(NAMES)
        for j, b in enumerate(NAMES)
        if i < j
    }
    want = dict(zip(raw, holm(list(raw.values())), strict=True))
    assert f.pair_p == pytest.approx(want)


def holm(p):
    """Holm (1979) from its definition: sorted p_(i) times (m - i + 1), running max, <= 1."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p)
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adj[i] = min(1.0, running)
    return adj


def bh(p):
    """Benjamini-Hochberg from its definition: p_(i) m / i, running min from the top."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p)[::-1]
    adj = np.empty(m)
    running = 1.0
    for k, i in enumerate(order):
        rank = m - k
        running = min(running, p[i] * m / rank)
        adj[i] = running
    return adj


def _adjust_cases() -> list[np.ndarray]:
    """Small p-values, p-values up to 1 (the clip at 1 binds), and ties (the order among
    equal p-values must not matter)."""
    rng = np.random.default_rng(3)
    cases = [rng.uniform(0, 0.2, m) ** 2 for m in (1, 2, 7, 40)]
    return cases + [rng.uniform(0, 1, 40), np.array([0.5, 0.5, 0.9, 0.01, 0.01, 1.0, 0.3, 0.01])]


def test_holm_and_bh_equal_their_definitions():
    for p in _adjust_cases():
        assert adjust(list(p), "holm") == pytest.approx(holm(p), rel=1e-12)
        assert adjust(list(p), "bh") == pytest.approx(bh(p), rel=1e-12)


@pytest.mark.slow  # importing statsmodels alone takes about 3 CPU s
def test_holm_and_bh_equal_statsmodels():
    from statsmodels.stats.multitest import multipletests

    for p in _adjust_cases():
        got_h, got_b = adjust(list(p), "holm"), adjust(list(p), "bh")
        assert got_h == pytest.approx(multipletests(p, method="holm")[1], rel=1e-12)
        assert got_b == pytest.approx(multipletests(p, method="fdr_bh")[1], rel=1e-12)


def test_missing_p_values_do_not_count_as_tests():
    got = adjust([0.01, None, 0.04], "holm")
    assert got[1] is None and got[0] == pytest.approx(0.02) and got[2] == pytest.approx(0.04)


def test_groups_are_maximal_runs_of_undistinguished_methods():
    order = ["a", "b", "c", "d", "e"]
    apart = {frozenset(x) for x in (("a", "c"), ("a", "d"), ("a", "e"), ("b", "e"))}
    got = groups(order, lambda x, y: frozenset((x, y)) in apart)
    assert got == [("a", "b"), ("b", "c", "d"), ("c", "d", "e")]
    assert groups(order, lambda x, y: True) == []
    assert groups(order, lambda x, y: False) == [tuple(order)]
