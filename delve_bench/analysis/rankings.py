"""Rankings across tasks with honest multiplicity (``delve report``): the computation;
the tables and their legends are :mod:`delve_bench.report.rankings`.

Two views of "which method is best over many tasks", side by side:

* **Per-task DELVE tests, corrected.** Every pair of methods on every task has the
  design's paired test (t-test or quasi-F; for the classification designs the corrected
  resampled t-test or the test-case t-test); all these p-values are adjusted together
  by Holm's step-down (default; valid under any dependence) or Benjamini-Hochberg
  (``statsmodels.stats.multitest``). A quasi-F with fewer than 4 instances counts as
  p = 0.05, the most it may claim. Results are then aggregated per *unit*: by default a
  prototask, because the tasks of one prototask share nested training sets and one test
  pool and are not independent. A method beats another on a unit when it is
  significantly better on at least one of the unit's tasks and never significantly worse
  ("mixed" when both happen).
* **Friedman test and critical difference** (Demšar 2006): methods ranked within each
  unit (the mean of their task ranks, re-ranked), Friedman / Iman-Davenport over the
  units, Nemenyi's critical difference (or Holm post-hoc z-tests). Blocks are units
  where every ranked method has a value.

The pair table says, for every pair, what each view concludes, and where they disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..defaults import ALPHA
from ..stats.multiple import adjust
from ..stats.ranking import Friedman, block_ranks, friedman, groups
from .collect import PrototaskReport, TaskReport

UNITS = ("prototask", "task")


@dataclass(frozen=True)
class PairTest:
    """One pair's paired test on one task, with its adjusted p."""

    task: str
    unit: str
    a: str
    b: str
    difference: float  # standardised A - B
    p: float | None  # as reported (bounded quasi-F: 0.05)
    p_adjusted: float | None
    winner: str | None  # significant after correction


@dataclass(frozen=True)
class PairVerdict:
    """What the two views say about methods a and b (a before b in display order)."""

    a: str
    b: str
    rank_a: float | None
    rank_b: float | None
    cd: str | None  # better method per the post-hoc test, or None
    cd_p: float | None  # Holm post-hoc p (posthoc='holm'), else None
    units_a: int  # units where a beats b (corrected per-task tests)
    units_b: int
    units_compared: int
    delve: str | None  # a, b, 'mixed' or None

    @property
    def agree(self) -> bool:
        return self.cd == self.delve


@dataclass(frozen=True)
class Rankings:
    loss: str
    unit: str
    correction: str
    posthoc: str
    alpha: float
    methods: tuple[str, ...]  # every reported method
    ranked: tuple[str, ...]  # methods in the Friedman test
    blocks: tuple[str, ...]  # the units used as Friedman blocks
    friedman: Friedman | None
    tests: tuple[PairTest, ...]
    pairs: tuple[PairVerdict, ...]
    units: tuple[str, ...]  # every unit reported
    designs: tuple[str, ...] = ()  # the tasks' designs, in order of appearance
    covered: dict[str, int] = field(default_factory=dict)  # units with a value, per method

    def wins(self, m: str) -> int:
        """Units x opponents that ``m`` beats (corrected per-task tests)."""
        return sum(p.units_a if p.a == m else p.units_b for p in self.pairs if m in (p.a, p.b))

    def losses(self, m: str) -> int:
        return sum(p.units_b if p.a == m else p.units_a for p in self.pairs if m in (p.a, p.b))

    def delve_differ(self, a: str, b: str) -> bool:
        for p in self.pairs:
            if {p.a, p.b} == {a, b}:
                return p.delve is not None
        return False

    @property
    def order(self) -> list[str]:
        """Ranked methods by average rank (best first)."""
        if self.friedman is None:
            return list(self.ranked)
        r = dict(zip(self.friedman.methods, self.friedman.average_ranks, strict=True))
        return sorted(self.ranked, key=lambda m: (r[m], self.ranked.index(m)))

    def cd_groups(self) -> list[tuple[str, ...]]:
        f = self.friedman
        return [] if f is None else groups(self.order, f.differ)

    def delve_groups(self) -> list[tuple[str, ...]]:
        return groups(self.order, self.delve_differ)


def _unit_of(t: TaskReport, unit: str) -> str:
    return f"{t.ref.dataset}/{t.ref.prototask}" if unit == "prototask" else t.ref.full_name


def paired_tests(
    tasks: list[TaskReport], unit: str, correction: str, alpha: float
) -> list[PairTest]:
    """Every pair's paired test on every task, the p-values adjusted together by
    ``correction``; a winner where the adjusted p is below ``alpha``. Each test counts
    with the p a decision may use (:attr:`~delve_bench.stats.results.Comparison.p_decision`:
    the bound of a bounded quasi-F, the calibrated p of a liberal one)."""
    raw = [
        (t, a, b, c.standardized["mean"], c.p_decision)
        for t in tasks
        for (a, b), cell in t.pairs.items()
        if (c := cell.comparison) is not None
    ]
    adjusted = adjust([p for *_, p in raw], correction)
    return [
        PairTest(
            task=t.ref.full_name,
            unit=_unit_of(t, unit),
            a=a,
            b=b,
            difference=diff,
            p=p,
            p_adjusted=pa,
            winner=(a if diff < 0 else b) if pa is not None and pa < alpha and diff != 0 else None,
        )
        for (t, a, b, diff, p), pa in zip(raw, adjusted, strict=True)
    ]


