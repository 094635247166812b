"""The sign-flip permutation test against exhaustive enumeration, and Nadeau & Bengio's
corrected resampled t-test against its formula."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from delve_bench.stats import corrected_resampled_t_test, sign_flip_test
from delve_bench.stats.permutation import sign_flip_p_value


def brute_force_sign_flip(d):
    d = np.asarray(d, dtype=float)
    obs = abs(d.mean())
    hits = [
        abs(np.mean(np.array(s) * d)) >= obs - 1e-12
        for s in itertools.product((-1, 1), repeat=len(d))
    ]
    return np.mean(hits)


def test_sign_flip_equals_exhaustive_enumeration():
    rng = np.random.default_rng(0)
    for I in (2, 3, 5, 8, 10):
        for _ in range(5):
            d = rng.normal(0.3, 1, I)
            assert sign_flip_test(d).p == pytest.approx(brute_force_sign_flip(d), abs=1e-12)
    # ties (equal |d_i|) count as at least as extreme
    assert sign_flip_test([1.0, 1.0, -1.0, 1.0]).p == pytest.approx(
        brute_force_sign_flip([1, 1, -1, 1])
    )
    assert sign_flip_test([0.1, 0.2]).p == 0.5  # 2 instances: p is never below 1/2


def test_sign_flip_vectorised_over_studies_and_sampled_for_many_instances():
    rng = np.random.default_rng(1)
    D = rng.normal(size=(50, 6))
    batch = sign_flip_p_value(D)
    assert batch == pytest.approx([brute_force_sign_flip(d) for d in D])
    big = rng.normal(0.0, 1, 24)
    r = sign_flip_test(big, resamples=20000, rng=np.random.default_rng(2))
    assert r.test == "sign-flip (sampled)"
    assert r.p == pytest.approx(sps.ttest_1samp(big, 0).pvalue, abs=0.1)


def test_corrected_resampled_t_is_nadeau_bengio():
    d = np.array([0.02, -0.01, 0.03, 0.05, 0.0, 0.04, 0.01, 0.02, 0.03, 0.015])
    n1, n2 = 400, 4900
    t = d.mean() / np.sqrt((1 / 10 + n2 / n1) * d.var(ddof=1))
    r = corrected_resampled_t_test(d, n1, n2)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p == pytest.approx(2 * sps.t.sf(abs(t), 9), rel=1e-12)
    assert r.df == (9,) and r.test == "corrected t"
    # without the overlap term it is the ordinary one-sample t-test
    plain = corrected_resampled_t_test(d, 10**12, 1)
    assert plain.p == pytest.approx(sps.ttest_1samp(d, 0).pvalue, rel=1e-6)
    assert corrected_resampled_t_test([0.1, 0.1, 0.1], 10, 10).p is None
