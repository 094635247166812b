"""Your method beside a study: the study's packed results read in place (``--with``),
paired with the workspace's own on task, instance and case; a result made on another
task refused in one line; ``run --study``; compact ``compare``; the notebook reprs.

The study here is made on the spot (lin-1 on a generated hwang task, packed as
``delve study run`` packs it), so nothing depends on the committed studies' numbers.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import REPO, one_line_error

from delve_bench import api
from delve_bench.errors import DelveError
from delve_bench.study.pack import unpack
from delve_bench.study.run import run_study
from delve_bench.study.spec import load_study
from delve_bench.workspace import WorkspaceDirs

TASK = "hwang-g1/noisy/std.64"
TINY = f"""
description: lin-1 on one generated task (a test study)
defaults: {{budget_mode: work}}
methods: {{lin-1: {{}}}}
tasks: [{TASK}, hwang-g1/noisy/std.128]
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> WorkspaceDirs:
    """A workspace with study ``tiny`` run and packed (its working store removed, as in a
    clone), and knn-cv-1 run by the user on the study's tasks."""
    root = tmp_path_factory.mktemp("beside")
    (root / "studies").mkdir()
    (root / "studies" / "tiny.yaml").write_text(TINY)
    ws = WorkspaceDirs(root)
    st = load_study(ws, "tiny")
    assert not [o for o in run_study(ws, st, progress=False) if o.status != "ok"]
    shutil.rmtree(root / "results" / "tiny" / "runs")
    summary = api.run("knn-cv-1", study="tiny", root=ws)
    assert summary.ok and summary.ran == 16
    return ws


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_run_study_takes_the_study_tasks_and_default_budget(tiny):
    p = api.plan("knn-cv-1", study="tiny", root=tiny, force=True)
    assert p.tasks == [TASK, "hwang-g1/noisy/std.128"] and p.budget_mode == "work"
    assert len(p.todo) == 16  # every instance of both tasks
    p = api.plan("knn-cv-1", "hwang-g1/noisy/std.128", study="tiny", root=tiny, force=True)
    assert p.tasks == ["hwang-g1/noisy/std.128"]
    with pytest.raises(DelveError, match="is not a task of study tiny"):
        api.plan("knn-cv-1", "hwang-g2", study="tiny", root=tiny)
    with pytest.raises(DelveError, match="study tiny sets the budget mode"):
        api.plan("knn-cv-1", study="tiny", root=tiny, budget_mode="cpu")


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_with_reads_the_packed_results_in_place_and_pairs_them(tiny, tmp_path):
    """--with gives exactly the numbers of the same results unpacked into one store."""
    both = api.Workspace(tiny.root).with_study("tiny")
    c = both.compare("knn-cv-1", "lin-1", TASK)
    assert c.instances == 8 and c.method_b == "lin-1"
    # the same results in the ordinary layout: unpacked lin-1 beside a copy of knn-cv-1
    other = tmp_path / "store"
    unpack(tiny.root / "results" / "tiny", other, ["lin-1"], load_study(tiny, "tiny").refs(tiny))
    shutil.copytree(tiny.results / "knn-cv-1", other / "knn-cv-1")
    plain = api.compare("knn-cv-1", "lin-1", TASK, root=WorkspaceDirs(tiny.root, other))
    for k in ("difference", "se", "p", "mean_a", "mean_b", "instances_used"):
        assert getattr(c, k) == getattr(plain, k), k
    # nothing was written into the study's folder
    assert sorted(p.name for p in (tiny.root / "results" / "tiny").iterdir()) == [
        "losses",
        "meta",
    ]


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_without_with_the_missing_study_method_names_the_next_command(tiny):
    with pytest.raises(DelveError) as e:
        api.compare("knn-cv-1", "lin-1", TASK, root=tiny)
    assert "add `--with tiny` to read the study's, or run `delve run lin-1" in str(e.value)


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_own_results_of_a_study_method_elsewhere_say_they_are_read_instead(tiny, tmp_path):
    """Your lin-1 on one task is read instead of the study's lin-1 (per method): on the
    study's other task the error says so, not that the study lacks it."""
    mine = tmp_path / "ws"
    shutil.copytree(tiny.root, mine)
    assert api.run("lin-1", TASK, root=mine, budget_mode="work").ok
    ws = api.Workspace(mine).with_study("tiny")
    with pytest.raises(DelveError) as e:
        ws.compare("knn-cv-1", "lin-1", "hwang-g1/noisy/std.128")
    msg = str(e.value)
    assert "\n" not in msg and "to read the study's" in msg
    assert f"your {mine / 'results' / 'lin-1'} is read instead of study tiny's lin-1" in msg


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_a_user_result_made_on_another_task_is_refused_naming_the_field(tiny, tmp_path):
    mine = tmp_path / "ws"
    shutil.copytree(tiny.root, mine)
    ws = WorkspaceDirs(mine)
    meta_path = ws.results / "knn-cv-1" / "hwang-g1" / "noisy" / "std.64" / "3" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["fingerprint"]["task.index"] = "0123456789abcdef"
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(DelveError) as e:
        api.compare("knn-cv-1", "lin-1", TASK, root=api.Workspace(ws).with_study("tiny"))
    msg = str(e.value)
    assert "\n" not in msg
    assert "(instance 3) was made on other task index files than study tiny's" in msg
    assert "task.index: 0123456789abcdef here" in msg


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_report_with_the_study_puts_the_users_method_among_the_reference(tiny, tmp_path):
    files = (
        api.Workspace(tiny.root)
        .with_study("tiny")
        .report(methods=["knn-cv-1", "lin-1"], out=tmp_path / "rep", plot=True)
    )
    summary = (tmp_path / "rep" / "tables" / "summary-S.md").read_text()
    row = next(x for x in summary.splitlines() if x.startswith(f"| {TASK} |"))
    assert row.count("±") == 2  # both methods have a value
    assert Path(files.index).is_absolute() and Path(files.index).is_file()
    assert files.plots and all(Path(p).is_absolute() and Path(p).is_file() for p in files.plots)
    html = files._repr_html_()
    assert "data:image/png;base64," in html and str(files.index) in html


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_check_with_the_study_as_baseline(tiny, delve):
    r = delve("check", "--with", "tiny", root=tiny.root)
    assert "no results here of a method of study tiny" in r.stderr
    r = delve("check", root=tiny.root)
    one_line_error(r, "give a BASELINE_ROOT or --with STUDY")


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_compare_over_several_tasks_is_one_row_per_task(tiny, delve):
    r = delve("compare", "knn-cv-1", "lin-1", "--with", "tiny", root=tiny.root, check=True)
    lines = r.stdout.splitlines()
    rows = [x for x in lines if x.startswith("hwang-g1/")]
    assert [x.split()[0] for x in rows] == [TASK, "hwang-g1/noisy/std.128"]
    assert all(len(x.split()) >= 8 for x in rows)
    assert re.search(r"knn-cv-1 better on \d of 2 tasks", r.stdout)
    detail = delve("compare", "knn-cv-1", "lin-1", "--with", "tiny", "--detail", root=tiny.root)
    assert detail.stdout.count("Estimated expected difference") == 2
    r = delve("stats", "lin-1", TASK, "--with", "nope", root=tiny.root)
    one_line_error(r, "unknown study 'nope'")


