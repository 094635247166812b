"""DELVE statistics: ANOVA estimates, paired t-test, Lindman's quasi-F, the Bayesian
posterior, and what to do next: power and sample size, corrections for many tests,
rankings over data sets, the tests' own error rates.

Modules: :mod:`.anova`, :mod:`.tests` (the designs' tests), :mod:`.bayes`,
:mod:`.resampled` (Nadeau & Bengio's corrected resampled t-test), :mod:`.permutation`
(sign-flip test), :mod:`.power`, :mod:`.multiple` (Holm, Benjamini-Hochberg),
:mod:`.ranking` (Friedman, Nemenyi, CD groups), :mod:`.simulate`, :mod:`.selftest`,
:mod:`.summary` (the statistics of loss matrices), :mod:`.results` (the result objects).

Numerics only: arrays in, result objects out, no file read or written. Reading stored
results is :mod:`delve_bench.analysis`.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# numpy only; imported here so that ``stats.anova`` is the function, not the module
from .anova import Anova, anova

# the rest on first use: the result types (:mod:`.results`) are needed wherever results
# are handled, e.g. by `delve run`, which should not pay for scipy.stats and
# scipy.integrate (the tests and the posterior) at start-up
_EXPORTS = {
    "Posterior": ".bayes",
    "posterior": ".bayes",
    "posterior_opposite_mass": ".bayes",
    "sign_flip_test": ".permutation",
    "corrected_resampled_t_test": ".resampled",
    "TestResult": ".tests",
    "compare_test": ".tests",
}
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

if TYPE_CHECKING:
    from .bayes import Posterior, posterior, posterior_opposite_mass
    from .permutation import sign_flip_test
    from .resampled import corrected_resampled_t_test
    from .tests import TestResult, compare_test


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
