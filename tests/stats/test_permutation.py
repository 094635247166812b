"""The sign-flip permutation test against exhaustive enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from delve_bench.errors import DelveError
from delve_bench.stats.permutation import sign_flip_test


def _enumerate(d: np.ndarray) -> float:
    obs = abs(d.sum())
    hits = sum(
        abs(np.dot(s, d)) >= obs - 1e-12 for s in itertools.product((-1.0, 1.0), repeat=len(d))
    )
    return hits / 2 ** len(d)


@pytest.mark.parametrize("I", [2, 3, 5, 8, 11])
def test_exact_p_equals_full_enumeration(I):
    rng = np.random.default_rng(I)
    for _ in range(5):
        d = rng.normal(0.3, 1.0, size=I)
        r = sign_flip_test(d)
        assert r.exact and r.patterns == 2**I
        assert r.p == pytest.approx(_enumerate(d), abs=0)
        assert r.statistic == pytest.approx(d.mean())


def test_ties_count_as_extreme():
    # 0/1-loss differences are often equal: every pattern ties with the observed sum here
    d = np.array([0.5, -0.5, 0.5, -0.5])
    assert sign_flip_test(d).p == 1.0 == _enumerate(d)
    d = np.array([0.25, 0.25, 0.25])  # only +++ and --- reach |sum| = 0.75
    r = sign_flip_test(d)
    assert r.p == pytest.approx(2 / 8) and r.p == r.min_p


def test_many_instances_fall_back_to_seeded_random_patterns():
    d = np.random.default_rng(0).normal(0.0, 1.0, size=24)
    r = sign_flip_test(d)
    assert not r.exact and r.patterns == 1 << 16
    assert r.p == sign_flip_test(d).p  # fixed seed: reproducible
    assert 0 < r.p <= 1


def test_one_instance_is_an_error():
    with pytest.raises(DelveError, match="at least 2 instances"):
        sign_flip_test(np.array([0.1]))
