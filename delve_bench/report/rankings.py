"""The rankings across tasks (:mod:`delve_bench.analysis.rankings`) as tables: the
rankings, every pair's two verdicts, where they disagree and why, and every paired test,
each with the legend that says how they were made."""

from __future__ import annotations

from ..analysis.rankings import PairVerdict, Rankings
from ..stats.multiple import CORRECTION_NAMES
from .tables import Table, loss_title

CORRECTION_SHORT = {"holm": "Holm", "bh": "Benjamini-Hochberg"}
POSTHOC_NAMES = {
    "nemenyi": "Nemenyi's critical difference",
    "holm": "Holm-adjusted pairwise z-tests on the average ranks",
    "wilcoxon": "Holm-adjusted pairwise Wilcoxon signed-rank tests (Benavoli et al. 2016)",
}
#: the short name of each post-hoc test in table headers and the diagram
POSTHOC_SHORT = {"nemenyi": "CD (Nemenyi)", "holm": "Holm post-hoc", "wilcoxon": "Wilcoxon + Holm"}


def why(p: PairVerdict, unit: str = "unit") -> str:
    """Why the two views disagree on a pair, in words ('' where they agree)."""
    if p.agree:
        return ""
    if p.delve == "mixed":
        return (
            f"the tests find {p.a} better on {p.units_a} and {p.b} better on "
            f"{p.units_b} {unit}s: a single ranking hides that"
        )
    if p.cd is None:
        return (
            f"{p.delve} is significantly better on {max(p.units_a, p.units_b)} "
            f"{unit}(s) and never worse, but the average ranks are too close (or the "
            f"{unit}s too few) for the post-hoc test"
        )
    if p.delve is None:
        return (
            f"the average ranks differ significantly, but no task's paired test separates "
            f"{p.a} and {p.b} after correction"
        )
    return f"the ranks favour {p.cd}, the per-task tests {p.delve}"


def design_tests(rk: Rankings) -> str:
    """The paired test of each design, those of the designs present beyond DELVE's two."""
    names = ["t-test, hierarchical", "Lindman's quasi-F, 2-way"]
    if "resampled" in rk.designs:
        names.append("corrected resampled t-test (Nadeau & Bengio 2003), resampled")
    if "fixed" in rk.designs:
        names.append("paired t-test over test cases, fixed split")
    return "; ".join(names)


def legend(rk: Rankings) -> tuple[str, ...]:
    n = sum(t.p is not None for t in rk.tests)
    corr = CORRECTION_SHORT[rk.correction]
    unit_text = (
        "Tasks of one prototask share nested training sets and one test pool, so they "
        "are not independent: results are aggregated per prototask. A method beats "
        "another on a prototask when it is significantly better on at least one of its "
        "tasks and never significantly worse; the Friedman test has one block per "
        "prototask (the methods' mean rank over its tasks, re-ranked)."
        if rk.unit == "prototask"
        else "Units are tasks (--unit task): tasks of one prototask share nested training "
        "sets, so treat counts and the Friedman test over tasks as optimistic."
    )
    out = [
        f"Per-task tests: the design's paired test ({design_tests(rk)}) for every pair "
        f"on every task, {n} p-values adjusted together "
        f"by the {corr} correction ({CORRECTION_NAMES[rk.correction]}); significant: adjusted "
        f"p < {rk.alpha:g}. A quasi-F with fewer than 4 instances counts as p = 0.05; "
        "a liberal quasi-F (its level at the estimated variance components above 5 %) "
        "counts with its calibrated p.",
        unit_text,
    ]
    f = rk.friedman
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
            f"Friedman test (Demšar 2006) over {f.blocks} {rk.unit}s and {len(f.methods)} "
            f"methods: chi2 = {f.chi2:.3g} (p = {f.p_chi2:.2g}){ff}; post-hoc: {post}."
        )
    else:
        out.append(
            f"No Friedman test: it needs at least 2 methods with a value on at least 2 {rk.unit}s."
        )
    left_out = [m for m in rk.methods if m not in rk.ranked]
    if left_out:
        n = len(rk.units)
        out.append(
            f"Not in the Friedman test (a value on fewer {rk.unit}s than the others, "
            f"of {n}): " + ", ".join(f"{m} ({rk.covered[m]})" for m in left_out) + "."
        )
    return tuple(out)


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
        notes=legend(rk)
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
        notes=legend(rk),
    )


def disagree_table(rk: Rankings) -> Table:
    rows = tuple((*_pair_row(p, rk)[:7], why(p, rk.unit)) for p in rk.pairs if not p.agree)
    notes = legend(rk)
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
        r + [why(p, rk.unit)]
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
        notes=legend(rk)[:1],
    )


def family_records(rk: Rankings) -> tuple[list[str], list[list]]:
    head = ["task", "unit", "a", "b", "difference", "p", "p_adjusted", "winner", "correction"]
    rows = [
        [t.task, t.unit, t.a, t.b, t.difference, t.p, t.p_adjusted, t.winner, rk.correction]
        for t in rk.tests
    ]
    return head, rows
