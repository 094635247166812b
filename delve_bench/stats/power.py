"""Power and sample size of DELVE's paired tests, from the variance components of the
difference A - B (Rasmussen 1996 §2.4-2.5).

Hierarchical design: the instance means of the difference are independent
N(mu, sigma_a^2 + sigma_e^2 / J), so DELVE's t statistic is exactly noncentral t with
I - 1 d.o.f. and noncentrality ``mu / SD(ybar)``, ``SD(ybar)^2 = sigma_a^2 / I +
sigma_e^2 / (I J)``: its power is computed exactly.

2-way design: the quasi-F has no closed-form power. In the balanced crossed
random-effects model the grand mean and the three sums of squares are independent, with
``ybar ~ N(mu, sigma_a^2/I + sigma_b^2/J + sigma_e^2/(IJ))``, ``SSa ~ (J sigma_a^2 +
sigma_e^2) chi2_{I-1}``, ``SSb ~ (I sigma_b^2 + sigma_e^2) chi2_{J-1}``, ``SSe ~ sigma_e^2
chi2_{(I-1)(J-1)}``. Drawing these four numbers per simulated study and applying the
quasi-F (the same function ``delve compare`` uses) gives its power by simulation, with a
fixed seed (deterministic) and common random numbers across designs (smooth in I, J).
``DELVE's p < 0.05`` rule for fewer than 4 instances is applied: below alpha = 0.05 such a
design can never reject.

Sample sizes respect the data: a prototask has N cases; I disjoint training sets of n
cases and their test cases must fit (hierarchical: I (n + J) <= N; 2-way: I n + J <= N).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..defaults import ALPHA
from .anova import Anova
from .draws import _DRAWS, Draws
from .results import BOUND, BOUNDED_BELOW
from .tests import quasi_f_p_value, t_p_value

MAX_INSTANCES = 100_000
MAX_TEST_CASES = 10**9


class PowerMemo(Protocol):
    """Where a caller keeps the quasi-F's simulated powers, by ``(components, alpha, I, J,
    |delta|)``: a dict for one process, or :mod:`delve_bench.analysis.powers`' store
    that a later command reads back (this module reads no files). A 2-way power costs
    10 to 20 ms of simulation, and a compare's hints or ``delve power`` ask for the same
    few dozen at every run."""

    def get(self, key: tuple, /) -> float | None: ...

    def __setitem__(self, key: tuple, value: float, /) -> None: ...


@dataclass(frozen=True)
class VarianceComponents:
    """Variance components of the paired difference (in one unit, raw or standardised).

    ``var_a``: training sets and stochastic training; ``var_e``: test cases, stochastic
    prediction and interactions (hierarchical) or interactions and stochastic prediction
    (2-way); ``var_b``: test cases (2-way only, else 0)."""

    design: str
    var_a: float
    var_e: float
    var_b: float = 0.0

    @classmethod
    def from_anova(cls, a: Anova) -> VarianceComponents:
        """The DELVE estimates (eqs. 2.7 / 2.23, truncated at 0)."""
        return cls(a.design, a.var_a, a.ms_e, a.var_b or 0.0)

    def scaled(self, scale: float) -> VarianceComponents:
        """The same components for the loss divided by ``scale``."""
        s2 = scale * scale
        return VarianceComponents(
            design=self.design, var_a=self.var_a / s2, var_e=self.var_e / s2, var_b=self.var_b / s2
        )

    def var_mean(self, I: int, J: int) -> float:
        """Variance of the estimated expected difference with I instances, J test cases
        (eq. 2.4 / 2.20)."""
        return self.var_a / I + self.var_b / J + self.var_e / (I * J)


@dataclass(frozen=True)
class Design:
    """A design and its power: ``instances`` training sets, ``test_cases`` per instance
    (hierarchical) or in the common test set (2-way), and the cases it uses."""

    instances: int
    test_cases: int
    power: float
    cases: int
    fits: bool  # within the prototask's case pool


def cases_used(design: str, I: int, J: int, n: int) -> int:
    """Cases I training sets of n and their test cases use (disjoint, as DELVE needs)."""
    return I * (n + J) if design == "hierarchical" else I * n + J


def power(
    vc: VarianceComponents,
    delta: float,
    I: int,
    J: int,
    alpha: float = ALPHA,
    draws: Draws | None = None,
    memo: PowerMemo | None = None,
) -> float:
    """Probability that the design's test rejects H0: mu = 0 at level ``alpha`` when
    the expected difference is ``delta``, with I instances and J test cases.

    ``memo`` keeps the 2-way design's simulated powers (only those of the shared draws,
    ``draws`` None): one it holds is not simulated again."""
    if I < 2 or J < 2:
        raise ValueError("the tests need at least 2 instances and 2 test cases")
    delta = abs(float(delta))
    v = vc.var_mean(I, J)
    if v <= 0:
        return 1.0 if delta > 0 else 0.0
    if vc.design == "hierarchical":
        # scipy.special's functions, not scipy.stats' t and nct (0.7 s to import, where a
        # compare's hints need only these): scipy.stats computes t.isf(q) as
        # -stdtrit(df, q), nct.cdf as nctdtr, and nct.sf as the cdf of -T ~ nct(df, -nc)
        # at -tc, so the numbers are the same
        from scipy.special import nctdtr, stdtrit

        df = I - 1
        tc = -float(stdtrit(df, alpha / 2))
        nc = delta / np.sqrt(v)
        upper = float(np.clip(nctdtr(df, -nc, -tc), 0.0, 1.0))
        if not np.isfinite(upper):
            upper = 1.0 - float(nctdtr(df, nc, tc))
        # the wrong-sign tail; nctdtr gives NaN for it far out, where it is < 1e-15
        lower = float(nctdtr(df, nc, -tc))
        if not np.isfinite(lower):
            lower = 0.0
        return float(min(1.0, upper + lower))
    if I < BOUNDED_BELOW and alpha < BOUND:
        return 0.0  # only "p < 0.05" may be reported
    if memo is None or draws is not None:
        return _quasi_f_power(vc, delta, I, J, alpha, draws or _DRAWS)
    key = (vc, alpha, I, J, delta)
    p = memo.get(key)
    if p is None:
        p = memo[key] = _quasi_f_power(vc, delta, I, J, alpha, _DRAWS)
    return p


def _quasi_f_power(
    vc: VarianceComponents, delta: float, I: int, J: int, alpha: float, draws: Draws
) -> float:
    """The 2-way branch of :func:`power`: the share of the simulated studies of ``draws``
    whose size-corrected quasi-F rejects (``delta`` >= 0, a design that can reject)."""
    v = vc.var_mean(I, J)
    z, ca, cb, ce = draws.get(I, J)
    ea = J * vc.var_a + vc.var_e  # expected mean squares
    eb = I * vc.var_b + vc.var_e
    mean = delta + np.sqrt(v) * z
    ms_a, ms_b, ms_e = ea * ca, eb * cb, vc.var_e * ce
    p, *_ = quasi_f_p_value(mean, ms_a, ms_b, ms_e, I, J)
    # MSa + MSb = 0 cannot happen with continuous draws unless every component is 0.
    # The size-corrected test (stats.level): where the raw quasi-F is liberal, a power
    # from its nominal threshold would count false rejections as power
    return float(np.mean(p < _critical(vc, I, J, alpha)))


@functools.lru_cache(maxsize=256)
def _critical(vc: VarianceComponents, I: int, J: int, alpha: float) -> float:
    """:func:`.level.critical_p` (two simulations of the null), once per design: it does
    not depend on the difference, whose power a root finder asks for many times."""
    from .level import critical_p

    return critical_p(vc, I, J, alpha)


def simulated_power(
    vc: VarianceComponents,
    delta: float,
    I: int,
    J: int,
    alpha: float = ALPHA,
    studies: int = 2000,
    rng: np.random.Generator | None = None,
) -> float:
    """Rejection rate over ``studies`` simulated loss matrices (the check of
    :func:`power`): each study draws a_i, b_j, e_ij from the components and is analysed
    by :func:`~.anova.mean_squares` and the design's test, exactly as real results are."""
    from .anova import mean_squares
    from .simulate import batches, simulate_losses

    if vc.design == "2-way" and I < BOUNDED_BELOW and alpha < BOUND:
        return 0.0
    rng = rng or np.random.default_rng(0)
    rejected = 0
    for n in batches(studies, I, J):
        y = simulate_losses(vc, I, J, n, rng, mean=delta)
        ms = mean_squares(y, vc.design)
        if vc.design == "hierarchical":
            p, _ = t_p_value(ms.mean, ms.ms_a, I, J)
        else:
            assert ms.ms_b is not None
            p, *_ = quasi_f_p_value(ms.mean, ms.ms_a, ms.ms_b, ms.ms_e, I, J)
            p = np.where(p < _critical(vc, I, J, alpha), 0.0, 1.0)  # the size-corrected test
        rejected += int(np.sum(p < alpha))
    return rejected / studies


