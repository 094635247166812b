"""Medians of per-case Gaussian mixtures (the A loss of gp-mc-1 and mlp-mc-1)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from delve_bench.numerics.mixture import mixture_median, sampled_median


def test_mixture_median_is_the_exact_root_of_the_mixture_cdf():
    rng = np.random.default_rng(3)
    means = rng.standard_normal((6, 5)) * 2
    sds = np.exp(rng.standard_normal(5))  # one variance per component, broadcast over cases
    med = mixture_median(means, sds**2)
    for j in range(6):
        f = lambda t, j=j: norm.cdf((t - means[j]) / sds).mean() - 0.5  # noqa: E731
        assert med[j] == pytest.approx(brentq(f, -50, 50, xtol=1e-14), abs=1e-10)
    # a single component is its own median
    np.testing.assert_allclose(mixture_median(means[:, :1], 0.09), means[:, 0], atol=1e-12)


def test_weights_and_per_case_variances():
    rng = np.random.default_rng(0)
    means, vars = rng.standard_normal((5, 26)), rng.uniform(0.1, 2, (5, 26))
    w = rng.uniform(0.5, 2, 26)
    med = mixture_median(means, vars, weights=w)
    cdf = norm.cdf((med[:, None] - means) / np.sqrt(vars)) @ (w / w.sum())
    np.testing.assert_allclose(cdf, 0.5, atol=1e-12)


def test_the_thesis_sampled_median_estimates_it():
    rng = np.random.default_rng(0)
    means, vars = rng.standard_normal((5, 26)), rng.uniform(0.1, 2, (5, 26))
    exact = mixture_median(means, vars)
    np.testing.assert_allclose(sampled_median(means, vars, rng, draws=2000), exact, atol=0.05)
    assert sampled_median(means, vars, rng).shape == (5,)  # the thesis' 11 draws
