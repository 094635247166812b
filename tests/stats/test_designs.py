"""The resampled and fixed designs' estimates, and the statistics of stored results under
them, against their formulas."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from delve_bench.errors import DelveError
from delve_bench.losses import standardizer
from delve_bench.stats.fixed import fixed_estimate, fixed_split_t
from delve_bench.stats.resampled import resampled_estimate
from delve_bench.stats.summary import compare, summarize


def test_resampled_estimate_applies_the_nadeau_bengio_correction():
    rng = np.random.default_rng(3)
    J, n1, n2 = 10, 400, 4900
    y = rng.normal(0.1, 0.3, size=(J, n2))
    e = resampled_estimate(y, n1)
    x = y.mean(axis=1)  # the realisation means
    s2 = np.sum((x - x.mean()) ** 2) / (J - 1)
    assert e.mean == pytest.approx(x.mean())
    assert e.se == pytest.approx(np.sqrt((1 / J + n2 / n1) * s2))
    assert e.se_uncorrected == pytest.approx(np.sqrt(s2 / J))
    assert e.correction == pytest.approx(1 + J * n2 / n1)
    assert e.sd_test == pytest.approx(np.sqrt(np.mean(y.var(axis=1, ddof=1))))
    with pytest.raises(DelveError, match="at least 2 realisations"):
        resampled_estimate(y[:1], n1)


def test_compare_under_the_resampled_design():
    rng = np.random.default_rng(5)
    ya = rng.random((10, 300)) < 0.25
    yb = rng.random((10, 300)) < 0.3
    st = standardizer("Z", np.r_[np.zeros(70), np.ones(30)], categorical=True)
    c = compare(ya.astype(float), yb.astype(float), "resampled", st, n_train=700)
    d = ya.mean(1) - yb.mean(1)
    se = np.sqrt((1 / 10 + 300 / 700) * d.var(ddof=1))
    assert c.test == "corrected t" and c.df == [9]
    assert c.se == pytest.approx(se) and c.standardized["se"] == pytest.approx(se / 0.3)
    assert c.p == pytest.approx(2 * sps.t.sf(abs(d.mean() / se), 9))
    assert c.permutation.exact and c.permutation.patterns == 1024
    s = summarize(ya.astype(float), "resampled", st, n_train=700)
    assert s.se == pytest.approx(np.sqrt((1 / 10 + 300 / 700) * ya.mean(1).var(ddof=1)))


def test_fixed_design_uses_the_test_cases():
    v = np.array([[0.0, 1.0, 0.0, 0.0, 1.0, -1.0, 1.0, 0.0]])
    e = fixed_estimate(v, 250)
    assert e.se == pytest.approx(np.std(v, ddof=1) / np.sqrt(8))
    r = fixed_split_t(e)
    assert r.test == "case t" and r.p == pytest.approx(sps.ttest_1samp(v[0], 0.0).pvalue)
    with pytest.raises(DelveError, match="one instance"):
        fixed_estimate(np.ones((2, 3)), 10)
    st = standardizer("Z", np.r_[np.zeros(5), np.ones(5)], categorical=True)
    c = compare(v, np.zeros_like(v), "fixed", st, n_train=250)
    assert c.permutation is None and c.test == "case t"
