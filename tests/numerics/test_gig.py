"""The generalised inverse Gaussian draw of mlp-mc-1's top-level ARD precisions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from delve_bench.numerics.gig import gig_draw


@pytest.mark.parametrize("p", [-3.75, -0.25, 0.3, 1.0, 2.5])
@pytest.mark.parametrize("b", [0.05, 0.7, 1.5, 40.0])
def test_draws_are_scipys(p, b):
    """The same method and uniforms as scipy's geninvgauss (all three of its branches:
    ratio of uniforms with and without the mode shift, and the corner left to scipy), so
    a seeded chain keeps its draws."""
    a, c = np.random.default_rng(11), np.random.default_rng(11)
    ref = [float(stats.geninvgauss.rvs(p, b, scale=0.7, random_state=a)) for _ in range(50)]
    ours = [gig_draw(p, b, c) * 0.7 for _ in range(50)]
    assert ours == ref
    assert a.random() == c.random()  # and the generators stay in step


def test_draws_follow_the_gig_distribution():
    rng = np.random.default_rng(2)
    x = np.array([gig_draw(-3.75, 2.0, rng) for _ in range(4000)])
    assert stats.kstest(x, stats.geninvgauss(-3.75, 2.0).cdf).pvalue > 1e-3
