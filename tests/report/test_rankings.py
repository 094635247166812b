"""Rankings across tasks: corrected per-task tests, per-prototask aggregation, the
Friedman/critical-difference view (Demšar 2006's worked example through the report's own
pipeline and diagram), and where the two disagree."""

from __future__ import annotations

import numpy as np
import pytest
from support import comparison, summary

from delve_bench.analysis.collect import MethodCell, PairCell, PrototaskReport, TaskReport
from delve_bench.analysis.rankings import rankings
from delve_bench.report.cd import write_cd_diagram
from delve_bench.report.rankings import disagree_table, family_records, legend, rankings_table
from delve_bench.stats.ranking import DEMSAR_METHODS, DEMSAR_RANKS
from delve_bench.tasks.names import TaskRef

NAMES = list(DEMSAR_METHODS)


def cell(m: str, mean: float) -> MethodCell:
    return MethodCell(
        method=m,
        status="ok",
        task_instances=8,
        used=tuple(range(8)),
        summary=summary(mean),
    )


def pair(a: str, b: str, diff: float, p: float, bounded: bool = False) -> PairCell:
    return PairCell(
        a=a,
        b=b,
        instances=tuple(range(8)),
        comparison=comparison(diff, p, bounded),
    )


def task(ds: str, pt: str, size: int, means: dict, ps: dict) -> TaskReport:
    methods = list(means)
    pairs = {}
    for i, a in enumerate(methods):
        for b in methods[i + 1 :]:
            pairs[(a, b)] = pair(a, b, means[a] - means[b], ps.get((a, b), 0.5))
    return TaskReport(
        ref=TaskRef(ds, pt, size),
        design="hierarchical",
        task_instances=8,
        test_size=512,
        cells={m: cell(m, v) for m, v in means.items()},
        pairs=pairs,
    )


def proto(ds, pt, tasks, methods, loss="S"):
    return PrototaskReport(
        dataset=ds, prototask=pt, loss=loss, methods=tuple(methods), tasks=tuple(tasks)
    )


def test_demsar_example_through_the_report_pipeline(tmp_path):
    # 14 prototasks (one task each) whose losses rank the methods as Demšar's Table 6
    reports = [
        proto(f"d{i}", "p", [task(f"d{i}", "p", 64, dict(zip(NAMES, row, strict=True)), {})], NAMES)
        for i, row in enumerate(DEMSAR_RANKS)
    ]
    rk = rankings(reports, NAMES, "S")
    f = rk.friedman
    assert f is not None and f.blocks == 14
    assert np.round(f.average_ranks, 3).tolist() == [3.143, 2.0, 2.893, 1.964]
    assert round(f.chi2, 2) == 9.28 and round(f.iman_davenport, 2) == 3.69
    assert round(f.cd, 2) == 1.25  # Demšar (2006) §3.2.4: CD = 1.25 at alpha = 0.05
    # the drawn diagram carries the same critical difference
    files = write_cd_diagram(rk, tmp_path)
    assert [p.name for p in files] == ["cd-S.svg", "cd-S.png"]
    # every method is within CD of every other, so one bar joins them all
    assert rk.cd_groups() == [tuple(rk.order)]
    assert "CD = 1.25" in " ".join(rankings_table(rk).notes)


def test_holm_over_all_tasks_and_pairs_and_aggregation_per_prototask():
    M = ["a", "b", "c"]
    t1 = task("k", "x", 64, {"a": 0.5, "b": 0.6, "c": 0.7}, {("a", "b"): 0.001, ("a", "c"): 0.0001})
    t2 = task("k", "x", 128, {"a": 0.4, "b": 0.5, "c": 0.6}, {("a", "b"): 0.002, ("b", "c"): 0.04})
    t3 = task("q", "y", 64, {"a": 0.9, "b": 0.8, "c": 0.7}, {("a", "c"): 0.003})
    reports = [proto("k", "x", [t1, t2], M), proto("q", "y", [t3], M)]
    rk = rankings(reports, M, "S")
    from statsmodels.stats.multitest import multipletests

    head, rows = family_records(rk)
    raw = [r[head.index("p")] for r in rows]
    assert len(raw) == 9  # 3 pairs x 3 tasks, one family
    want = multipletests(raw, method="holm")[1]
    assert [r[head.index("p_adjusted")] for r in rows] == pytest.approx(want)
    v = {(p.a, p.b): p for p in rk.pairs}
    # a beats b on prototask k (two tasks, counted once)
    assert (v[("a", "b")].units_a, v[("a", "b")].units_b, v[("a", "b")].delve) == (1, 0, "a")
    # a beats c on k but c beats a on q: mixed
    assert v[("a", "c")].delve == "mixed" and not v[("a", "c")].agree
    # b vs c: p = 0.04 is not significant after Holm over 9 tests
    assert v[("b", "c")].delve is None
    assert rk.wins("a") == 2 and rk.losses("a") == 1
    bh = rankings(reports, M, "S", correction="bh")
    assert [t.p_adjusted for t in bh.tests] == pytest.approx(multipletests(raw, method="fdr_bh")[1])
    per_task = rankings(reports, M, "S", unit="task")
    assert {(p.a, p.b): p.units_a for p in per_task.pairs}[("a", "b")] == 2
    assert len(per_task.blocks) == 3 and len(rk.blocks) == 2