def detectable_difference(
    vc: VarianceComponents,
    I: int,
    J: int,
    alpha: float = ALPHA,
    target: float = 0.8,
    memo: PowerMemo | None = None,
) -> float | None:
    """The smallest expected difference the design detects with probability ``target``
    (None when no difference can be, e.g. a quasi-F with < 4 instances and alpha < 0.05).

    The answer reaches ``target`` and a difference :func:`detectable_tolerance` smaller
    does not. ``memo``: :func:`power`'s."""
    sd = float(np.sqrt(vc.var_mean(I, J)))
    if sd <= 0:
        return 0.0

    def short(d: float) -> float:  # < 0 where the power falls short of the target
        return power(vc, d, I, J, alpha, memo=memo) - target

    lo, hi = 0.0, sd
    f_lo, f_hi = None, short(hi)
    while f_hi < 0:
        lo, f_lo, hi = hi, f_hi, 2 * hi
        f_hi = short(hi)
        if hi > 1e6 * sd:
            return None
    if f_lo is None:
        f_lo = short(lo)
        if f_lo >= 0:  # only where the target is at most the level: nothing to detect
            return 0.0
    return _first_reaching(short, lo, f_lo, hi, f_hi, detectable_tolerance(vc, sd))


def detectable_tolerance(vc: VarianceComponents, sd: float) -> float:
    """How closely :func:`detectable_difference` finds the smallest difference, for a
    design whose estimated difference has standard deviation ``sd``.

    1e-6 SD for the t-test, whose power is exact; 1e-4 SD for the quasi-F: its power is
    the share of simulated studies that reject, a staircase whose steps near 80 % power
    lie about 1e-4 SD apart (a finer answer would only pick one simulated study's switch
    point), and each of its evaluations costs some 10 ms."""
    return (1e-6 if vc.design == "hierarchical" else 1e-4) * sd


