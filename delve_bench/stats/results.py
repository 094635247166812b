"""Result objects of the statistics, of ``delve stats`` and ``delve compare`` (and of
:mod:`delve_bench.api`).

Frozen dataclasses built by keyword, as statsmodels' results: :class:`Summary` (one
method's loss matrix) and :class:`Comparison` (two methods' paired loss matrices) are
what :mod:`.summary` computes; :class:`StatsResult` and :class:`ComparisonResult` add the
task's facts. Every fact is a field, read by name downstream: whether p may only be
claimed as ``p < 0.05`` is :attr:`PValue.bounded`, never text to be parsed.

The fields are exactly the keys of the commands' ``--json`` records (docs/json.md),
which add only ``kind`` and ``schema_version``; ``bounded`` reaches the JSON as
``p_text`` (``< 0.05``), as the schema has it.

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
from typing import Any

from ..defaults import ALPHA, P_BOUND

#: with fewer instances, Lindman's quasi-F may only claim ``p < BOUND``: it is
#: anti-conservative there (thesis Fig. 2.5; ``delve selftest`` shows it)
BOUNDED_BELOW = 4
BOUND = P_BOUND


def is_bounded(test: str, instances: int, p: float | None) -> bool:
    """Whether a test's p may only be reported as ``p < 0.05``: the one rule, a quasi-F
    (``F``) below 0.05 on fewer than :data:`BOUNDED_BELOW` instances."""
    return test == "F" and instances < BOUNDED_BELOW and p is not None and p < BOUND


def is_significant(p: float | None, bounded: bool, threshold: float = ALPHA) -> bool:
    """Significant at 5 %: the one rule every verdict reads (stars, wins, claims, rankings'
    pair counts, ``delve compare``, the JSON's ``significant_5pc``). p below ``threshold``
    (:data:`~delve_bench.defaults.ALPHA`, or a liberal quasi-F's size-corrected
    ``critical_p``), and never a bounded p: ``p < 0.05`` from a quasi-F on 2 or 3
    instances still rejects about 8-14 % of true nulls at the 5 % level
    (docs/statistics.md), so the bound may be shown but not counted."""
    return not bounded and p is not None and p < threshold


def p_words(p: float | None, bounded: bool) -> str:
    """``0.0123`` (9 significant digits), ``< 0.05`` (bounded) or ``undefined`` (None)."""
    if p is None:
        return "undefined"
    return f"< {BOUND:g}" if bounded else f"{p:.9g}"


def reported_p(p: float | None, bounded: bool) -> float | None:
    """The p a decision may use: the bound itself when only ``p < 0.05`` may be claimed
    (so a multiple-test correction never credits the quasi-F with more)."""
    return BOUND if bounded else p


@dataclass(frozen=True, kw_only=True)
class PValue:
    """The design's test of a paired difference as a result reports it: the test's short
    name, the instances it used and its p (None: undefined), from which follow whether p
    is :attr:`bounded` and :attr:`p_text`."""

    test: str  # 't' | 'F' | 'corrected t' | 'case t'
    instances: int
    p: float | None
    #: ``0.0123``, ``< 0.05`` or ``undefined``; made from the fields above, and a field
    #: itself because the JSON documents are the fields
    p_text: str = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "p_text", p_words(self.p, self.bounded))

    @property
    def bounded(self) -> bool:
        """Only ``p < 0.05`` may be claimed (:func:`is_bounded`)."""
        return is_bounded(self.test, self.instances, self.p)

    @property
    def p_reported(self) -> float | None:
        """:func:`reported_p`: the bound of a bounded p, else p."""
        return reported_p(self.p, self.bounded)


def _fields(result: Any) -> dict:
    """A result's fields by name, shallow (nested results stay objects), those made in
    ``__post_init__`` left out: the keywords that rebuild it."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.init}


@dataclass(frozen=True, kw_only=True)
class Summary:
    """One method's loss matrix: the design's estimate of the expected loss, its SE and
    SD components (the SDs the design lacks are None), raw and standardised
    (``standardized`` holds the same keys as the raw numbers the design has)."""

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


@dataclass(frozen=True, kw_only=True)
class PermutationTest:
    """The exact sign-flip permutation test over instances of A - B (:mod:`.permutation`)."""

    test: str  # 'sign-flip', or 'sign-flip (sampled)' beyond 16 instances
    p: float
    exact: bool
    patterns: int  # sign patterns enumerated (or sampled)
    min_p: float  # the smallest p the instances allow
    instances: int


@dataclass(frozen=True, kw_only=True)
class Comparison(PValue):
    """Paired comparison A - B of two loss matrices: both expected losses, the
    difference, its SE and SD components, the design's test (``t``, Lindman's quasi-``F``,
    ``corrected t`` or ``case t``) with its p (:class:`PValue`) on ``instances`` paired
    instances, and the sign-flip test over them.

    ``mean`` is the design's mean of the per-case differences, equal to ``difference``.
    ``posterior_*`` (``bayes``): the posterior of the expected difference (eq. 2.16; on
    a 2-way task its extension, which ``bayes_note`` then describes): mass on the other
    side of 0, probability of each sign, how it was computed.
    """

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
    standardized: dict  # the numbers above standardised, with mean_a and mean_b
    standardization: dict  # {scale, shift}
    test_name: str  # the test in words
    statistic: float | None
    df: list[float]
    permutation: PermutationTest | None = None  # 2 or more instances
    posterior_opposite_sign: float | None = None
    posterior_prob_negative: float | None = None  # P(A - B < 0 | losses)
    posterior_prob_positive: float | None = None
    posterior_method: str | None = None  # how the posterior was computed
    bayes_note: str | None = None
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
    def significant(self) -> bool:
        """Significant at 5 % by :func:`is_significant`: p < 0.05, or for the 2-way
        quasi-F p below its size-corrected threshold; a bounded ``p < 0.05`` never is."""
        threshold = ALPHA if self.critical_p is None else self.critical_p
        return is_significant(self.p, self.bounded, threshold)

    @property
    def p_decision(self) -> float | None:
        """The p that a correction over many tests may use: :attr:`p_reported` (the bound
        of a bounded p), or for a liberal quasi-F its calibrated p where that is larger."""
        p = self.p_reported
        if self.liberal and p is not None:
            p = max(p, self.p_calibrated or p)
        return p


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
class StatsResult(Summary, _TaskFacts):
    """One method on one task: its :class:`Summary` with the task's facts, the method and
    the budget its used instances were made with."""

    method: str
    budget: dict | None = None  # {mode, time_scale} the used instances were made with

    @classmethod
    def of(cls, summary: Summary, **facts: Any) -> StatsResult:
        """The result of ``summary`` with the task's facts, ``method`` and ``budget``."""
        return cls(**_fields(summary), **facts)

    def __repr__(self) -> str:
        return f"StatsResult: {stats_line(self)}"

    def _repr_html_(self) -> str:
        from .._html import paragraph

        return paragraph(stats_line(self))


@dataclass(frozen=True, kw_only=True)
class ComparisonResult(Comparison, _TaskFacts):
    """Paired comparison A - B on one task: its :class:`Comparison` with the task's
    facts, the two methods, which instances each has that the other lacks, and the
    budgets their instances were made with."""

    method_a: str
    method_b: str
    posterior_plot: list[str] | None = None  # ``delve compare --plot``: the files drawn
    instances_unpaired: dict | None = None  # method -> its instances the other lacks
    budget_a: dict | None = None  # {mode, time_scale} of each method's instances
    budget_b: dict | None = None

    @classmethod
    def of(cls, comparison: Comparison, **facts: Any) -> ComparisonResult:
        """The result of ``comparison`` with the task's facts (whose ``instances`` are
        the comparison's), ``method_a``, ``method_b`` and the rest of the fields above."""
        return cls(**{**_fields(comparison), **facts})

    @property
    def verdict(self) -> str:
        """One line: which method is better, by how much (standardised), and the test."""
        return verdict(self)

    def __repr__(self) -> str:
        return f"ComparisonResult: {self.verdict}"

    def _repr_html_(self) -> str:
        from .._html import paragraph

        return paragraph(self.verdict)


# ---- one-line forms (the objects' reprs, the rows of `delve compare A B`) ----------

LEVELS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))


def marks(c: ComparisonResult) -> str:
    """``*``, ``**``, ``***`` for the comparison's p, '' unless it is significant (so a
    bounded ``p < 0.05``, or a liberal quasi-F's p above its threshold, has no star)."""
    if not c.significant or c.p is None:
        return ""
    return next((m for level, m in LEVELS if c.p < level), "")


def better(c: ComparisonResult) -> str | None:
    """The method with the lower expected loss (None on a tie)."""
    if c.difference == 0:
        return None
    return c.method_a if c.difference < 0 else c.method_b


def p_text(c: ComparisonResult) -> str:
    """The p to 2 digits (``< 0.05`` when bounded, ``-`` when undefined)."""
    if c.bounded:
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
    if c.bounded:  # a bound is shown, never counted (is_significant)
        sig, how = "not counted significant", f"a bound only; {c.test_name}"
    else:
        sig, how = ("significant" if c.significant else "not significant"), c.test_name
    return (
        f"{head} on {c.task} (loss {c.loss}, standardised): A - B = {st['mean']:+.4g} "
        f"(SE {st['se']:.2g}), p {c.p_text if c.bounded else '= ' + p_text(c)}"
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
