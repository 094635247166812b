"""The scaling display (Barrio et al. Figs. 3-4), display arguments in study files, the Hwang
part-2 tasks and the published Tables 3 and 5."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from delve_bench.analysis.collect import PrototaskReport, TaskReport
from delve_bench.errors import DelveError
from delve_bench.run.store import result_dir
from delve_bench.study import published as pub
from delve_bench.study.displays import StudyView
from delve_bench.study.scaling import exponent, write_scaling
from delve_bench.study.spec import load_study
from delve_bench.tasks.instances import task_layout
from delve_bench.tasks.names import TaskRef, resolve_tasks
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import WorkspaceDirs

REPO = Path(__file__).resolve().parents[2]


def test_exponent_recovers_a_power_law_and_needs_two_sizes():
    n = np.array([64, 128, 256, 512, 1024])
    assert exponent(n, 3.0 * n**2.2) == pytest.approx(2.2)
    assert exponent(n, 0.5 * n**-0.5) == pytest.approx(-0.5)
    # points that cannot be logged are left out, not turned into nan
    assert exponent(n, np.r_[0.0, 3.0 * n[1:] ** 1.5]) == pytest.approx(1.5)
    assert exponent(n[:1], n[:1] ** 2.0) is None
    assert exponent(np.array([64, 64]), np.array([1.0, 2.0])) is None


def _study(tmp_path: Path, displays: str) -> WorkspaceDirs:
    (tmp_path / "studies").mkdir(exist_ok=True)
    (tmp_path / "studies" / "s.yaml").write_text(
        f"methods: [lin-1]\ntasks: [kin-8nm/std.64]\ndisplays: {displays}\n"
    )
    return WorkspaceDirs(tmp_path)


def test_a_display_may_take_arguments(tmp_path):
    st = load_study(_study(tmp_path, "[diagrams, {scaling: [kin-8nm, 'hwang-*']}]"), "s")
    assert st.displays == ("diagrams", "scaling")
    assert st.display_args == {"scaling": ("kin-8nm", "hwang-*")}
    assert load_study(_study(tmp_path, "[scaling]"), "s").display_args == {}


@pytest.mark.parametrize(
    "displays, message",
    [
        ("[{wins: [kin-8nm]}]", "display 'wins' takes no arguments"),
        ("[{scaling: []}]", "displays.scaling: a list of prototask patterns"),
        ("[{scaling: kin-8nm}]", "displays.scaling: a list of prototask patterns"),
        ("[{scaling: [a], wins: [b]}]", "a display with arguments is {name: [args]}"),
        ("[scaling, {scaling: [a]}]", "display 'scaling' is listed twice"),
        ("[{scalling: [a]}]", "takes no arguments"),
    ],
)
def test_display_argument_errors_are_one_line(tmp_path, displays, message):
    with pytest.raises(DelveError) as e:
        load_study(_study(tmp_path, displays), "s")
    assert message in str(e.value) and "\n" not in str(e.value)


def _meta(
    ws: WorkspaceDirs,
    method: str,
    ref: TaskRef,
    i: int,
    status: str,
    cpu: float,
    nb: int,
    reused: bool = False,
):
    """A meta.json whose training took ``cpu`` CPU s, half of it the width stage: reused
    from another job (fit_cpu_seconds then holds the other half only) or computed."""
    d = result_dir(ws, method, ref, i)
    d.mkdir(parents=True)
    meta = {"method": method, "task": ref.full_name, "instance": i, "status": status}
    if status == "ok":
        info = {"n_basis": nb, "width_cpu_seconds": cpu / 2, "width_reused": reused}
        meta.update(fit_cpu_seconds=cpu / 2 if reused else cpu, info=info)
    (d / "meta.json").write_text(json.dumps(meta))


@pytest.mark.slow  # generates five hwang tasks, 0.7 s; the fast loop fits exponents above
def test_scaling_display_averages_tasks_fits_exponents_and_counts_failures(tmp_path):
    """Recorded metas on the hwang tasks (generated data): time ~ n^2 and #BF ~ n^0.5 give
    those exponents; a size where a task has no finished instance is bracketed and left
    out of the fit, and its failed instances are counted. The training time of a fit that
    reused the width stage (hwang-g1's) counts the stage's CPU seconds too."""
    ws = WorkspaceDirs(REPO, tmp_path / "results")
    refs = resolve_tasks(ws, ["hwang-g1/clean/std.1024", "hwang-g1/clean/std.2048"])
    refs += resolve_tasks(ws, ["hwang-g2/clean/std.1024", "hwang-g2/clean/std.2048"])
    refs += resolve_tasks(ws, ["hwang-g1/clean/std.4096"])  # g2 at 4096: failed
    refs += resolve_tasks(ws, ["hwang-g2/clean/std.4096"])
    for ref in refs:
        lay = task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)
        scale = 1.0 if ref.dataset == "hwang-g1" else 3.0  # the mean over tasks: 2 x n^2 ...
        for inst in lay.instances:
            failed = ref.dataset == "hwang-g2" and ref.size == 4096
            n = float(ref.size)
            cpu = scale * (n / 1024) ** 2
            status = "failed" if failed else "ok"
            reused = ref.dataset == "hwang-g1"
            _meta(ws, "lin-1", ref, inst.index, status, cpu, int(n**0.5), reused)
    reports = [
        PrototaskReport(
            d,
            "clean",
            "S",
            ("lin-1",),
            tuple(TaskReport(r, "hierarchical", 0, r.size, {}, {}) for r in refs if r.dataset == d),
        )
        for d in ("hwang-g1", "hwang-g2")
    ]
    view = StudyView(ws=ws, reports=reports, methods=["lin-1"])
    out = tmp_path / "report"
    files = write_scaling(view, out, ("hwang-*", "nothing-*"))
    assert files == ["figures/scaling.png", "tables/scaling.md", "tables/scaling.csv"]
    rows = (out / "tables/scaling.csv").read_text().splitlines()
    assert rows[0] == (
        "group,method,train_size,tasks,group_tasks,instances,failed,training_cpu_seconds,n_basis,"
        "width_cpu_seconds"
    )
    cells = {r.split(",")[2]: r.split(",") for r in rows[1:]}
    assert cells["1024"][3:7] == ["2", "2", "16", "0"]  # 8 instances per task at 1024
    assert float(cells["1024"][7]) == pytest.approx(2.0)  # mean of 1 (0.5 + 0.5 reused) and 3
    assert float(cells["2048"][7]) == pytest.approx(8.0)
    assert float(cells["2048"][9]) == pytest.approx(4.0)  # the width stage's share
    assert cells["4096"][3:7] == ["1", "2", "2", "2"]  # one task finished, two instances failed
    assert float(cells["exponent"][7]) == pytest.approx(2.0)  # from 1024 and 2048 only
    assert float(cells["exponent"][8]) == pytest.approx(0.5, abs=0.01)
    md = (out / "tables/scaling.md").read_text()
    assert "| hwang-* | lin-1 | 4096 | 1/2 | 2 | 2 | (16) |" in md
    assert "nothing-*" not in md  # a pattern that matches no task makes no panel

    # the study's own task list: a task of the group with no result yet (hwang-g3 at 1024)
    # makes that size incomplete, bracketed and out of the fit
    g3 = resolve_tasks(ws, ["hwang-g3/clean/std.1024"])
    write_scaling(replace(view, study_tasks=(*refs, *g3)), tmp_path / "partial", ("hwang-*",))
    md = (tmp_path / "partial/tables/scaling.md").read_text()
    assert "| hwang-* | lin-1 | 1024 | 2/3 | 16 |  | (2) |" in md
    rows = (tmp_path / "partial/tables/scaling.csv").read_text().splitlines()
    assert rows[-1].split(",")[7] == ""  # exponent: 2048 alone is complete, no slope

    # a method the study runs at 1024 only (skip_sizes): the sizes it skips have no row,
    # not a "0/2" that reads as still to come
    at_1024 = frozenset(r for r in refs if r.size == 1024)
    skips = replace(view, methods=["lin-1", "knn-cv-1"], method_tasks={"knn-cv-1": at_1024})
    write_scaling(replace(skips, study_tasks=tuple(refs)), tmp_path / "skip", ("hwang-*",))
    md = (tmp_path / "skip/tables/scaling.md").read_text()
    assert "| hwang-* | knn-cv-1 | 1024 | 0/2 |" in md and "knn-cv-1 | 2048" not in md
    assert "| hwang-* | lin-1 | 4096 | 1/2 |" in md


def test_the_hwang_part_2_tasks_have_test_sets_as_large_as_their_training_sets():
    """Barrio et al. §6.2.3: training and test sets of 1024-8192 cases; 8192 leaves one
    instance, analysed with the test-case t-test (the fixed design's)."""
    ws = WorkspaceDirs(REPO)
    study = load_study(ws, "barrio-hwang")
    refs = study.refs(ws)
    assert len(refs) == 40 and {r.size for r in refs} == {1024, 2048, 4096, 8192}
    for ref in refs:
        lay = task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)
        assert lay.test_size == ref.size and len(lay.instances) == 8192 // ref.size
        assert lay.design == ("fixed" if ref.size == 8192 else "hierarchical")
    assert [m.name for m in study.methods] == list(pub.HWANG_ORDER)


def test_published_tables_3_and_5_are_consistent_with_the_paper_totals():
    """Column sums (wins) and row sums (losses) of Table 3 as Barrio et al. print them."""
    order = pub.HWANG_ORDER
    wins = {c: sum(pub.BARRIO_TABLE3[r][order.index(c)] or 0 for r in order) for c in order}
    losses = {r: sum(x or 0 for x in pub.BARRIO_TABLE3[r]) for r in order}
    assert [wins[m] for m in order] == [7, 5, 5, 17, 0, 15]
    assert [losses[m] for m in order] == [8, 7, 5, 2, 19, 8]
    assert all(pub.BARRIO_TABLE3[m][i] is None for i, m in enumerate(order))
    t5 = pub.BARRIO_TABLE5
    assert t5["n_basis"]["ssge-pta10-1"] == t5["n_basis"]["ssge-oscil5-1"]  # Oscil keeps size
    assert "svm-1" not in t5["steps"]


def test_a_task_with_one_training_set_is_analysed_over_its_test_cases(tmp_path):
    """hwang std.8192 has one instance: its statistics are the fixed design's (paired t over
    the test cases) instead of an error asking for a second instance."""
    from delve_bench import api

    task = "hwang-g1/noisy/std.8192"
    assert api.run("lin-1", task, root=tmp_path, budget_mode="work").ok
    r = api.stats("lin-1", task, root=tmp_path)
    assert (r.design, r.instances, r.test_size) == ("fixed", 1, 8192)
    y = api.losses("lin-1", task, root=tmp_path)["S"].to_numpy()
    assert r.mean == pytest.approx(y.mean())
    assert r.se == pytest.approx(y.std(ddof=1) / np.sqrt(len(y)))


def test_tables_3_and_5_set_ours_beside_the_published(tmp_path):
    """Table 5 from recorded metas at n = 8192 (generated hwang tasks), Table 3 from the
    significant wins of an overview; both print ours / published."""
    from types import SimpleNamespace

    from delve_bench.study.displays import _wins_table, write_hwang_basis

    ws = WorkspaceDirs(REPO, tmp_path / "results")
    refs = resolve_tasks(ws, ["hwang-g1/noisy/std.8192", "hwang-g2/noisy/std.8192"])
    for k, ref in enumerate(refs):
        _meta(ws, "ssge-sffs-1", ref, 0, "ok", 1.0, 30 + 10 * k)
        d = result_dir(ws, "ssge-sffs-1", ref, 0) / "meta.json"
        meta = json.loads(d.read_text())
        meta["info"].update(adds=100, removes=20 + 10 * k)
        d.write_text(json.dumps(meta))
        _meta(ws, "rvm-1", ref, 0, "failed", 0.0, 0)  # killed: no value, counted as missing
    reports = [
        PrototaskReport(r.dataset, "noisy", "S", (), (TaskReport(r, "fixed", 1, 8192, {}, {}),))
        for r in refs
    ]
    view = StudyView(ws=ws, reports=reports, methods=["ssge-sffs-1", "rvm-1"])
    write_hwang_basis(view, tmp_path / "out")
    md = (tmp_path / "out/tables/barrio-table5.md").read_text()
    assert "| #BF | 35 / 34.5 | – (0/2 tasks) / 19.2 |" in md
    assert "| #BFa/r | 125 / 127.4 | – (0/2 tasks) / 1234.1 |" in md
    # a study still running: its third task at 8192 has no result yet, and the means say
    # so instead of looking complete
    third = resolve_tasks(ws, ["hwang-g3/noisy/std.8192"])
    write_hwang_basis(replace(view, study_tasks=(*refs, *third)), tmp_path / "partial")
    md = (tmp_path / "partial/tables/barrio-table5.md").read_text()
    assert "| #BF | 35 (2/3 tasks) / 34.5 | – (0/3 tasks) / 19.2 |" in md
    # a method the study does not run at 8192 reads "not run", and the SVM, which records
    # no steps and has none published, a bare "–"
    at_1024 = frozenset(resolve_tasks(ws, ["hwang-g1/noisy/std.1024"]))
    skips = replace(
        view, methods=["ssge-sffs-1", "rvm-1", "svm-1"], method_tasks={"rvm-1": at_1024}
    )
    write_hwang_basis(skips, tmp_path / "skip")
    md = (tmp_path / "skip/tables/barrio-table5.md").read_text()
    assert "| #BF | 35 / 34.5 | – (not run) / 19.2 | – (0/2 tasks) / 3407 |" in md
    assert "| #BFa/r | 125 / 127.4 | – (not run) / 1234.1 | – |" in md
    assert "Not run: RVM, which the study does not run at n = 8192" in md

    wins = {("ssge-sffs-1", "rvm-1"): 0, ("rvm-1", "ssge-sffs-1"): 2}
    coverage = {"ssge-sffs-1": 2, "rvm-1": 2, "ssge-pta21-1": 0}
    ov = SimpleNamespace(wins=wins, tasks=(1, 2), coverage=coverage)
    order, table = pub.HWANG_ORDER, pub.BARRIO_TABLE3
    view = replace(view, methods=["ssge-pta21-1", "ssge-sffs-1", "rvm-1"])
    at_8192 = lambda ref: ref.size == 8192  # noqa: E731
    args = (ov, order, table, 10, at_8192, "t3", "{tasks} tasks", "note")
    _wins_table(view, tmp_path / "out", *args)
    md = (tmp_path / "out/t3.md").read_text()
    assert "| SFFS | – | 0 / 0 |" in md and "| RVM | 2 / 3 | – |" in md
    assert "| wins | 2 / 3 | 0 / 0 |" in md and "## 2 tasks" in md
    assert "PTA(2,1)" not in md  # not run at this size: left out, not shown as never winning
    assert "| tasks |" not in md  # complete: no coverage row on the page ...
    csv = (tmp_path / "out/t3.csv").read_text()
    assert "tasks,2,2,10,10" in csv  # ... but the CSV carries it, beside the published 10
    # a study still running: counted against its design (three tasks at 8192; a task at
    # another size does not count), and the method with fewer results says so
    other = resolve_tasks(ws, ["hwang-g3/noisy/std.1024"])
    ov.coverage["rvm-1"] = 1
    _wins_table(replace(view, study_tasks=(*refs, *third, *other)), tmp_path / "p", *args)
    md = (tmp_path / "p/t3.md").read_text()
    assert "## 3 tasks" in md and "| tasks | 2/3 | 1/3 |" in md
