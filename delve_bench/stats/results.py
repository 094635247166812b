"""Result objects of ``delve stats`` and ``delve compare`` (and of :mod:`delve_bench.api`).

Built by keyword; their fields are exactly the keys of the commands' ``--json`` records
(docs/json.md), which add only ``kind`` and ``schema_version``.

Standard deviations are named for what they measure (Rasmussen 1996 §2.4-2.5):

* ``sd_train``: training sets & stochastic training, sqrt(sigma_a^2), both designs;
* ``sd_test``: test cases & stochastic prediction & interactions, sqrt(MSe), hierarchical
  design only (None for the 2-way design);
* ``sd_cases``: test cases, sqrt(sigma_b^2), 2-way design only;
* ``sd_interaction``: interactions & stochastic prediction, sqrt(MSe), 2-way design only.

Published splits (classification) add two designs without an ANOVA: ``resampled``
(overlapping realisations: ``se`` is Nadeau & Bengio's corrected SE, ``se_uncorrected``
the naive one, ``sd_realisations`` the SD of the realisation means, ``sd_test`` that of
the test cases) and ``fixed`` (one split: ``sd_test`` over its test cases). SDs a design
does not have are None.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class _TaskFacts:
    task: str
    loss: str
    design: str  # 'hierarchical' | '2-way' | 'resampled' | 'fixed'
    instances: int  # instances used
    task_instances: int
    train_size: int
    test_size: int
    instances_used: list[int]
    instances_missing: list[int]  # not run, failed or corrupt
    instances_stale: list[int] = dataclasses.field(default_factory=list)  # made otherwise

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class StatsResult(_TaskFacts):
    """One method on one task: estimated expected loss, its SE and the SD components,
    raw and standardised (``standardized`` holds the same keys as the raw numbers)."""

    method: str
    mean: float
    se: float
    sd_train: float | None = None
    sd_test: float | None = None
    sd_cases: float | None = None
    sd_interaction: float | None = None
    se_uncorrected: float | None = None
    sd_realisations: float | None = None
    standardized: dict
    standardization: dict  # {scale, shift}
    budget: dict | None = None  # {mode, time_scale} the used instances were made with

    def __repr__(self) -> str:
        return f"StatsResult: {stats_line(self)}"

    def _repr_html_(self) -> str:
        from .._html import paragraph

        return paragraph(stats_line(self))


@dataclass(frozen=True, kw_only=True)
class ComparisonResult(_TaskFacts):
    """Paired comparison A - B on one task: both expected losses, the difference, its SE
    and SD components, and the design's test (``t`` or Lindman's quasi-``F``).

    ``mean`` is the ANOVA mean of the per-case differences, equal to ``difference``.
    ``posterior_*`` (``--bayes``): the posterior of the expected difference (eq. 2.16; on
    a 2-way task its extension, which ``bayes_note`` then describes): mass on the other
    side of 0, probability of each sign, how it was computed.
    """

    method_a: str
    method_b: str
    mean_a: float
    mean_b: float
    difference: float
    mean: float
    se: float
    sd_train: float | None = None
    sd_test: float | None = None
    sd_cases: float | None = None
    sd_interaction: float | None = None
    se_uncorrected: float | None = None
    sd_realisations: float | None = None
    standardized: dict
    test: str  # 't' | 'F' | 'corrected t' | 'case t'
    test_name: str  # the test in words
    statistic: float | None
    df: list[float]
    p: float | None
    p_text: str  # '0.0123' | '< 0.05' | 'undefined'
    permutation: dict | None = None  # the sign-flip test over instances (2 or more)
    standardization: dict
    posterior_opposite_sign: float | None = None
    posterior_prob_negative: float | None = None  # P(A - B < 0 | losses)
    posterior_prob_positive: float | None = None
    posterior_method: str | None = None  # how the posterior was computed
    bayes_note: str | None = None
    posterior_plot: list[str] | None = None  # ``delve compare --plot``: the files drawn
    instances_unpaired: dict | None = None  # method -> its instances the other lacks
    budget_a: dict | None = None  # {mode, time_scale} of each method's instances
    budget_b: dict | None = None
    #: 2-way quasi-F only (:mod:`~delve_bench.stats.level`): its rate of p < 0.05 under H0
    #: at the estimated components, whether that is liberal, the size-corrected threshold,
    #: the calibrated p, the decision at 5 % and, when liberal, a sentence saying so
    level: float | None = None
    liberal: bool | None = None
    critical_p: float | None = None
    p_calibrated: float | None = None
    level_note: str | None = None
    significant_5pc: bool | None = None

    @property
    def verdict(self) -> str:
        """One line: which method is better, by how much (standardised), and the test."""
        return verdict(self)

    def __repr__(self) -> str:
        return f"ComparisonResult: {self.verdict}"

    def _repr_html_(self) -> str:
        from .._html import paragraph

        return paragraph(self.verdict)

    @property
    def bounded(self) -> bool:
        """The quasi-F with fewer than 4 instances: it may claim only ``p < 0.05``."""
        return self.p_text.startswith("<")

    @property
    def significant(self) -> bool:
        """Significant at 5 %: p < 0.05, or for the 2-way quasi-F, p below its
        size-corrected threshold where it is liberal. A bounded ``p < 0.05`` is never
        counted, as the rankings count it as p = 0.05 (its level depends on variance
        components estimated from 2 or 3 instances)."""
        if self.bounded:
            return False
        if self.significant_5pc is not None:
            return self.significant_5pc
        return self.p is not None and self.p < 0.05


# ---- one-line forms (the objects' reprs, the rows of `delve compare A B`) ----------

LEVELS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))


def marks(c: ComparisonResult) -> str:
    """``*``, ``**``, ``***`` or '' for the comparison's p."""
    if c.p_text.startswith("<"):
        return "*"
    if c.p is None:
        return ""
    return next((m for level, m in LEVELS if c.p < level), "")


