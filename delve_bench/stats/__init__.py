"""DELVE statistics: ANOVA estimates, paired t-test, Lindman's quasi-F, the Bayesian
posterior, and what to do next: power and sample size, corrections for many tests,
rankings over data sets, the tests' own error rates.

Modules: :mod:`.anova`, :mod:`.tests` (the designs' tests), :mod:`.bayes`,
:mod:`.resampled` (Nadeau & Bengio's corrected resampled t-test), :mod:`.permutation`
(sign-flip test), :mod:`.power`, :mod:`.multiple` (Holm, Benjamini-Hochberg),
:mod:`.ranking` (Friedman, Nemenyi, CD groups), :mod:`.simulate`, :mod:`.selftest`,
:mod:`.summary` (statistics of stored results).
"""

from .anova import Anova, anova
from .bayes import Posterior, posterior, posterior_opposite_mass
from .permutation import sign_flip_test
from .resampled import corrected_resampled_t_test
from .tests import TestResult, compare_test

__all__ = [
    "Anova",
    "Posterior",
    "TestResult",
    "anova",
    "compare_test",
    "corrected_resampled_t_test",
    "posterior",
    "posterior_opposite_mass",
    "sign_flip_test",
]
