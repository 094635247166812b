"""Rankings across tasks with honest multiplicity (``delve report``).

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

from ..stats.multiple import CORRECTION_NAMES, adjust
from ..stats.ranking import Friedman, block_ranks, friedman, groups
from .collect import SIGNIFICANCE, PrototaskReport, TaskReport
from .tables import Table, loss_title

UNITS = ("prototask", "task")
CORRECTION_SHORT = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
POSTHOC_NAMES = {
    "nemenyi": "Nemenyi's critical difference",
    "holm": "Holm-adjusted pairwise z-tests on the average ranks",
    "wilcoxon": "Holm-adjusted pairwise Wilcoxon signed-rank tests (Benavoli et al. 2016)",
}
#: the short name of each post-hoc test in table headers and the diagram
POSTHOC_SHORT = {"nemenyi": "CD (Nemenyi)", "holm": "Holm post-hoc", "wilcoxon": "Wilcoxon + Holm"}


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

    def why(self, unit: str = "unit") -> str:
        if self.agree:
            return ""
        if self.delve == "mixed":
            return (
                f"the tests find {self.a} better on {self.units_a} and {self.b} better on "
                f"{self.units_b} {unit}s: a single ranking hides that"
            )
        if self.cd is None:
            return (
                f"{self.delve} is significantly better on {max(self.units_a, self.units_b)} "
                f"{unit}(s) and never worse, but the average ranks are too close (or the "
                f"{unit}s too few) for the post-hoc test"
            )
        if self.delve is None:
            return (
                f"the average ranks differ significantly, but no task's paired test separates "
                f"{self.a} and {self.b} after correction"
            )
        return f"the ranks favour {self.cd}, the per-task tests {self.delve}"


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

    @property
    def correction_name(self) -> str:
        return CORRECTION_NAMES[self.correction]

    def test_names(self) -> str:
        """The paired test of each design, those of the designs present beyond DELVE's two."""
        names = ["t-test, hierarchical", "Lindman's quasi-F, 2-way"]
        if "resampled" in self.designs:
            names.append("corrected resampled t-test (Nadeau & Bengio 2003), resampled")
        if "fixed" in self.designs:
            names.append("paired t-test over test cases, fixed split")
        return "; ".join(names)

    def legend(self) -> tuple[str, ...]:
        n = sum(t.p is not None for t in self.tests)
        corr = CORRECTION_SHORT[self.correction]
        unit_text = (
            "Tasks of one prototask share nested training sets and one test pool, so they "
            "are not independent: results are aggregated per prototask. A method beats "
            "another on a prototask when it is significantly better on at least one of its "
            "tasks and never significantly worse; the Friedman test has one block per "
            "prototask (the methods' mean rank over its tasks, re-ranked)."
            if self.unit == "prototask"
            else "Units are tasks (--unit task): tasks of one prototask share nested training "
            "sets, so treat counts and the Friedman test over tasks as optimistic."
        )
        out = [
            f"Per-task tests: the design's paired test ({self.test_names()}) for every pair "
            f"on every task, {n} p-values adjusted together "
            f"by the {corr} correction ({self.correction_name}); significant: adjusted "
            f"p < {self.alpha:g}. A quasi-F with fewer than 4 instances counts as p = 0.05; "
            "a liberal quasi-F (its level at the estimated variance components above 5 %) "
            "counts with its calibrated p.",
            unit_text,
        ]
        f = self.friedman
        if f is not None:
            ff = (
                ""
                if f.iman_davenport is None
                else f", Iman-Davenport F = {f.iman_davenport:.3g} (p = {f.p_iman_davenport:.2g})"
            )
            post = (
                f"critical difference CD = {f.cd:.3g} (Nemenyi, alpha = {f.alpha:g})"
                if f.cd is not None
                else f"{POSTHOC_NAMES[f.posthoc]}, alpha = {f.alpha:g}"
            )
            if f.posthoc == "wilcoxon":
                k = len(f.methods)
                post += (
                    "; a pair's Wilcoxon p reads only its two methods' per-block mean "
                    "standardised losses, where the mean-rank tests read every method's "
                    "(Benavoli, Corani & Mangili 2016), but Holm's correction runs over all "
                    f"{k * (k - 1) // 2} pairs: adding a method can only raise a pair's "
                    "adjusted p (and so end its significance), removing one can only lower it"
                )
            out.append(
                f"Friedman test (Demšar 2006) over {f.blocks} {self.unit}s and {len(f.methods)} "
                f"methods: chi2 = {f.chi2:.3g} (p = {f.p_chi2:.2g}){ff}; post-hoc: {post}."
            )
        else:
            out.append(
                "No Friedman test: it needs at least 2 methods with a value on at least 2 "
                f"{self.unit}s."
            )
        left_out = [m for m in self.methods if m not in self.ranked]
        if left_out:
            n = len(self.units)
            out.append(
                f"Not in the Friedman test (a value on fewer {self.unit}s than the others, "
                f"of {n}): " + ", ".join(f"{m} ({self.covered[m]})" for m in left_out) + "."
            )
        return tuple(out)