def test_unpack_with_nothing_to_unpack_says_where_the_results_are(tmp_path, delve):
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "tiny.yaml").write_text(TINY)
    r = delve("study", "unpack", "tiny")
    one_line_error(r, "study tiny has no committed results (looked in ")
    assert str(tmp_path / "results" / "tiny") in r.stderr


def test_the_reprs_read_as_text():
    ws = api.Workspace("~/delve-test-nothing-here")
    assert ws.root == Path.home() / "delve-test-nothing-here"
    assert not Path("~").exists() or Path("~").resolve() != ws.root.parent
    p = ws.plan("lin-1", "kin-8nm/std.64", budget_mode="work")
    text = repr(p)
    assert text.startswith("would run 8 jobs:") and "lin-1" in text
    assert repr(p.estimate).startswith("Estimate: about ")
    assert "<table>" in p._repr_html_() and "Estimate: about" in p._repr_html_()


def test_every_study_with_committed_results_ships_in_the_wheel():
    """pyproject's force-include lists the packed losses and meta of every committed
    study (never its working store or report)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    conf = tomllib.loads((REPO / "pyproject.toml").read_text())
    inc = conf["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    for study in sorted((REPO / "studies").glob("*.yaml")):
        res = REPO / "results" / study.stem
        for sub in ("losses", "meta"):
            if (res / sub).is_dir():
                key = f"results/{study.stem}/{sub}"
                assert inc.get(key) == f"delve_bench/_specs/{key}", key
    assert not [k for k in inc if k.endswith(("runs", "report"))]
    # and nothing else: hatch refuses to build a wheel when a forced path is missing
    assert all((REPO / k).is_dir() for k in inc if k.startswith("results/")), inc


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_the_comparison_verdict_is_one_line(tiny):
    c = api.Workspace(tiny.root).with_study("tiny").compare("knn-cv-1", "lin-1", TASK)
    v = repr(c)
    assert v.startswith("ComparisonResult: ") and "\n" not in v
    assert f"on {TASK} (loss S, standardised): A - B = " in v
    assert np.isfinite(c.p)


@pytest.mark.slow  # the study and the user run made by the tiny fixture
def test_the_study_commands_print_what_the_api_returns(tiny, tmp_path, delve):
    """Each `delve study` command is its API function and a formatter: the command's
    output is the result's text, in a copy of the tiny study's workspace."""
    from delve_bench.report.commands import format_study_status, format_verification

    root = tmp_path / "ws"
    shutil.copytree(tiny.root / "studies", root / "studies")
    shutil.copytree(tiny.root / "results" / "tiny", root / "results" / "tiny")
    st = api.study_status("tiny", root=root)
    assert [(r.name, r.done, r.missing) for r in st.rows] == [("lin-1", 16, 0)]
    assert (st.done, st.total, st.cpu_left) == (16, 16, 0.0)
    out = delve("study", "status", "tiny", root=root, check=True).stdout
    assert out == format_study_status(st) == repr(st) + "\n"

    check = api.study_report_check("tiny", root=root)
    assert not check.identical and "RESULTS.md (missing)" in check.differs
    written = api.study_report("tiny", root=root)
    assert "RESULTS.md" in written.files and written.out == root / "results" / "tiny" / "report"
    assert api.study_report_check("tiny", root=root).identical
    assert repr(api.study_report_check("tiny", root=root)) == (
        "ReportCheck(study tiny: every file is byte-identical)"
    )

    v = api.study_verify("tiny", root=root)
    assert v.ok and [c.name for c in v.checks][-1] == "reproduce lin-1"
    assert delve("study", "verify", "tiny", root=root, check=True).stdout == format_verification(v)

    assert api.study_run("tiny", root=root).ran == 0  # everything is packed already
    u = api.study_unpack("tiny", root=root)
    assert (u.written, u.dest) == (16, root / "results" / "tiny" / "runs")
    with pytest.raises(DelveError, match="nothing to unpack"):
        api.study_unpack("tiny", root=root)