def _first_reaching(f, lo: float, f_lo: float, hi: float, f_hi: float, tol: float) -> float:
    """Narrow a bracket with ``f(lo) < 0 <= f(hi)`` to ``tol`` and return its upper end: a
    point where ``f >= 0`` within ``tol`` of one where ``f < 0``.

    Bisection, with a regula falsi step wherever the last two steps halved the bracket
    (the Illinois rule halves the value kept at an end that stays twice, so that both
    ends move). The power curves are smooth far from the target, where the secant needs
    a few steps instead of a dozen halvings, and for the quasi-F a staircase close to it,
    where only halving makes progress. scipy.optimize's root finders stop anywhere on
    the target's step, not at its start, and cost a compare 0.2 s to import."""
    s_lo, s_hi = f_lo, f_hi  # the values the secant uses
    moved = ""  # the end the last step moved
    widths = [hi - lo, hi - lo]  # before each step
    while hi - lo > tol:
        w = hi - lo
        x = lo - s_lo * w / (s_hi - s_lo)
        if not lo < x < hi or w > 0.5 * widths[-2]:
            x = 0.5 * (lo + hi)
            if not lo < x < hi:  # no float between the ends: as close as they come
                break
        fx = f(x)
        if fx < 0:
            lo, s_lo = x, fx
            s_hi = s_hi / 2 if moved == "lo" else s_hi
            moved = "lo"
        else:
            hi, s_hi = x, fx
            s_lo = s_lo / 2 if moved == "hi" else s_lo
            moved = "hi"
        widths.append(w)
    return hi


