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

import numpy as np
from scipy import stats as sps

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
        return TestResult("corrected t", None, (I - 1,), None)
    return TestResult("corrected t", float(t), (I - 1,), float(p))