def better(c: ComparisonResult) -> str | None:
    """The method with the lower expected loss (None on a tie)."""
    if c.difference == 0:
        return None
    return c.method_a if c.difference < 0 else c.method_b


def p_text(c: ComparisonResult) -> str:
    if c.p_text.startswith("<"):
        return c.p_text
    return "-" if c.p is None else f"{c.p:.2g}"


def verdict(c: ComparisonResult) -> str:
    """One line: who is better on the task, by how much (standardised), and how sure."""
    st = c.standardized
    who = better(c)
    head = (
        f"{who} better than {c.method_b if who == c.method_a else c.method_a}"
        if who
        else f"{c.method_a} and {c.method_b} tie"
    )
    if c.bounded:  # the rankings' rule: a bound is never counted (see .significant)
        sig, how = "not counted significant", f"a bound only; {c.test_name}"
    else:
        sig, how = ("significant" if c.significant else "not significant"), c.test_name
    return (
        f"{head} on {c.task} (loss {c.loss}, standardised): A - B = {st['mean']:+.4g} "
        f"(SE {st['se']:.2g}), p {c.p_text if c.p_text.startswith('<') else '= ' + p_text(c)}"
        f" {marks(c)}".rstrip()
        + f", {sig} ({how}, {c.instances} instances)"
    )


def stats_line(s: StatsResult) -> str:
    """``lin-1 on kin-8nm/dist/std.64, loss S: 0.6664 ± 0.017 (standardised, ...)``."""
    st = s.standardized
    return (
        f"{s.method} on {s.task}, loss {s.loss}: {st['mean']:.4g} ± {st['se']:.2g} "
        f"(standardised, ± one SE; raw {s.mean:.4g} ± {s.se:.2g}; {s.instances} of "
        f"{s.task_instances} instances)"
    )