def _unit_of(t: TaskReport, unit: str) -> str:
    return f"{t.ref.dataset}/{t.ref.prototask}" if unit == "prototask" else t.ref.full_name


def rankings(
    reports: list[PrototaskReport],
    methods: list[str],
    loss: str,
    unit: str = "prototask",
    correction: str = "holm",
    posthoc: str = "nemenyi",
    alpha: float = SIGNIFICANCE,
) -> Rankings:
    """Corrected per-task tests, per-unit verdicts, and the Friedman test over units."""
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    tasks = [t for r in reports for t in r.tasks]
    raw = []
    for t in tasks:
        for (a, b), cell in t.pairs.items():
            c = cell.comparison
            if c is None:
                continue
            reported = 0.05 if cell.bounded else cell.p
            if cell.liberal and reported is not None:  # the quasi-F's calibrated p (stats.level)
                reported = max(reported, c.get("p_calibrated") or reported)
            raw.append((t, a, b, c["standardized"]["mean"], reported))
    adj = adjust([x[4] for x in raw], correction)
    tests = []
    for (t, a, b, diff, p), pa in zip(raw, adj, strict=True):
        win = None
        if pa is not None and pa < alpha and diff != 0:
            win = a if diff < 0 else b
        tests.append(
            PairTest(
                task=t.ref.full_name,
                unit=_unit_of(t, unit),
                a=a,
                b=b,
                difference=diff,
                p=p,
                p_adjusted=pa,
                winner=win,
            )
        )
    units = list(dict.fromkeys(_unit_of(t, unit) for t in tasks))

    # Friedman needs a complete block design: the methods with a value on the most units
    # (a method still running, or run on a few prototasks only, would otherwise leave no
    # complete block); blocks: units with a task where all of them have one
    covered = {m: len({_unit_of(t, unit) for t in tasks if t.cells[m].rankable}) for m in methods}
    most = max(covered.values(), default=0)
    ranked = [m for m in methods if most and covered[m] == most]
    block_rows, block_names, block_vals = [], [], []
    for u in units:
        full = [
            t for t in tasks if _unit_of(t, unit) == u and all(t.cells[m].rankable for m in ranked)
        ]
        if not full:
            continue
        task_ranks = np.array([[t.ranks_among(ranked)[m] for m in ranked] for t in full])
        block_rows.append(task_ranks.mean(axis=0))
        block_vals.append([float(np.mean([t.cells[m].mean for t in full])) for m in ranked])
        block_names.append(u)
    fr = None
    if len(ranked) >= 2 and len(block_rows) >= 2:
        R = block_ranks(np.array(block_rows)).mean(axis=0)
        fr = friedman(ranked, R, len(block_rows), posthoc, alpha, np.array(block_vals))

    pairs = []
    for i, a in enumerate(methods):
        for b in methods[i + 1 :]:
            mine = [x for x in tests if {x.a, x.b} == {a, b} and x.p is not None]
            ua = ub = 0
            compared = set()
            for u in units:
                here = [x for x in mine if x.unit == u]
                if not here:
                    continue
                compared.add(u)
                wa = any(x.winner == a for x in here)
                wb = any(x.winner == b for x in here)
                if wa and not wb:
                    ua += 1
                elif wb and not wa:
                    ub += 1
                elif wa and wb:  # both ways within one unit: counts for both
                    ua += 1
                    ub += 1
            delve = None
            if ua and ub:
                delve = "mixed"
            elif ua:
                delve = a
            elif ub:
                delve = b
            rank_a = rank_b = cd = cd_p = None
            if fr is not None and a in fr.methods and b in fr.methods:
                rank_a = fr.average_ranks[fr.methods.index(a)]
                rank_b = fr.average_ranks[fr.methods.index(b)]
                if fr.differ(a, b):
                    cd = a if rank_a < rank_b else b
                cd_p = fr.pair_p.get((a, b), fr.pair_p.get((b, a)))
            pairs.append(
                PairVerdict(
                    a=a,
                    b=b,
                    rank_a=rank_a,
                    rank_b=rank_b,
                    cd=cd,
                    cd_p=cd_p,
                    units_a=ua,
                    units_b=ub,
                    units_compared=len(compared),
                    delve=delve,
                )
            )
    return Rankings(
        loss=loss,
        unit=unit,
        correction=correction,
        posthoc=posthoc,
        alpha=alpha,
        methods=tuple(methods),
        ranked=tuple(ranked),
        blocks=tuple(block_names),
        friedman=fr,
        tests=tuple(tests),
        pairs=tuple(pairs),
        units=tuple(units),
        designs=tuple(dict.fromkeys(t.design for t in tasks)),
        covered=covered,
    )


