"""Statistics for published train/test realisations: the resampled and fixed designs.

**Resampled design** (e.g. Rätsch's IDA splits). J realisations, each training on n1
cases and testing on n2, drawn from one pool, so the training sets overlap and the
ANOVA's independence assumption fails: the J realisation means are positively
correlated, and their naive variance ``s^2 / J`` underestimates the variance of their
mean. Nadeau & Bengio (2003, "Inference for the generalization error", Machine
Learning 52: 239-281, §4) correct it with the ratio of test to training size:

    xbar = mean_j x_j,   s^2 = sum_j (x_j - xbar)^2 / (J - 1),
    SE = sqrt((1/J + n2/n1) s^2),   t = xbar / SE  with J - 1 degrees of freedom,

where x_j is the mean loss (or, for a comparison, the mean loss difference A - B) on
realisation j. We apply the same corrected SE to one method's expected loss.

**Fixed design** (one published split, e.g. Ripley's). With one training set nothing can
be said about the variation over training sets; the SE and the paired t-test use the
test cases only (SE = sd / sqrt(n2), n2 - 1 degrees of freedom) and are labelled so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betainc

from ..errors import DelveError
from .tests import TestResult


@dataclass(frozen=True, kw_only=True)
class ResampledEstimate:
    """A mean loss (or loss difference) over J overlapping realisations.

    ``sd_realisations``: SD of the J realisation means; ``sd_test``: pooled SD of the test
    cases within a realisation; ``se``: the corrected SE; ``se_uncorrected``: ``s/sqrt(J)``,
    what the naive t-test would use (for comparison only)."""

    design: str = "resampled"
    J: int
    n_train: int
    n_test: int
    mean: float
    sd_realisations: float
    sd_test: float
    se: float
    se_uncorrected: float

    @property
    def correction(self) -> float:
        """The variance inflation ``(1/J + n2/n1) / (1/J)`` of the corrected test."""
        return 1.0 + self.J * self.n_test / self.n_train


@dataclass(frozen=True, kw_only=True)
class FixedEstimate:
    """A mean loss (or difference) on one training set: test-case variation only."""

    design: str = "fixed"
    n_train: int
    n_test: int
    mean: float
    sd_test: float
    se: float


def resampled_estimate(y: np.ndarray, n_train: int) -> ResampledEstimate:
    """Nadeau & Bengio's corrected estimate from a (J realisations x n2 test cases)
    matrix of losses (or loss differences)."""
    y = np.asarray(y, dtype=float)
    J, n2 = y.shape
    if J < 2:
        raise DelveError(f"the resampled design needs at least 2 realisations, got {J}")
    x = y.mean(axis=1)
    mean = float(x.mean())
    s2 = float(np.var(x, ddof=1))
    sd_test = float(np.sqrt(np.mean(np.var(y, axis=1, ddof=1)))) if n2 > 1 else 0.0
    return ResampledEstimate(
        J=J,
        n_train=int(n_train),
        n_test=n2,
        mean=mean,
        sd_realisations=float(np.sqrt(s2)),
        sd_test=sd_test,
        se=float(np.sqrt((1.0 / J + n2 / n_train) * s2)),
        se_uncorrected=float(np.sqrt(s2 / J)),
    )


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


def _two_sided_t(t: float, nu: float) -> float:
    return float(betainc(nu / 2, 0.5, nu / (nu + t * t)))


def corrected_resampled_t(e: ResampledEstimate) -> TestResult:
    """Nadeau & Bengio's corrected resampled t-test of H0: expected difference = 0."""
    nu = e.J - 1
    if e.se <= 0:
        return TestResult("resampled-t", None, (nu,), None)
    t = e.mean / e.se
    return TestResult("resampled-t", float(t), (nu,), _two_sided_t(t, nu))


def fixed_split_t(e: FixedEstimate) -> TestResult:
    """Paired t-test over the test cases of the one training set (fixed design)."""
    nu = e.n_test - 1
    if e.se <= 0:
        return TestResult("case-t", None, (nu,), None)
    t = e.mean / e.se
    return TestResult("case-t", float(t), (nu,), _two_sided_t(t, nu))
