"""Significance of a paired difference (Rasmussen 1996 §2.4-2.5; DELVE 1.1's mstats).

* hierarchical: t = ybar / sqrt(MSa / (I J)) with I-1 d.o.f., two-sided,
  p = I_{nu/(nu+t^2)}(nu/2, 1/2); undefined when MSa = 0;
* 2-way: Lindman's quasi-F = (SSm + MSe) / (MSa + MSb), SSm = I J ybar^2, Satterthwaite
  d.o.f., upper tail; the t-test when MSa + MSb = 0. With fewer than 4 instances a
  quasi-F p below 0.05 is reported as ``p < 0.05`` (the test is anti-conservative there,
  thesis Fig. 2.5; ``delve selftest`` shows it).

:func:`t_p_value` and :func:`quasi_f_p_value` are the one implementation of each test;
they take arrays, so simulations of many studies use them directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..defaults import P_BOUND
from .anova import Anova

BOUNDED_BELOW = 4  # fewer instances: a quasi-F p < 0.05 is reported only as "p < 0.05"
BOUND = P_BOUND


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest test class

    test: str  # 't', 'F', or another test's short name (e.g. 'corrected t')
    statistic: float | None
    df: tuple[float, ...]
    p: float | None  # None: undefined
    bounded: bool = False  # True: report only "p < 0.05"

    @property
    def p_text(self) -> str:
        if self.p is None:
            return "= undefined"
        if self.bounded:
            return f"< {BOUND:g}"
        return f"= {self.p:.9g}"

    @property
    def p_reported(self) -> float | None:
        """The p a decision may use: the bound itself when only ``p < 0.05`` may be
        claimed (so a multiple-test correction never credits the quasi-F with more)."""
        return BOUND if self.bounded else self.p


def t_p_value(mean, ms_a, I: int, J: int):
    """Two-sided p of DELVE's t-test (NaN where MSa = 0) and the t statistic."""
    from scipy.special import betainc  # scipy on first use: `delve stats` starts faster

    mean, ms_a = np.asarray(mean, dtype=float), np.asarray(ms_a, dtype=float)
    nu = I - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        t2 = I * J * mean**2 / ms_a
        p = betainc(nu / 2, 0.5, nu / (nu + t2))
        t = np.sign(mean) * np.sqrt(t2)
    bad = ms_a <= 0
    return np.where(bad, np.nan, p), np.where(bad, np.nan, t)


def quasi_f_p_value(mean, ms_a, ms_b, ms_e, I: int, J: int):
    """Upper-tail p of Lindman's quasi-F, with F, nu1 and nu2 (eq. 2.25).

    Where MSa + MSb = 0 the caller falls back to the t-test; where the numerator is 0
    (no difference and no residual variation) p = 1."""
    from scipy.special import betainc

    mean, ms_a, ms_b, ms_e = (np.asarray(x, dtype=float) for x in (mean, ms_a, ms_b, ms_e))
    ss = I * J * mean**2
    num = ss + ms_e
    den = ms_a + ms_b
    with np.errstate(divide="ignore", invalid="ignore"):
        F = num / den
        nu1 = num**2 / (ss**2 + ms_e**2 / ((I - 1) * (J - 1)))
        nu2 = den**2 / (ms_a**2 / (I - 1) + ms_b**2 / (J - 1))
        p = betainc(nu2 / 2, nu1 / 2, nu2 / (nu2 + nu1 * F))  # P(F_{nu1,nu2} > F)
    p = np.where(num <= 0, 1.0, p)
    return p, F, nu1, nu2


def t_test(a: Anova) -> TestResult:
    nu = a.I - 1
    p, t = t_p_value(a.mean, a.ms_a, a.I, a.J)
    if np.isnan(p):
        return TestResult(test="t", statistic=None, df=(nu,), p=None)
    return TestResult(test="t", statistic=float(t), df=(nu,), p=float(p))


def quasi_f(a: Anova) -> TestResult:
    assert a.ms_b is not None
    if a.ms_a + a.ms_b <= 0:
        return t_test(a)
    p, F, nu1, nu2 = quasi_f_p_value(a.mean, a.ms_a, a.ms_b, a.ms_e, a.I, a.J)
    if a.I * a.J * a.mean**2 + a.ms_e <= 0:  # zero mean difference and no residual variation
        return TestResult(test="F", statistic=0.0, df=(float("nan"), float("nan")), p=1.0)
    p = float(p)
    return TestResult(
        test="F",
        statistic=float(F),
        df=(float(nu1), float(nu2)),
        p=p,
        bounded=a.I < BOUNDED_BELOW and p < BOUND,
    )


def compare_test(a: Anova) -> TestResult:
    """The design's test of H0: expected difference = 0."""
    return t_test(a) if a.design == "hierarchical" else quasi_f(a)
