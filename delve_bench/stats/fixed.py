"""Statistics for one published split (the fixed design, e.g. Ripley's training and test
sets): with a single training set nothing can be said about the variation over training
sets, so the SE and the paired t-test use the test cases only (SE = sd / sqrt(n2),
n2 - 1 degrees of freedom), and every output says so."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DelveError
from .tests import TestResult


@dataclass(frozen=True, kw_only=True)
class FixedEstimate:
    """A mean loss (or difference) on one training set: test-case variation only."""

    n_train: int
    n_test: int
    mean: float
    sd_test: float
    se: float


def fixed_estimate(y: np.ndarray, n_train: int) -> FixedEstimate:
    """Mean and test-case SE from a (1 x n2) matrix of losses (or differences)."""
    y = np.asarray(y, dtype=float)
    if y.shape[0] != 1:
        raise DelveError(f"the fixed design has one instance, got {y.shape[0]}")
    v = y[0]
    if len(v) < 2:
        raise DelveError("the fixed design needs at least 2 test cases")
    sd = float(np.std(v, ddof=1))
    return FixedEstimate(
        n_train=int(n_train),
        n_test=len(v),
        mean=float(v.mean()),
        sd_test=sd,
        se=sd / np.sqrt(len(v)),
    )


def fixed_split_t(e: FixedEstimate) -> TestResult:
    """Paired t-test over the test cases of the one training set."""
    from scipy.special import betainc  # scipy on first use: `delve stats` starts faster

    nu = e.n_test - 1
    if e.se <= 0:
        return TestResult(test="case t", statistic=None, df=(nu,), p=None)
    t = e.mean / e.se
    return TestResult(
        test="case t",
        statistic=float(t),
        df=(nu,),
        p=float(betainc(nu / 2, 0.5, nu / (nu + t * t))),
    )