# ---- tables ------------------------------------------------------------------------


def _g(x: float | None, fmt: str = ".3g") -> str:
    return "" if x is None else format(x, fmt)


def _verdict(v: str | None) -> str:
    return "no difference" if v is None else ("mixed" if v == "mixed" else f"{v} better")


def rankings_table(rk: Rankings) -> Table:
    corr = CORRECTION_SHORT[rk.correction]
    avg = {}
    if rk.friedman is not None:
        avg = dict(zip(rk.friedman.methods, rk.friedman.average_ranks, strict=True))
    order = rk.order + [m for m in rk.methods if m not in rk.order]
    rows = tuple(
        (
            m,
            _g(avg.get(m)),
            str(rk.wins(m)),
            str(rk.losses(m)),
            f"{rk.wins(m) - rk.losses(m):+d}",
        )
        for m in order
    )
    return Table(
        title=f"Rankings over {rk.unit}s, {corr}-corrected paired tests: {loss_title(rk.loss)}",
        columns=(
            "method",
            f"average rank ({len(rk.blocks)} {rk.unit}s)",
            f"wins ({corr})",
            f"losses ({corr})",
            "net",
        ),
        align="lrrrr",
        rows=rows,
        notes=rk.legend()
        + (
            f"Wins and losses: {rk.unit}s x opponents on which the method is significantly "
            f"better (worse) after the {corr} correction.",
        ),
    )


def rankings_records(rk: Rankings) -> tuple[list[str], list[list]]:
    avg = {}
    if rk.friedman is not None:
        avg = dict(zip(rk.friedman.methods, rk.friedman.average_ranks, strict=True))
    head = ["method", "average_rank", "blocks", "unit", "wins", "losses", "correction"]
    rows = [
        [m, avg.get(m), len(rk.blocks), rk.unit, rk.wins(m), rk.losses(m), rk.correction]
        for m in rk.methods
    ]
    return head, rows


