"""The Python API (delve_bench.api) on real data, and the CLI as a thin layer over it:
the same records in `--json`, the dry-run plan and its estimate, help and completion."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import shutil

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from delve_bench import api
from delve_bench.cli import cli
from delve_bench.run.estimate import _from_history, _Record, duration, schedule

TASKS = ["kin-8nm/std.64", "boston/price/std.32"]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """lin-1 and knn-cv-1 on a hierarchical and a 2-way task, run through the API."""
    ws = api.Workspace(tmp_path_factory.mktemp("api"))
    summary = ws.run(["lin-1", "knn-cv-1"], TASKS, budget_mode="work")
    assert summary.ok and summary.ran == 32 and summary.skipped == 0
    return ws


def invoke(ws, *args):
    r = CliRunner().invoke(cli, ["--root", str(ws.root), *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_losses_are_the_per_case_files_as_one_dataframe(study):
    df = study.losses("lin-1", "kin-8nm/std.64")
    assert len(df) == 4096 and list(df.columns) == [
        "method",
        "task",
        "instance",
        "case",
        "S",
        "A",
        "L",
    ]
    assert sorted(df["instance"].unique()) == list(range(8))
    f = pd.read_csv(study.results_dir / "lin-1/kin-8nm/dist/std.64/3/losses.csv")
    got = df[df["instance"] == 3].set_index("case").loc[f["case"]]
    np.testing.assert_array_equal(got["S"].to_numpy(), f["S"].to_numpy())
    np.testing.assert_array_equal(got["L"].to_numpy(), f["L"].to_numpy())
    # a name that means several tasks gives all of them; the module function is the same
    both = api.loss_table("knn-cv-1", "boston", root=study.root)
    assert set(both["task"]) == {"boston/price/std.32"} and len(both) == 8 * 250


def test_results_table_matches_stats_for_every_method_and_task(study):
    df = study.results(loss=["S", "A"])
    assert len(df) == 2 * 2 * 2 and list(df.columns) == api.RESULT_COLUMNS
    for row in df.itertuples():
        s = study.stats(row.method, row.task, row.loss)
        assert row.mean == s.mean and row.se == s.se
        assert row.standardized_mean == s.standardized["mean"] and row.status == "ok"
        assert row.instances == 8


def test_compare_returns_the_json_record_as_a_dataclass(study):
    c = study.compare("knn-cv-1", "lin-1", "kin-8nm/std.64")
    assert isinstance(c, api.ComparisonResult)
    assert c.difference == pytest.approx(c.mean_a - c.mean_b) and c.test == "t"
    (rec,) = json.loads(invoke(study, "compare", "knn-cv-1", "lin-1", "kin-8nm/std.64", "--json"))
    assert rec.pop("kind") == "comparison" and rec.pop("schema_version") == 1
    assert rec == json.loads(json.dumps(dataclasses.asdict(c)))  # same fields, same numbers


def test_two_way_sds_are_named_for_what_they_are_and_bayes_says_what_it_gives(study):
    c = study.compare("knn-cv-1", "lin-1", "boston/price/std.32", bayes=True)
    assert c.design == "2-way" and c.test == "F"
    assert c.sd_test is None and c.sd_cases is not None and c.sd_interaction is not None
    assert 0 < c.posterior_opposite_sign < 1 and "hierarchical design only" in c.bayes_note
    h = study.compare("knn-cv-1", "lin-1", "kin-8nm/std.64", bayes=True)
    assert h.sd_cases is None and h.sd_interaction is None and h.sd_test > 0
    assert 0 <= h.posterior_opposite_sign <= 1 and h.bayes_note is None
    text = invoke(study, "compare", "knn-cv-1", "lin-1", "boston/price/std.32", "--bayes")
    assert "SD from interactions & stoch. prediction:" in text
    assert "Posterior mass on the other side of 0 (2-way posterior):" in text
    assert "Note: the thesis derives eq. 2.16 for the hierarchical design only" in text


def test_comparisons_default_to_every_task_both_finished(study):
    cs = study.comparisons("knn-cv-1", "lin-1")
    assert [c.task for c in cs] == ["boston/price/std.32", "kin-8nm/dist/std.64"]


def test_comparisons_read_each_instance_once_and_the_memo_changes_no_number(study, monkeypatch):
    """Finding the tasks both methods finished reads every instance's state; comparing
    them reads the same states again: within one command (store.one_reading) they are
    read once, to the same results."""
    from delve_bench.run import store

    reads: collections.Counter = collections.Counter()
    state = store.instance_state

    def counted(d):
        reads[d] += 1
        return state(d)

    monkeypatch.setattr(store, "instance_state", counted)
    once = study.comparisons("knn-cv-1", "lin-1")
    assert len(reads) == 2 * 2 * 8 and set(reads.values()) == {1}  # 2 methods, 2 tasks
    reads.clear()
    monkeypatch.setattr(store, "one_reading", contextlib.nullcontext)
    twice = study.comparisons("knn-cv-1", "lin-1")
    assert len(reads) == 2 * 2 * 8 and set(reads.values()) == {2}
    assert [json.dumps(dataclasses.asdict(c)) for c in once] == [
        json.dumps(dataclasses.asdict(c)) for c in twice
    ]


def test_one_reading_remembers_a_task_only_while_it_lasts(study, monkeypatch):
    from delve_bench.analysis.task import layout_of
    from delve_bench.run import store

    ws, calls = study.core, []
    ref = api._one_ref(ws, "kin-8nm/std.64")
    layout = layout_of(ws, ref)
    read = store._task_instances
    monkeypatch.setattr(store, "_task_instances", lambda *a: calls.append(a) or read(*a))
    with store.one_reading():
        first = store.task_instances(ws, "lin-1", ref, layout)
        with store.one_reading():  # nested: the same memo
            assert store.task_instances(ws, "lin-1", ref, layout) == first
        assert store.task_instances(ws, "lin-1", ref, layout) == first and len(calls) == 1
        store.task_instances(ws, "knn-cv-1", ref, layout)  # another method: read
        assert len(calls) == 2
    store.task_instances(ws, "lin-1", ref, layout)
    store.task_instances(ws, "lin-1", ref, layout)
    assert len(calls) == 4  # outside: every call reads


def test_a_second_comparison_sees_the_files_as_they_are_then(study, tmp_path):
    """Nothing read by one call is kept for the next (a notebook or a server lives on)."""
    shutil.copytree(study.results_dir, tmp_path / "results")
    ws = api.Workspace(tmp_path)
    both = ["boston/price/std.32", "kin-8nm/dist/std.64"]
    assert [c.task for c in ws.comparisons("knn-cv-1", "lin-1")] == both
    (tmp_path / "results/lin-1/kin-8nm/dist/std.64/3/meta.json").unlink()
    assert [c.task for c in ws.comparisons("knn-cv-1", "lin-1")] == both[:1]


def test_api_errors_are_one_line_delve_errors(study):
    with pytest.raises(api.DelveError, match="did you mean lin-1"):
        study.losses("lin1", "kin-8nm/std.64")
    with pytest.raises(api.DelveError, match="names 5 tasks"):
        study.compare("knn-cv-1", "lin-1", "kin-8nm")
    with pytest.raises(api.DelveError, match="delve run gp-map-1"):
        study.losses("gp-map-1", "kin-8nm/std.64")


def test_every_data_command_prints_one_json_document_with_kind_and_version(study):
    for args, kind in (
        (["datasets"], "dataset"),
        (["tasks", "kin-8nm"], "task"),
        (["methods"], "method"),
        (["status"], "status"),
        (["stats", "lin-1", *TASKS], "stats"),
        (["compare", "knn-cv-1", "lin-1"], "comparison"),
    ):
        doc = json.loads(invoke(study, *args, "--json"))
        assert isinstance(doc, list) and doc, args
        assert {(r["kind"], r["schema_version"]) for r in doc} == {(kind, 1)}, args
        lines = invoke(study, *args, "--jsonl").splitlines()
        assert [json.loads(x) for x in lines] == doc
    (m,) = json.loads(invoke(study, "methods", "gp-mc-1", "--json"))
    assert m["budget"] == {"cpu_per_case": 30, "work": 20000} and m["losses"] == ["S", "A", "L"]
    plan = json.loads(invoke(study, "run", "lin-1", "kin-8nm/std.64", "--dry-run", "--json"))
    assert plan["kind"] == "plan" and plan["todo"] == [] and len(plan["skipped"]["done"]) == 8


def test_methods_lists_losses_budget_rule_plugin_and_summary(study):
    text = invoke(study, "methods")
    line = next(x for x in text.splitlines() if x.startswith("gp-mc-1 "))
    assert (
        "S A L" in line
        and "cpu 30 s/case; work 20000" in line
        and "delve_bench.methods.gp:GpMc" in line
    )
    assert (
        "Gaussian process (ARD), hyperparameters integrated by persistent hybrid Monte Carlo"
        in " ".join(text.split())
    )
    # the description is wrapped to the terminal's width, which differs between a terminal,
    # a pipe and a pytest-xdist worker: compare the words
    full = " ".join(invoke(study, "methods", "gp-mc-1").split())
    assert "26 of the last two thirds used" in full and "persistence=0.95" in full


# ---- plan and estimate -----------------------------------------------------------------


def test_dry_run_plans_from_budgets_and_runs_nothing(study):
    p = study.plan(["gp-mc-1", "mlp-ese-1"], "kin-8nm/std.256", jobs=2)
    assert len(p.todo) == 16 and not (study.results_dir / "gp-mc-1").exists()
    by = {m.method: m for m in p.estimate.methods}
    # cpu mode: 30 s per training case on the 1996 machine x 0.05; 1.875 s per case
    assert by["gp-mc-1"].cpu_seconds == pytest.approx(8 * 30 * 256 * 0.05)
    assert by["mlp-ese-1"].cpu_seconds == pytest.approx(8 * 1.875 * 256 * 0.05)
    assert p.estimate.cpu_seconds == pytest.approx(8 * 384 + 8 * 24)
    w = p.estimate.workers
    assert p.estimate.wall_seconds == pytest.approx(schedule([384] * 8 + [24] * 8, w))
    text = invoke(study, "run", "gp-mc-1", "mlp-ese-1", "kin-8nm/std.256", "--dry-run", "-j", "2")
    assert "would run 16 jobs" in text and "51 min" in text
    assert "budget 30 s/case x time scale 0.05 = 6 min/job (n=256)" in text
    assert not (study.results_dir / "gp-mc-1").exists()


def test_dry_run_lists_skipped_jobs_and_work_mode_uses_recorded_costs(study):
    p = study.plan(["lin-1"], TASKS + ["kin-8nm/std.128"], budget_mode="work")
    assert len(p.skipped["done"]) == 16 and len(p.todo) == 8
    (e,) = p.estimate.methods
    assert e.sources == {"scaled": 8} and e.unknown_jobs == 0
    f = study.plan(["lin-1"], "kin-8nm/std.64", budget_mode="work", force=True).estimate
    recorded = [
        json.loads(m.read_text())["cpu_seconds"]
        for m in (study.results_dir / "lin-1/kin-8nm/dist/std.64").glob("*/meta.json")
    ]
    assert f.methods[0].sources == {"recorded": 8}
    assert f.cpu_seconds == pytest.approx(8 * np.median(recorded))
    text = invoke(study, "run", "lin-1", *TASKS, "--dry-run")
    assert "16 finished (skipped; --force redoes them)" in text and "would run 0 jobs" in text


def test_recorded_costs_scale_by_a_power_law_and_schedule_replays_the_executor():
    recs = [_Record("a", 64, "work", 1.0, None), _Record("b", 128, "work", 4.0, None)]
    assert _from_history(recs, "c", 256, "work") == (pytest.approx(16.0), "scaled")
    assert _from_history(recs, "c", 128, "work") == (4.0, "recorded")
    assert _from_history(recs[:1], "c", 256, "work") == (pytest.approx(4.0), "scaled")
    assert _from_history([], "c", 256, "work") is None
    assert schedule([3, 1, 1, 1], 2) == 3 and schedule([1, 1, 1, 1], 2) == 2
    assert [duration(x) for x in (0.2, 40, 3072, 6144, 3 * 86400)] == [
        "0.20 s",
        "40 s",
        "51 min",
        "1 h 42 min",
        "3.0 days",
    ]


def test_cpu_estimate_prefers_earlier_runs_that_finished_under_budget(ws):
    job_n = 64
    recs = [_Record("kin-8nm/dist/std.64", job_n, "cpu", 5.0, 1440.0)] * 3
    from delve_bench.run.estimate import job_cpu
    from delve_bench.run.runner import Job
    from delve_bench.tasks.names import TaskRef

    job = Job("gp-map-1", TaskRef("kin-8nm", "dist", 64), 0)
    assert job_cpu(ws, job, 64, "cpu", 0.05, recs) == (5.0, "recorded")
    assert job_cpu(ws, job, 64, "cpu", 0.05, []) == (28800 * 0.05, "budget")
    # runs made with a smaller budget say nothing about this one
    small = [_Record("kin-8nm/dist/std.64", 64, "cpu", 5.0, 10.0)]
    assert job_cpu(ws, job, 64, "cpu", 0.05, small) == (1440.0, "budget")


def test_run_prints_the_estimate_before_a_long_run(delve, tmp_path):
    # lin-1 ignores its budget, so a large cpu rule gives a long estimate and a short run
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "slow-lin-1.yaml").write_text(
        "plugin: delve_bench.methods.lin:Lin1\nbudget: {cpu_per_case: 1000}\n"
    )
    r = delve("run", "slow-lin-1", "boston/price/std.32", "--instances", "0", check=True)
    assert "estimate: 1 job, about 27 min CPU, 27 min wall on 1 worker" in r.stderr
    r = delve("run", "lin-1", "boston/price/std.32", "--instances", "0", check=True)
    assert "estimate:" not in r.stderr and "ran 1" in r.stderr


# ---- help and completion -----------------------------------------------------------


def test_every_command_help_ends_with_real_examples():
    from delve_bench.cli._helpdoc import commands

    root = click.Context(cli, info_name="delve")
    names = [path for path, _, _ in commands(root)]
    assert "study status" in names and "run" in names
    for name in names:
        r = CliRunner().invoke(cli, [*name.split(), "--help"])
        after = r.output.split("Options:")[-1]
        assert "Examples:" in after, name
        examples = [x.strip() for x in after.split("Examples:")[1].splitlines() if x.strip()]
        assert len(examples) >= 2 and all("delve " in x for x in examples), (
            name,
            examples,
        )


def _complete(args: list[str], incomplete: str, root) -> list[str]:
    from click.shell_completion import ShellComplete

    comp = ShellComplete(cli, {}, "delve", "_DELVE_COMPLETE")
    return [c.value for c in comp.get_completions(["--root", str(root), *args], incomplete)]


def test_completion_script_and_names(study):
    for shell in ("bash", "zsh", "fish"):
        assert "_DELVE_COMPLETE" in invoke(study, "completion", shell)
    assert _complete(["run"], "knn", study.root) == ["knn-class-cv-1", "knn-cv-1"]
    assert "kin-8nm" in _complete(["run", "lin-1"], "kin", study.root)
    assert "kin-8nm/dist/std.256" in _complete(["run", "lin-1"], "kin-8nm/", study.root)
    assert "kin-8nm/std.64" in _complete(["stats", "lin-1"], "kin-8nm/", study.root)
    # after a task only tasks follow
    assert _complete(["run", "lin-1", "kin-8nm/std.64"], "gp", study.root) == []
    assert _complete(["compare", "knn-cv-1"], "lin", study.root) == ["lin-1"]
    assert _complete(["report", "--methods"], "lin-1,knn-cv", study.root) == ["lin-1,knn-cv-1"]
    assert _complete(["fetch"], "kin-32f", study.root) == ["kin-32fh", "kin-32fm"]


def test_dry_run_text_lists_stale_reruns_with_what_changed(study):
    from types import SimpleNamespace

    from delve_bench.report.listing import format_plan

    p = study.plan("lin-1", "kin-8nm/std.64", budget_mode="work", force=True)
    stale = {j: ["method spec"] for j in p.todo[:3]}
    text = format_plan(
        SimpleNamespace(todo=p.todo, skipped=p.skipped, estimate=p.estimate, stale=stale)
    )
    assert "3 of them redo stale results (made under other settings):" in text
    assert "lin-1   kin-8nm/dist/std.64  0-2        method spec" in text


def test_tasks_list_their_losses_classification_or_regression(tmp_path):
    """`delve tasks` says which losses a task has, so which methods fit it (`delve
    methods` lists the losses each serves): Z Q L for a class target, S A L for a real one."""
    by_task = {
        t.task: t for t in api.list_tasks(["ripley", "banana/ida", "kin-8nm/std.64"], root=tmp_path)
    }
    assert by_task["ripley/orig/std.250"].losses == ["Z", "Q", "L"]
    assert by_task["ripley/orig/std.250"].design == "fixed"
    assert by_task["banana/ida/std.400"].design == "resampled"
    assert by_task["kin-8nm/dist/std.64"].losses == ["S", "A", "L"]
    r = CliRunner().invoke(cli, ["--root", str(tmp_path), "tasks", "ripley", "kin-8nm/std.64"])
    lines = r.output.splitlines()
    assert r.exit_code == 0 and lines[0].split()[-3:] == ["losses", "instances", "from"]
    assert lines[1].split() == [
        *("ripley/orig/std.250", "fixed", "1", "250", "1000", "Z", "Q", "L"),
        *("published", "splits"),
    ]
    assert lines[2].split()[-5:] == ["S", "A", "L", "DELVE's", "own"]


# ---- the API covers every command; no name means two things ----------------------------


def test_no_api_name_is_also_a_subpackage_and_the_older_names_still_work():
    import importlib.util

    import delve_bench

    clash = [n for n in api.__all__ if importlib.util.find_spec(f"delve_bench.{n}") is not None]
    assert clash == []
    # every function and class the API defines is exported, and is a top-level name too
    defined = {
        n
        for n, v in vars(api).items()
        if getattr(v, "__module__", None) == api.__name__ and getattr(v, "__name__", "") == n
    }
    assert sorted(n for n in defined if not n.startswith("_")) == sorted(
        n for n in api.__all__ if getattr(api, n).__module__ == api.__name__
    )
    assert all(getattr(delve_bench, n) is getattr(api, n) for n in (*api.__all__, "datasets"))
    assert set(api.__all__) | {"api", "datasets"} <= set(dir(delve_bench))
    old = {"datasets": "list_datasets", "tasks": "list_tasks", "methods": "list_methods"}
    old |= {"run": "run_methods", "execute": "execute_plan", "losses": "loss_table"}
    old |= {"stats": "task_stats", "report": "make_report"}
    assert all(getattr(api, a) is getattr(api, b) for a, b in old.items())
    assert api.CheckResult.__module__ == "delve_bench.analysis.gate"


def test_check_results_is_what_delve_check_prints(study, tmp_path):
    import shutil

    from delve_bench.report.commands import format_check

    shutil.copytree(study.results_dir, tmp_path / "base" / "results")
    res = api.check_results(tmp_path / "base", root=study)
    assert not res.failed and len(res.rows) == 4  # 2 methods x 2 tasks, loss S (no Z here)
    assert {r.status for r in res.rows} == {"unchanged"}
    assert repr(res) == f"CheckResult(ok against {tmp_path / 'base' / 'results'}: 4 unchanged)"
    assert invoke(study, "check", str(tmp_path / "base")) == format_check(res)
    one = api.check_results(tmp_path / "base", ["lin-1", "kin-8nm/std.64"], root=study)
    assert [(r.method, r.task) for r in one.rows] == [("lin-1", "kin-8nm/dist/std.64")]
    with pytest.raises(api.DelveError, match="one of them"):
        api.check_results(root=study)


def test_comparison_power_is_the_power_record(study):
    pa = api.comparison_power("knn-cv-1", "lin-1", "kin-8nm/std.64", root=study)
    assert (pa.design, pa.instances, pa.test_cases, pa.delta_source) == (
        "hierarchical",
        8,
        512,
        "observed",
    )
    assert repr(pa).startswith("PowerAnalysis(knn-cv-1 - lin-1 on kin-8nm/dist/std.64, loss S: ")
    doc = json.loads(invoke(study, "power", "knn-cv-1", "lin-1", "kin-8nm/std.64", "--json"))
    assert {k: v for k, v in doc.items() if k not in ("kind", "schema_version")} == json.loads(
        json.dumps(pa.to_dict())
    )
    given = study.power("knn-cv-1", "lin-1", "kin-8nm/std.64", delta=0.05)
    assert given.delta == 0.05 and given.delta_source == "given"


def test_fetch_datasets_leaves_a_verified_copy_alone(study):
    seen = []
    got = api.fetch_datasets(["boston", "hwang-g1"], on_fetched=seen.append, root=study)
    assert [f.state for f in got] == ["verified", "generated"] and seen == got
    assert got[0].path is not None and got[0].path.name == "boston.data.gz"
    assert repr(got[1]) == "Fetched(hwang-g1: generated)"
    with pytest.raises(api.DelveError, match="bostn"):
        api.fetch_datasets(["boston", "bostn"], root=study)


def test_generate_splits_checks_a_generated_prototask(tmp_path):
    done = []
    (g,) = api.generate_splits("hwang-g1/clean", check=True, on_done=done.append, root=tmp_path)
    assert done == [g] and g.prototask == "hwang-g1/clean" and g.checked
    assert (g.written, g.removed) == ((), ())
    assert repr(g).startswith("Generated(hwang-g1/clean: ") and "0 files written" in repr(g)
