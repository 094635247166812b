"""Significance of a paired difference (spec/evaluation.md §2.5, §3.4-3.5).

* hierarchical: t = ybar / sqrt(MSa / (I J)) with I-1 d.o.f., two-sided,
  p = I_{nu/(nu+t^2)}(nu/2, 1/2); undefined when MSa = 0;
* 2-way: Lindman's quasi-F = (SSm + MSe) / (MSa + MSb), SSm = I J ybar^2, Satterthwaite
  d.o.f., upper tail; the t-test when MSa + MSb = 0. With fewer than 4 instances a
  quasi-F p below 0.05 is reported as ``p < 0.05`` (the test is anti-conservative there).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import betainc

from .anova import Anova


@dataclass(frozen=True)
class TestResult:
    test: str  # 't' or 'F'
    statistic: float | None
    df: tuple[float, ...]
    p: float | None  # None: undefined
    bounded: bool = False  # True: report only "p < 0.05"

    @property
    def p_text(self) -> str:
        if self.p is None:
            return "= undefined"
        if self.bounded:
            return "< 0.05"
        return f"= {self.p:.9g}"


def t_test(a: Anova) -> TestResult:
    nu = a.I - 1
    if a.ms_a <= 0:
        return TestResult("t", None, (nu,), None)
    t2 = a.I * a.J * a.mean**2 / a.ms_a
    p = float(betainc(nu / 2, 0.5, nu / (nu + t2)))
    return TestResult("t", float(np.sign(a.mean) * np.sqrt(t2)), (nu,), p)


def quasi_f(a: Anova) -> TestResult:
    I, J = a.I, a.J
    den = a.ms_a + a.ms_b
    if den <= 0:
        return t_test(a)
    ss = I * J * a.mean**2
    num = ss + a.ms_e
    F = num / den
    if num <= 0:  # zero mean difference and no residual variation: no evidence at all
        return TestResult("F", 0.0, (float("nan"), float("nan")), 1.0)
    nu1 = num**2 / (ss**2 + a.ms_e**2 / ((I - 1) * (J - 1)))
    nu2 = den**2 / (a.ms_a**2 / (I - 1) + a.ms_b**2 / (J - 1))
    p = float(betainc(nu2 / 2, nu1 / 2, nu2 / (nu2 + nu1 * F)))  # P(F_{nu1,nu2} > F)
    return TestResult("F", float(F), (float(nu1), float(nu2)), p, bounded=I < 4 and p < 0.05)


def compare_test(a: Anova) -> TestResult:
    """The design's test of H0: expected difference = 0."""
    return t_test(a) if a.design == "hierarchical" else quasi_f(a)
