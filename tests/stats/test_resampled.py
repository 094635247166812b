"""Nadeau & Bengio's corrected resampled t-test and the fixed design, against the formulas."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from delve_bench.errors import DelveError
from delve_bench.stats.resampled import (
    corrected_resampled_t,
    fixed_estimate,
    fixed_split_t,
    resampled_estimate,
)


def test_corrected_resampled_t_matches_its_formula():
    rng = np.random.default_rng(3)
    J, n1, n2 = 10, 400, 4900
    d = rng.normal(0.01, 0.05, size=(J, n2))
    e = resampled_estimate(d, n1)
    x = d.mean(axis=1)  # the realisation means
    s2 = np.sum((x - x.mean()) ** 2) / (J - 1)
    se = np.sqrt((1 / J + n2 / n1) * s2)
    assert e.mean == pytest.approx(x.mean())
    assert e.se == pytest.approx(se)
    assert e.se_uncorrected == pytest.approx(np.sqrt(s2 / J))
    assert e.correction == pytest.approx(1 + J * n2 / n1)
    assert e.sd_test == pytest.approx(np.sqrt(np.mean(d.var(axis=1, ddof=1))))
    r = corrected_resampled_t(e)
    t = x.mean() / se
    assert (r.test, r.df) == ("resampled-t", (J - 1,))
    assert r.statistic == pytest.approx(t)
    assert r.p == pytest.approx(2 * sps.t.sf(abs(t), J - 1))


def test_the_correction_makes_the_test_more_conservative():
    rng = np.random.default_rng(4)
    d = rng.normal(0.02, 0.01, size=(10, 50))
    naive = sps.ttest_1samp(d.mean(axis=1), 0.0).pvalue
    assert corrected_resampled_t(resampled_estimate(d, 100)).p > naive


def test_zero_spread_gives_an_undefined_p():
    r = corrected_resampled_t(resampled_estimate(np.ones((4, 3)), 10))
    assert r.p is None and r.p_text == "= undefined"


def test_fixed_design_uses_the_test_cases():
    v = np.array([[0.0, 1.0, 0.0, 0.0, 1.0, -1.0, 1.0, 0.0]])
    e = fixed_estimate(v, 250)
    assert e.se == pytest.approx(np.std(v, ddof=1) / np.sqrt(8))
    r = fixed_split_t(e)
    assert r.p == pytest.approx(sps.ttest_1samp(v[0], 0.0).pvalue)
    with pytest.raises(DelveError, match="one instance"):
        fixed_estimate(np.ones((2, 3)), 10)
    with pytest.raises(DelveError, match="at least 2 realisations"):
        resampled_estimate(np.ones((1, 3)), 10)
