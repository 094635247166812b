"""The statistics never overclaim: the 2-way quasi-F's level at the estimated variance
components (the selftest's simulation) flags where it is liberal, and every decision at
5 % -- comparisons, wins, rankings, check, power -- uses the size-corrected test there;
the Wilcoxon post-hoc of Benavoli et al. (2016) judges a pair on its own values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from delve_bench.stats.level import (
    SIMULATIONS,
    calibrated_p,
    critical_p,
    is_liberal,
    level_fields,
    liberal_bound,
    null_rate,
)
from delve_bench.stats.power import VarianceComponents, power, simulated_power
from delve_bench.stats.ranking import friedman, wilcoxon_p
from delve_bench.stats.simulate import simulate_losses
from delve_bench.stats.summary import compare


def _vc(sa: float, sb: float, se: float = 1.0) -> VarianceComponents:
    return VarianceComponents(design="2-way", var_a=sa**2, var_e=se**2, var_b=sb**2)


def test_the_level_matches_the_selftests_full_simulation():
    """The sums-of-squares simulation gives the rate that simulating whole loss matrices
    (as `delve selftest` does) gives, within Monte Carlo error."""
    vc, I, J = _vc(0.3, 0.3), 2, 100
    from delve_bench.stats.anova import mean_squares
    from delve_bench.stats.tests import quasi_f_p_value

    y = simulate_losses(vc, I, J, 4000, np.random.default_rng(1))
    ms = mean_squares(y, "2-way")
    p, *_ = quasi_f_p_value(ms.mean, ms.ms_a, ms.ms_b, ms.ms_e, I, J)
    full = float(np.mean(p < 0.05))
    assert abs(null_rate(vc, I, J) - full) < 4 * np.sqrt(0.13 * 0.87 / 4000)
    assert full > 0.1  # the audit's finding: 2 instances reject 10-14 % of true nulls


@pytest.mark.parametrize(
    "I, sa, sb, liberal",
    [(2, 0.3, 0.3, True), (4, 0.3, 0.3, True), (8, 0.3, 0.3, False), (8, 0.1, 1.0, False)],
)
def test_liberal_where_the_selftest_finds_it(I, sa, sb, liberal):
    vc = _vc(sa, sb)
    assert is_liberal(vc, I, 100) == liberal
    crit = critical_p(vc, I, 100)
    if liberal:
        assert crit < 0.05 and null_rate(vc, I, 100, crit) <= 0.05
    else:
        assert crit == 0.05


def test_the_calibrated_p_is_a_null_probability():
    vc = _vc(0.3, 0.3)
    assert calibrated_p(vc, 2, 100, 1.0) == pytest.approx(1.0)
    assert calibrated_p(vc, 2, 100, 0.0) == pytest.approx(1 / (SIMULATIONS + 1))
    assert calibrated_p(vc, 2, 100, 0.05) == pytest.approx(null_rate(vc, 2, 100), abs=1e-3)
    assert liberal_bound(0.05) == sps.binom.interval(0.999, SIMULATIONS, 0.05)[1] / SIMULATIONS


def test_the_null_p_values_are_computed_once_per_design_and_are_those_computed_afresh():
    """The per-process memo of the null simulation returns what computing it afresh does,
    bit for bit, a design with other components or another size its own, and an array
    no caller can change under another."""
    from delve_bench.stats.level import _null_p_values, null_p_values

    vc, I, J = _vc(0.3, 0.2), 3, 40
    first = null_p_values(vc, I, J)
    assert null_p_values(vc, I, J) is first  # remembered
    fresh = _null_p_values.__wrapped__(vc, I, J)  # the computation itself, not the memo
    assert fresh is not first and np.array_equal(fresh, first)
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0] = 0.0
    other = null_p_values(_vc(0.3, 0.25), I, J)
    assert other is not first and not np.array_equal(other, first)
    assert not np.array_equal(null_p_values(vc, I, J + 1)[: len(first)], first)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 2000, SIMULATIONS, 100_000])
def test_the_liberal_bound_is_scipys_binomial_interval(n):
    """The bisection on scipy.special's binomial CDF gives the upper end of
    scipy.stats.binom.interval exactly, at every level and number of studies."""
    for alpha in (0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 0.9):
        assert liberal_bound(alpha, n) == sps.binom.interval(0.999, n, alpha)[1] / n


def test_a_liberal_comparison_says_so_and_is_not_significant_on_its_nominal_p():
    # seed 191: the first draw already lands there (each try simulates the level, 50 ms)
    rng = np.random.default_rng(191)
    vc = _vc(0.3, 0.3)
    from delve_bench.losses import Standardizer

    st = Standardizer(loss="S", scale=1.0, shift=0.0)
    found = False
    for _ in range(400):  # a true null whose raw quasi-F p lands between crit and 0.05
        ya = simulate_losses(vc, 4, 100, 1, rng)[0] + 5.0
        c = compare(ya, np.full_like(ya, 5.0), "2-way", st)
        if c.p is not None and c.critical_p <= c.p < 0.05:
            found = True
            break
    assert found
    assert c.liberal and not c.significant_5pc
    assert "liberal" in c.level_note and "size-corrected" in c.level_note
    fields = level_fields(vc, 8, 100, 0.01)
    assert not fields["liberal"] and fields["significant_5pc"] and "level_note" not in fields


def test_power_is_that_of_the_size_corrected_test():
    vc = _vc(0.3, 0.3)
    assert power(vc, 0.0, 2, 100) <= 0.05 + 0.005  # the level, not 13 %
    assert power(vc, 0.0, 2, 100) < null_rate(vc, 2, 100)
    sim = simulated_power(vc, 0.0, 2, 100, studies=2000, rng=np.random.default_rng(5))
    assert sim < 0.075


def test_wilcoxon_posthoc_judges_a_pair_on_its_own_values():
    """Benavoli, Corani & Mangili (2016): A beats B on all 12 blocks. Alone, every
    post-hoc test says they differ; add three methods better than both and the mean-rank
    z-test (Holm) no longer separates A and B -- their own results unchanged -- while the
    Wilcoxon test of A against B still does."""
    rng = np.random.default_rng(0)
    N = 12
    a = rng.normal(1.0, 0.1, N)
    b = a + 0.05 + rng.uniform(0, 0.01, N)
    raw = wilcoxon_p(a - b)
    assert raw == pytest.approx(sps.wilcoxon(a - b).pvalue) and raw == pytest.approx(2 / 2**N)
    assert wilcoxon_p(np.zeros(N)) == 1.0

    def differ(values: np.ndarray, posthoc: str) -> tuple[bool, float]:
        names = ["A", "B", "C", "D", "E"][: values.shape[1]]
        R = sps.rankdata(values, axis=1).mean(0)
        f = friedman(names, R, N, posthoc, 0.05, values)
        return f.differ("A", "B"), f.pair_p[("A", "B")]

    alone = np.column_stack([a, b])
    # C, D, E better than both, each with its own noise: tied differences would send scipy's
    # Wilcoxon test to a permutation test over the 2^12 signs (0.7 s a pair)
    better = [a - shift - rng.uniform(0, 0.01, N) for shift in (0.5, 0.6, 0.7)]
    pool = np.column_stack([a, b, *better])
    assert differ(alone, "holm")[0] and differ(alone, "wilcoxon")[0]
    assert not differ(pool, "holm")[0]  # the pool changed the mean-rank verdict
    w, p = differ(pool, "wilcoxon")
    assert w and raw <= p <= 10 * raw  # Holm over the 10 pairs: the only pool effect
    with pytest.raises(ValueError, match="block_values"):
        friedman(["A", "B"], [1.0, 2.0], N, "wilcoxon")


def test_compare_counts_a_bounded_result_as_the_rankings_do(delve, tmp_path):
    """lin-1 against mars3.6-1 on boston (the thesis' committed results): with 2 instances
    the quasi-F says `< 0.05`, which compare shows without a star and does not count, as
    the rankings count it as p = 0.05 (stats.results.is_significant)."""
    r = delve("compare", "lin-1", "mars3.6-1", "boston/price", "--with", "thesis", check=True)
    lines = r.stdout.splitlines()
    row = next(x for x in lines if x.startswith("boston/price/std.128"))
    assert row.split()[1:] == ["2", "0.2812", "0.2169", "+0.0643", "0.0295", "<", "0.05"] + [
        "mars3.6-1",
    ]
    i = lines.index(
        "lin-1 better on 0 of 3 tasks (0 significant at 0.05), mars3.6-1 on 3 (0 significant)"
    )
    assert lines[i + 1] == (
        "not counted significant: boston/price/std.128 (`< 0.05`: a quasi-F with fewer than 4 "
        "instances may claim no more; no report, ranking or claim counts it)"
    )
    from delve_bench import api

    ws = api.Workspace(tmp_path).with_study("thesis")
    c = api.compare("lin-1", "mars3.6-1", "boston/price/std.128", root=ws)
    assert c.bounded and c.significant_5pc is False and not c.significant
    assert c.verdict.endswith(
        "p < 0.05, not counted significant (a bound only; Lindman's quasi-F test, 2 instances)"
    )
