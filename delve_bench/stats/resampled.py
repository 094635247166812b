"""The corrected resampled t-test of Nadeau & Bengio (2003), for designs whose training
sets overlap (repeated random splits, the published realisations of Rätsch's benchmarks).

With I resamples, each training on n1 cases and testing on n2, the per-resample mean
differences d_i are correlated through the shared training cases. Nadeau & Bengio
replace the naive variance s^2 / I of their mean by ``(1/I + n2/n1) s^2``:

    t = dbar / sqrt((1/I + n2/n1) s^2),  I - 1 d.o.f., two-sided.

On DELVE's disjoint training sets the d_i are independent and the plain t-test is exact,
so the correction only makes the test conservative (``delve selftest`` measures by how
much).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DelveError
from .tests import TestResult


def corrected_resampled_p_value(d, train_size: int, test_size: int):
    """Two-sided p and t of the corrected resampled t-test for the instance mean
    differences ``d`` of shape ``(..., I)`` (NaN p where all d_i are equal)."""
    d = np.asarray(d, dtype=float)
    I = d.shape[-1]
    if I < 2:
        raise ValueError("the corrected resampled t-test needs at least 2 instances")
    var = d.var(-1, ddof=1) * (1.0 / I + test_size / train_size)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d.mean(-1) / np.sqrt(var)
    from scipy import stats as sps  # on first use: scipy.stats takes ~0.5 s to import

    p = 2 * sps.t.sf(np.abs(t), I - 1)
    constant = np.all(d == d[..., :1], axis=-1)  # no spread: the test is undefined
    return np.where(constant | ~(var > 0), np.nan, p), t


def corrected_resampled_t_test(d, train_size: int, test_size: int) -> TestResult:
    """Nadeau & Bengio's test on instance mean differences ``d`` (length I).

    Parameters
    ----------
    d : array, shape (I,)
        Mean loss difference A - B on each resample's test set.
    train_size, test_size : int
        n1 and n2: cases in each training and test set.
    """
    p, t = corrected_resampled_p_value(d, train_size, test_size)
    I = len(np.asarray(d))
    if np.isnan(p):
        return TestResult(test="corrected t", statistic=None, df=(I - 1,), p=None)
    return TestResult(test="corrected t", statistic=float(t), df=(I - 1,), p=float(p))


@dataclass(frozen=True, kw_only=True)
class ResampledEstimate:
    """A mean loss (or loss difference) over J overlapping realisations, with the same
    correction applied to its SE (``delve stats`` and the reports on a resampled task).

    ``sd_realisations``: SD of the J realisation means; ``sd_test``: pooled SD of the test
    cases within a realisation; ``se``: ``sqrt((1/J + n2/n1) s^2)``; ``se_uncorrected``:
    ``s / sqrt(J)``, what the naive t-test would use (shown for comparison only)."""

    J: int
    n_train: int
    n_test: int
    mean: float
    realisation_means: np.ndarray
    sd_realisations: float
    sd_test: float
    se: float
    se_uncorrected: float

    @property
    def correction(self) -> float:
        """The variance inflation ``(1/J + n2/n1) / (1/J)`` of the corrected test."""
        return 1.0 + self.J * self.n_test / self.n_train


def resampled_estimate(y: np.ndarray, n_train: int) -> ResampledEstimate:
    """Nadeau & Bengio's corrected estimate from a (J realisations x n2 test cases)
    matrix of losses (or loss differences)."""
    y = np.asarray(y, dtype=float)
    J, n2 = y.shape
    if J < 2:
        raise DelveError(f"the resampled design needs at least 2 realisations, got {J}")
    x = y.mean(axis=1)
    s2 = float(np.var(x, ddof=1))
    return ResampledEstimate(
        J=J,
        n_train=int(n_train),
        n_test=n2,
        mean=float(x.mean()),
        realisation_means=x,
        sd_realisations=float(np.sqrt(s2)),
        sd_test=float(np.sqrt(np.mean(np.var(y, axis=1, ddof=1)))) if n2 > 1 else 0.0,
        se=float(np.sqrt((1.0 / J + n2 / n_train) * s2)),
        se_uncorrected=float(np.sqrt(s2 / J)),
    )
