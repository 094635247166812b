"""DELVE statistics: ANOVA estimates, paired t-test, Lindman's quasi-F, Bayesian posterior."""

from .anova import Anova, anova
from .bayes import posterior_opposite_mass
from .tests import TestResult, compare_test

__all__ = ["Anova", "TestResult", "anova", "compare_test", "posterior_opposite_mass"]
