"""Power and sample size against simulation: the predicted power of each design's test
equals the rejection rate over 2000 simulated studies analysed like real results."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.stats.power import (
    VarianceComponents,
    cheapest_design,
    detectable_difference,
    detectable_tolerance,
    power,
    required_instances,
    required_test_cases,
    sample_size,
    simulated_power,
)

CASES = [
    # design, sigma_a, sigma_e, sigma_b, I, J, delta
    ("hierarchical", 0.02, 0.3, 0.0, 4, 256, 0.03),
    ("hierarchical", 0.02, 0.3, 0.0, 8, 512, 0.02),
    ("hierarchical", 0.1, 1.0, 0.0, 8, 100, 0.1),
    ("2-way", 0.3, 1.0, 0.5, 4, 100, 0.35),
    ("2-way", 0.3, 1.0, 0.5, 8, 100, 0.3),
    ("2-way", 0.05, 1.0, 0.2, 8, 250, 0.07),
]


@pytest.mark.parametrize("design,sa,se,sb,I,J,delta", CASES)
def test_predicted_power_matches_2000_simulated_studies(design, sa, se, sb, I, J, delta):
    vc = VarianceComponents(design=design, var_a=sa**2, var_e=se**2, var_b=sb**2)
    predicted = power(vc, delta, I, J)
    simulated = simulated_power(vc, delta, I, J, studies=2000, rng=np.random.default_rng(I * J))
    assert 0.15 < predicted < 0.95  # a case where the check has teeth
    assert abs(predicted - simulated) <= 0.05


def test_hierarchical_power_is_the_noncentral_t():
    from scipy import stats as sps

    vc = VarianceComponents(design="hierarchical", var_a=0.01, var_e=0.25)
    I, J, d = 6, 200, 0.05
    nc = d / np.sqrt(0.01 / I + 0.25 / (I * J))
    tc = sps.t.ppf(0.975, I - 1)
    want = sps.nct.sf(tc, I - 1, nc) + sps.nct.cdf(-tc, I - 1, nc)
    assert power(vc, d, I, J) == pytest.approx(want, rel=1e-12)
    assert power(vc, 0.0, I, J) == pytest.approx(0.05, rel=1e-9)  # the level under H0


def test_quasi_f_with_fewer_than_4_instances_cannot_reject_below_5_percent():
    vc = VarianceComponents(design="2-way", var_a=0.01, var_e=1.0, var_b=0.01)
    assert power(vc, 10.0, 2, 250, alpha=0.01) == 0.0
    assert power(vc, 10.0, 2, 250, alpha=0.05) > 0.9


def test_sample_size_reaches_the_target_and_no_fewer_does():
    vc = VarianceComponents(design="hierarchical", var_a=0.02**2, var_e=0.3**2)
    d = required_instances(vc, 0.01, 512, 64, 8192)
    assert d is not None and d.power >= 0.8
    assert power(vc, 0.01, d.instances - 1, 512) < 0.8
    assert d.cases == d.instances * (64 + 512) and d.fits == (d.cases <= 8192)
    # the training-set variance alone keeps 8 instances below 80 %: no J is enough
    assert required_test_cases(vc, 0.01, 8, 64, 8192) is None
    assert power(vc, 0.01, 8, 10**8) < 0.8
    j = required_test_cases(vc, 0.03, 8, 64, 8192)
    assert j is not None and j.power >= 0.8 and power(vc, 0.03, 8, j.test_cases - 1) < 0.8


def test_cheapest_design_fits_the_pool_or_says_impossible():
    vc = VarianceComponents(design="hierarchical", var_a=0.02**2, var_e=0.3**2)
    c = cheapest_design(vc, 0.03, 64, 8192)
    assert c is not None and c.fits and c.power >= 0.8
    # one instance fewer cannot reach 80 % with every remaining case as test cases
    spare = (8192 - (c.instances - 1) * 64) // (c.instances - 1)
    assert power(vc, 0.03, c.instances - 1, spare) < 0.8
    assert cheapest_design(vc, 0.005, 64, 8192) is None  # not possible with this data


def test_hierarchical_power_is_scipy_stats_noncentral_t_over_a_grid():
    """power() takes the t quantile and the noncentral t tails from scipy.special; they
    are the numbers scipy.stats' t and nct give, to rounding."""
    from scipy import stats as sps

    for I in (2, 3, 4, 8, 30, 200):
        for alpha in (0.001, 0.01, 0.05, 0.2):
            for sa, se, J in ((0.02, 0.3, 512), (0.5, 0.1, 4), (0.1, 1.0, 100)):
                vc = VarianceComponents(design="hierarchical", var_a=sa**2, var_e=se**2)
                sd = np.sqrt(vc.var_mean(I, J))
                for k in (0.0, 0.3, 1.0, 2.5, 6.0, 40.0):
                    df, nc = I - 1, k
                    tc = sps.t.isf(alpha / 2, df)
                    lower = sps.nct.cdf(-tc, df, nc)
                    want = sps.nct.sf(tc, df, nc) + (lower if np.isfinite(lower) else 0.0)
                    got = power(vc, k * sd, I, J, alpha)
                    assert got == pytest.approx(min(1.0, want), rel=1e-14, abs=1e-300)