def test_bounded_quasi_f_counts_as_p_005_and_disagreements_are_explained():
    M = ["a", "b"]
    t = TaskReport(
        ref=TaskRef("boston", "price", 128),
        design="2-way",
        task_instances=2,
        test_size=250,
        cells={"a": cell("a", 0.3), "b": cell("b", 0.4)},
        pairs={("a", "b"): pair("a", "b", -0.1, 0.0001, bounded=True)},
    )
    rk = rankings([proto("boston", "price", [t], M)], M, "S")
    assert rk.tests[0].p == 0.05 and rk.tests[0].winner is None
    # the CD view has only one block: no Friedman test, said plainly
    assert rk.friedman is None
    assert any("No Friedman test" in n for n in legend(rk))
    tbl = disagree_table(rk)
    assert "Holm" in tbl.title


def test_a_method_on_fewer_prototasks_is_left_out_of_the_friedman_test_not_the_others():
    """A study still running: one method has a value on 1 of 14 prototasks. The Friedman
    test keeps its complete block design over the other methods (Demšar's example) and
    says which method it left out and why; the pairwise tests still include it."""
    reports = []
    for i, row in enumerate(DEMSAR_RANKS):
        means = dict(zip(NAMES, row, strict=True))
        if i == 0:
            means["late"] = 0.1
        reports.append(proto(f"d{i}", "p", [task(f"d{i}", "p", 64, means, {})], [*NAMES, "late"]))
    for r in reports[1:]:
        t = r.tasks[0]
        t.cells["late"] = MethodCell(method="late", status="not run", task_instances=8)
    rk = rankings(reports, [*NAMES, "late"], "S")
    assert rk.friedman is not None and rk.friedman.blocks == 14
    assert rk.ranked == tuple(NAMES) and round(rk.friedman.cd, 2) == 1.25
    notes = " ".join(rankings_table(rk).notes)
    assert (
        "Not in the Friedman test (a value on fewer prototasks than the others, of 14): late (1)"
        in notes
    )
    assert any("late" in (t.a, t.b) for t in rk.tests)


def test_the_wilcoxon_posthoc_verdict_depends_on_the_pool_through_holm():
    """A beats B on all 8 prototasks: Wilcoxon p = 2 / 2^8. Alone (1 pair) they differ;
    beside four more methods (15 pairs), Holm multiplies that smallest p by 15 and they do
    not, their own results unchanged. The note said a pair's verdict could not change."""
    rng = np.random.default_rng(1)
    a = rng.uniform(0.3, 0.6, 8)
    others = {m: rng.uniform(0.2, 0.8, 8) for m in ("c", "d", "e", "f")}

    def ranked(methods):
        means = {"a": a, "b": a + 0.05, **others}
        reports = [
            proto(
                f"d{i}",
                "p",
                [task(f"d{i}", "p", 64, {m: means[m][i] for m in methods}, {})],
                methods,
            )
            for i in range(8)
        ]
        return rankings(reports, methods, "S", posthoc="wilcoxon")

    alone, pool = ranked(["a", "b"]), ranked(["a", "b", "c", "d", "e", "f"])
    assert alone.friedman is not None and pool.friedman is not None
    assert alone.friedman.pair_p[("a", "b")] == pytest.approx(2 / 2**8)
    assert alone.friedman.differ("a", "b") and not pool.friedman.differ("a", "b")
    assert pool.friedman.pair_p[("a", "b")] == pytest.approx(15 * 2 / 2**8)
    note = " ".join(rankings_table(pool).notes)
    assert "cannot change" not in note
    assert "Holm's correction runs over all 15 pairs: adding a method can only raise" in note
    from delve_bench.cli import cli

    help_text = next(p for p in cli.commands["report"].params if p.name == "posthoc").help
    assert "does not depend on the other methods" not in help_text
    assert "adding a method can only raise a pair's adjusted p" in help_text