def _pair_row(p: PairVerdict, rk: Rankings) -> tuple[str, ...]:
    return (
        p.a,
        p.b,
        _g(p.rank_a),
        _g(p.rank_b),
        _verdict(p.cd),
        f"{p.units_a} / {p.units_b} of {p.units_compared}",
        _verdict(p.delve),
        "yes" if p.agree else "no",
    )


def _pair_columns(rk: Rankings) -> tuple[str, ...]:
    post = POSTHOC_SHORT[rk.posthoc]
    corr = CORRECTION_SHORT[rk.correction]
    return (
        "A",
        "B",
        "rank A",
        "rank B",
        f"Friedman + {post}",
        f"{rk.unit}s A / B better ({corr})",
        f"per-task tests ({corr})",
        "agree",
    )


def pairs_table(rk: Rankings) -> Table:
    return Table(
        title=f"Pairs: critical difference against {CORRECTION_SHORT[rk.correction]}-corrected "
        f"DELVE tests, {loss_title(rk.loss)}",
        columns=_pair_columns(rk),
        align="llrrlrll",
        rows=tuple(_pair_row(p, rk) for p in rk.pairs),
        notes=rk.legend(),
    )


def disagree_table(rk: Rankings) -> Table:
    rows = tuple((*_pair_row(p, rk)[:7], p.why(rk.unit)) for p in rk.pairs if not p.agree)
    notes = rk.legend()
    if not rows:
        notes = ("The two views agree on every pair.",) + notes
    return Table(
        title=f"Where the critical-difference diagram and the "
        f"{CORRECTION_SHORT[rk.correction]}-corrected DELVE tests disagree: {loss_title(rk.loss)}",
        columns=_pair_columns(rk)[:7] + ("why",),
        align="llrrlrll",
        rows=rows,
        notes=notes,
    )


def pairs_records(rk: Rankings) -> tuple[list[str], list[list]]:
    head = [
        "a",
        "b",
        "rank_a",
        "rank_b",
        "cd_verdict",
        "cd_p_holm",
        "units_a_better",
        "units_b_better",
        "units_compared",
        "delve_verdict",
        "agree",
        "unit",
        "correction",
    ]
    rows = [
        [
            p.a,
            p.b,
            p.rank_a,
            p.rank_b,
            p.cd,
            p.cd_p,
            p.units_a,
            p.units_b,
            p.units_compared,
            p.delve,
            p.agree,
            rk.unit,
            rk.correction,
        ]
        for p in rk.pairs
    ]
    return head, rows


def disagree_records(rk: Rankings) -> tuple[list[str], list[list]]:
    head, rows = pairs_records(rk)
    keep = [r for r, p in zip(rows, rk.pairs, strict=True) if not p.agree]
    return head + ["why"], [
        r + [p.why(rk.unit)]
        for r, p in zip(keep, [p for p in rk.pairs if not p.agree], strict=True)
    ]


def family_table(rk: Rankings) -> Table:
    corr = CORRECTION_SHORT[rk.correction]
    rows = tuple(
        (
            t.task,
            t.a,
            t.b,
            f"{t.difference:+.3g}",
            _g(t.p, ".2g"),
            _g(t.p_adjusted, ".2g"),
            t.winner or "",
        )
        for t in rk.tests
    )
    return Table(
        title=f"Every paired test, {corr}-adjusted: {loss_title(rk.loss)}",
        columns=("task", "A", "B", "A - B", "p", f"p ({corr})", "significantly better"),
        align="lllrrrl",
        rows=rows,
        notes=rk.legend()[:1],
    )


def family_records(rk: Rankings) -> tuple[list[str], list[list]]:
    head = ["task", "unit", "a", "b", "difference", "p", "p_adjusted", "winner", "correction"]
    rows = [
        [t.task, t.unit, t.a, t.b, t.difference, t.p, t.p_adjusted, t.winner, rk.correction]
        for t in rk.tests
    ]
    return head, rows