@pytest.mark.parametrize(
    "vc,I,J",
    [
        (VarianceComponents(design="hierarchical", var_a=0.02**2, var_e=0.3**2), 8, 512),
        (VarianceComponents(design="hierarchical", var_a=0.5**2, var_e=0.1**2), 2, 100),
        (VarianceComponents(design="2-way", var_a=0.3**2, var_e=1.0, var_b=0.5**2), 8, 100),
        (VarianceComponents(design="2-way", var_a=0.3**2, var_e=1.0, var_b=0.5**2), 2, 250),
    ],
)
def test_detectable_difference_is_the_smallest_with_the_target_power(vc, I, J):
    """It reaches 80 %, and a difference one tolerance smaller does not (for the quasi-F,
    whose simulated power is a staircase, the start of the step that reaches 80 %)."""
    d = detectable_difference(vc, I, J)
    tol = detectable_tolerance(vc, float(np.sqrt(vc.var_mean(I, J))))
    assert d is not None
    assert power(vc, d, I, J) >= 0.8
    assert power(vc, d - tol, I, J) < 0.8
    assert power(vc, d, I, J) == pytest.approx(0.8, abs=0.005)


def test_the_bracket_search_finds_the_start_of_a_step():
    """On a staircase the search returns the first point of the step at or above 0,
    within the tolerance, where a root finder could stop anywhere on that step."""
    from delve_bench.stats.power import _first_reaching

    def stairs(x: float) -> float:
        return np.floor(10 * x) / 10 - 0.3  # 0 from x = 0.3 on, a step of 0.1 wide

    x = _first_reaching(stairs, 0.0, stairs(0.0), 1.0, stairs(1.0), 1e-9)
    assert 0.3 <= x <= 0.3 + 1e-9
    smooth = _first_reaching(lambda v: v**3 - 2.0, 0.0, -2.0, 2.0, 6.0, 1e-12)
    assert 2 ** (1 / 3) <= smooth <= 2 ** (1 / 3) + 1e-12
    # a tolerance below the floats' spacing ends at two neighbouring floats
    x = _first_reaching(stairs, 0.0, stairs(0.0), 1.0, stairs(1.0), 0.0)
    assert stairs(x) >= 0 > stairs(np.nextafter(x, 0.0))


def test_two_way_advice_never_proposes_fewer_than_4_instances():
    vc = VarianceComponents(design="2-way", var_a=0.0004, var_e=1.0, var_b=0.0001)
    s = sample_size(vc, 1.0, 2, 250, 128, 506)
    assert s.min_instances == 4
    assert s.cheapest is None or s.cheapest.instances >= 4
    assert s.more_test_cases is None  # 2 instances: never advised


def test_hierarchical_power_and_sample_size_equal_statsmodels_ttestpower():
    from statsmodels.stats.power import TTestPower

    vc = VarianceComponents(design="hierarchical", var_a=0.02**2, var_e=0.3**2)
    J = 512
    for I, d in ((4, 0.03), (8, 0.02), (32, 0.01)):
        es = d / np.sqrt(vc.var_a + vc.var_e / J)  # effect size of the instance means
        want = TTestPower().power(es, I, 0.05, alternative="two-sided")
        assert power(vc, d, I, J) == pytest.approx(want, rel=1e-9)
    es = 0.01 / np.sqrt(vc.var_a + vc.var_e / J)
    n = TTestPower().solve_power(es, None, 0.05, 0.8, alternative="two-sided")
    assert required_instances(vc, 0.01, J, 64, 8192).instances == int(np.ceil(n))