def _smallest(pred, lo: int, hi: int) -> int | None:
    """Smallest integer x in [lo, hi] with pred(x) true, pred monotone (None if none)."""
    if not pred(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _design(vc, delta, I, J, n, pool, alpha, memo=None) -> Design:
    used = cases_used(vc.design, I, J, n)
    return Design(
        instances=I,
        test_cases=J,
        power=power(vc, delta, I, J, alpha, memo=memo),
        cases=used,
        fits=used <= pool,
    )


def required_instances(
    vc, delta, J, n, pool, alpha=ALPHA, target=0.8, min_instances=2, memo=None
) -> Design | None:
    """The fewest instances with J test cases each that reach ``target`` power (whether
    they fit in the pool is in :attr:`Design.fits`); None when no number does.
    ``memo``: :func:`power`'s."""

    def pw(i: int) -> float:
        return power(vc, delta, i, J, alpha, memo=memo)

    hi = min_instances
    while pw(hi) < target:
        hi *= 2
        if hi > MAX_INSTANCES:
            return None
    I = _smallest(lambda i: pw(i) >= target, min_instances, hi)
    return None if I is None else _design(vc, delta, I, J, n, pool, alpha, memo)


def required_test_cases(vc, delta, I, n, pool, alpha=ALPHA, target=0.8, memo=None) -> Design | None:
    """The fewest test cases (per instance, or in the common test set) with I instances
    that reach ``target`` power; None when even unlimited test cases cannot (the
    training-set variance alone is too large). ``memo``: :func:`power`'s."""

    def pw(j: int) -> float:
        return power(vc, delta, I, j, alpha, memo=memo)

    hi = 2
    while pw(hi) < target:
        hi *= 2
        if hi > MAX_TEST_CASES:
            return None
    J = _smallest(lambda j: pw(j) >= target, 2, hi)
    return None if J is None else _design(vc, delta, I, J, n, pool, alpha, memo)


def cheapest_design(
    vc, delta, n, pool, alpha=ALPHA, target=0.8, min_instances=2, memo=None
) -> Design | None:
    """The design with the fewest training runs (instances) that reaches ``target``
    power within a pool of ``pool`` cases, with the fewest test cases for that number;
    None when no design fits ("not possible with this data set"). ``memo``:
    :func:`power`'s."""

    def pw(i: int, j: int) -> float:
        return power(vc, delta, i, j, alpha, memo=memo)

    I = min_instances
    while True:
        spare = pool - I * n
        J_max = spare // I if vc.design == "hierarchical" else spare
        if J_max < 2:
            return None
        if pw(I, J_max) >= target:
            J = _smallest(lambda j, i=I: pw(i, j) >= target, 2, J_max)
            assert J is not None
            return _design(vc, delta, I, J, n, pool, alpha, memo)
        I += 1


@dataclass(frozen=True)
class SampleSize:
    """What 80 % (``target``) power needs for one expected difference ``delta``."""

    delta: float
    alpha: float
    target: float
    current: Design
    detectable: float | None  # smallest difference the current design detects
    more_instances: Design | None  # at the current test cases per instance
    more_test_cases: Design | None  # at the current number of instances
    cheapest: Design | None  # fewest instances within the case pool
    min_instances: int


def sample_size(
    vc: VarianceComponents,
    delta: float,
    I: int,
    J: int,
    n: int,
    pool: int,
    alpha: float = ALPHA,
    target: float = 0.8,
    memo: PowerMemo | None = None,
) -> SampleSize:
    """Power of the current design (I x J, training sets of n, ``pool`` cases) and the
    designs that reach ``target`` power (``memo``: :func:`power`'s).

    For the 2-way design no advice proposes fewer than 4 instances: there the quasi-F
    rejects a true H0 too often (thesis Fig. 2.5), which is why DELVE reports only
    ``p < 0.05``."""
    min_i = BOUNDED_BELOW if vc.design == "2-way" else 2
    if delta == 0:  # nothing to detect: no design has power above alpha
        return SampleSize(
            delta=0.0,
            alpha=alpha,
            target=target,
            current=_design(vc, 0.0, I, J, n, pool, alpha, memo),
            detectable=detectable_difference(vc, I, J, alpha, target, memo),
            more_instances=None,
            more_test_cases=None,
            cheapest=None,
            min_instances=min_i,
        )
    return SampleSize(
        delta=delta,
        alpha=alpha,
        target=target,
        current=_design(vc, delta, I, J, n, pool, alpha, memo),
        detectable=detectable_difference(vc, I, J, alpha, target, memo),
        more_instances=required_instances(vc, delta, J, n, pool, alpha, target, min_i, memo),
        more_test_cases=required_test_cases(vc, delta, I, n, pool, alpha, target, memo)
        if I >= min_i
        else None,
        cheapest=cheapest_design(vc, delta, n, pool, alpha, target, min_i, memo),
        min_instances=min_i,
    )
