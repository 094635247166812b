"""Exact paired permutation test by sign flips over instances.

Under H0 (no difference between A and B, and a distribution of the per-instance mean
differences d_i symmetric about 0), every one of the 2^I sign patterns of the d_i is
equally likely. The two-sided p is the fraction of patterns whose |mean| is at least the
observed one. It needs neither normality nor equal variances, but it is discrete: with I
instances the smallest p is 2 / 2^I (0.5 with 2 instances, 0.125 with 4, 0.0078 with 8),
so fewer than 6 instances can never give p < 0.05.

Up to ``MAX_EXACT`` instances every pattern is enumerated; above, ``resamples`` random
patterns are drawn (with the observed one counted, so p > 0).
"""

from __future__ import annotations

import numpy as np

from .tests import TestResult

MAX_EXACT = 16
_CHUNK = 1 << 22  # sign patterns x studies evaluated at once (memory bound)


def _patterns(I: int) -> np.ndarray:
    """All 2^I sign patterns as a (2^I, I) matrix of +-1."""
    bits = (np.arange(1 << I)[:, None] >> np.arange(I)[None, :]) & 1
    return 1.0 - 2.0 * bits


def sign_flip_p_value(d, resamples: int = 100_000, rng: np.random.Generator | None = None):
    """Two-sided sign-flip p for instance mean differences ``d`` of shape ``(..., I)``."""
    d = np.asarray(d, dtype=float)
    I = d.shape[-1]
    flat = d.reshape(-1, I)
    observed = np.abs(flat.sum(-1))
    # relative slack so that patterns equal to the observed |sum| up to rounding count
    tol = 1e-9 * np.abs(flat).sum(-1)
    if I <= MAX_EXACT:
        signs = _patterns(I)
        total = len(signs)
        extra = 0
    else:
        rng = rng or np.random.default_rng(0)
        signs = rng.choice([-1.0, 1.0], size=(resamples, I))
        total = resamples + 1
        extra = 1  # the observed pattern
    count = np.zeros(len(flat))
    step = max(1, _CHUNK // len(signs))
    for s in range(0, len(flat), step):
        sums = np.abs(flat[s : s + step] @ signs.T)
        count[s : s + step] = (sums >= (observed - tol)[s : s + step, None]).sum(-1)
    return ((count + extra) / total).reshape(d.shape[:-1])


def sign_flip_test(d, resamples: int = 100_000, rng: np.random.Generator | None = None):
    """The sign-flip test of instance mean differences ``d`` (length I) as a
    :class:`TestResult` (statistic: the mean difference)."""
    d = np.asarray(d, dtype=float)
    p = float(sign_flip_p_value(d, resamples, rng))
    exact = len(d) <= MAX_EXACT
    return TestResult(
        test="sign-flip" if exact else "sign-flip (sampled)",
        statistic=float(d.mean()),
        df=(float(2 ** len(d)) if exact else float(resamples),),
        p=p,
    )