@dataclass(frozen=True)
class Blocks:
    """The complete block design of the Friedman test: the methods with a value on the
    most units (``ranked``), and the units with a task where all of them have one."""

    covered: dict[str, int]  # units with a value, per method
    ranked: list[str]
    names: list[str]  # the units used as blocks
    ranks: np.ndarray  # (blocks, ranked): the methods' mean task rank in each block
    values: np.ndarray  # (blocks, ranked): their mean standardised loss in each block


def friedman_blocks(tasks: list[TaskReport], methods: list[str], unit: str) -> Blocks:
    """The Friedman test's blocks (:class:`Blocks`). A method still running, or run on a
    few prototasks only, would otherwise leave no complete block."""
    covered = {m: len({_unit_of(t, unit) for t in tasks if t.cells[m].rankable}) for m in methods}
    ranked = _most_covered(covered)
    names, rows, vals = [], [], []
    for u in dict.fromkeys(_unit_of(t, unit) for t in tasks):
        full = [t for t in tasks if _unit_of(t, unit) == u and _complete(t, ranked)]
        if full:
            names.append(u)
            rows.append(_mean_ranks(full, ranked))
            vals.append([float(np.mean([t.cells[m].mean for t in full])) for m in ranked])
    return Blocks(covered, ranked, names, np.array(rows), np.array(vals))


def _most_covered(covered: dict[str, int]) -> list[str]:
    """The methods with a value on the most units (none if no method has one)."""
    most = max(covered.values(), default=0)
    return [m for m, n in covered.items() if most and n == most]


def _complete(t: TaskReport, methods: list[str]) -> bool:
    """Every one of ``methods`` has a value on task ``t``."""
    return all(t.cells[m].rankable for m in methods)


def _mean_ranks(tasks: list[TaskReport], methods: list[str]) -> np.ndarray:
    """Each method's rank among ``methods`` on each task, averaged over the tasks."""
    return np.array([[t.ranks_among(methods)[m] for m in methods] for t in tasks]).mean(axis=0)


def _unit_counts(a: str, b: str, tests: list[PairTest], units: list[str]) -> tuple[int, int, int]:
    """Units where a beats b, where b beats a (a unit where both happen counts for both),
    and units where the pair was compared at all."""
    mine = [x for x in tests if {x.a, x.b} == {a, b} and x.p is not None]
    ua = ub = compared = 0
    for u in units:
        here = [x for x in mine if x.unit == u]
        if not here:
            continue
        compared += 1
        ua += any(x.winner == a for x in here)
        ub += any(x.winner == b for x in here)
    return ua, ub, compared


def pair_verdict(
    a: str, b: str, tests: list[PairTest], units: list[str], fr: Friedman | None
) -> PairVerdict:
    """What the corrected per-task tests and the Friedman post-hoc test say about a and b."""
    ua, ub, compared = _unit_counts(a, b, tests, units)
    delve = "mixed" if ua and ub else a if ua else b if ub else None
    rank_a = rank_b = cd = cd_p = None
    if fr is not None and a in fr.methods and b in fr.methods:
        rank_a = fr.average_ranks[fr.methods.index(a)]
        rank_b = fr.average_ranks[fr.methods.index(b)]
        if fr.differ(a, b):
            cd = a if rank_a < rank_b else b
        cd_p = fr.pair_p.get((a, b), fr.pair_p.get((b, a)))
    return PairVerdict(
        a=a,
        b=b,
        rank_a=rank_a,
        rank_b=rank_b,
        cd=cd,
        cd_p=cd_p,
        units_a=ua,
        units_b=ub,
        units_compared=compared,
        delve=delve,
    )


def rankings(
    reports: list[PrototaskReport],
    methods: list[str],
    loss: str,
    unit: str = "prototask",
    correction: str = "holm",
    posthoc: str = "nemenyi",
    alpha: float = ALPHA,
) -> Rankings:
    """Corrected per-task tests, per-unit verdicts, and the Friedman test over units."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    tasks = [t for r in reports for t in r.tasks]
    tests = paired_tests(tasks, unit, correction, alpha)
    units = list(dict.fromkeys(_unit_of(t, unit) for t in tasks))
    bl = friedman_blocks(tasks, methods, unit)
    fr = None
    if len(bl.ranked) >= 2 and len(bl.names) >= 2:
        R = block_ranks(bl.ranks).mean(axis=0)
        fr = friedman(bl.ranked, R, len(bl.names), posthoc, alpha, bl.values)
    pairs = [
        pair_verdict(a, b, tests, units, fr)
        for i, a in enumerate(methods)
        for b in methods[i + 1 :]
    ]
    return Rankings(
        loss=loss,
        unit=unit,
        correction=correction,
        posthoc=posthoc,
        alpha=alpha,
        methods=tuple(methods),
        ranked=tuple(bl.ranked),
        blocks=tuple(bl.names),
        friedman=fr,
        tests=tuple(tests),
        pairs=tuple(pairs),
        units=tuple(units),
        designs=tuple(dict.fromkeys(t.design for t in tasks)),
        covered=bl.covered,
    )
