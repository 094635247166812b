"""One job without a subprocess: load_instance, the steps of execute, provenance, the
atomic commit, limits; and the shape of run/ (executors receive what they run)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

from delve_bench.analysis.task import layout_of
from delve_bench.data import load_dataset
from delve_bench.defaults import DEFAULT_TIME_SCALE
from delve_bench.errors import DelveError
from delve_bench.methods.lin import Lin1
from delve_bench.methods.registry import method_spec
from delve_bench.run import RunOptions, load_instance
from delve_bench.run.job import (
    Decoded,
    Job,
    check,
    decode,
    execute,
    expected_fingerprint,
    fit_predict,
    hard_limits,
    write_result,
)
from delve_bench.run.store import (
    commit,
    instance_state,
    read_task_results,
    recover,
    result_dir,
    staging_dir,
    task_instances,
)
from delve_bench.tasks import TaskRef

RUN = Path(__file__).resolve().parents[2] / "delve_bench" / "run"
KIN64 = TaskRef("kin-8nm", "dist", 64)


def test_load_instance_gives_encoded_inputs_and_raw_test_targets(ws):
    e = load_instance(ws, "kin-8nm/std.64", 3)
    values = load_dataset(ws, "kin-8nm").values
    assert e.task == "kin-8nm/dist/std.64" and e.index == 3
    assert e.X_train.shape == (64, 8) and e.X_test.shape == (512, 8)
    assert np.array_equal(e.y_test, values[e.instance.test, 8])  # raw
    assert np.array_equal(e.raw_train, values[np.ix_(e.instance.train, range(8))])
    assert np.median(e.y_train) == pytest.approx(0, abs=1e-12)  # fitted on the training set
    assert np.allclose(e.coding.decode(e.y_test_encoded), e.y_test)
    with pytest.raises(DelveError, match="no instance 8"):
        load_instance(ws, "kin-8nm/std.64", 8)


def test_the_steps_of_a_job_give_exactly_what_execute_writes(ws, tmp_path):
    e = load_instance(ws, KIN64, 0)
    from delve_bench.methods.base import Budget, FitContext

    method = Lin1()
    ctx = FitContext(rng=np.random.default_rng(0), budget=Budget(), kinds=e.coding.kinds)
    dec = decode(fit_predict(method, e, ctx).prediction, e, method)
    check(dec, 512)
    out = tmp_path / "steps"
    out.mkdir()
    written = write_result(out, e, dec)
    assert written.losses_available == ["S", "A", "L"]
    r = execute(str(ws.root), Job("lin-1", KIN64, 0))
    assert r.status == "ok"
    d = result_dir(ws, "lin-1", KIN64, 0)
    assert (d / "losses.csv").read_bytes() == (out / "losses.csv").read_bytes()
    assert (d / "predictions.csv").read_bytes() == (out / "predictions.csv").read_bytes()


def test_check_refuses_non_finite_or_misshapen_predictions():
    ok = np.zeros(4)
    check(Decoded(ok, ok), 4)
    with pytest.raises(FloatingPointError, match="mean"):
        check(Decoded(np.array([0, np.nan, 0, 0]), ok), 4)
    with pytest.raises(FloatingPointError, match="log density"):
        check(Decoded(ok, ok, ok, np.zeros(3)), 4)


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add("." * node.level + node.module)
        elif isinstance(node, ast.ImportFrom):  # from . import a, b
            names.update("." * node.level + a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_executors_never_import_the_runner_and_job_imports_no_executor():
    for executor in ("isolate.py", "dask_backend.py"):
        assert not {".runner", "delve_bench.run.runner"} & _imports(RUN / executor)
    assert not {".isolate", ".dask_backend", ".runner"} & _imports(RUN / "job.py")
    assert {".isolate", ".dask_backend", ".job"} <= _imports(RUN / "runner.py")


# -- provenance ----------------------------------------------------------------------------


def test_the_fingerprint_follows_what_defines_a_result(ws, tmp_path):
    job = Job("mlp-ese-1", KIN64, 0)
    a = expected_fingerprint(ws, job, RunOptions(mode="cpu", time_scale=0.001))
    b = expected_fingerprint(ws, job, RunOptions(mode="cpu", time_scale=0.002))
    assert [k for k in a if a[k] != b[k]] == ["budget.time_scale", "budget.allowance"]
    # a method with no budget rule does the same work whatever the budget settings
    lin = Job("lin-1", KIN64, 0)
    assert expected_fingerprint(ws, lin, RunOptions(mode="cpu")) == expected_fingerprint(
        ws, lin, RunOptions(mode="work", time_scale=0.3)
    )
    # other instances differ only in their index files
    c = expected_fingerprint(
        ws, Job("mlp-ese-1", KIN64, 1), RunOptions(mode="cpu", time_scale=0.001)
    )
    assert [k for k in a if a[k] != c[k]] == ["task.index"]
    # the plugin's module path is not part of it (code may move); the method's version is
    from delve_bench.workspace import WorkspaceDirs

    (tmp_path / "other" / "methods").mkdir(parents=True)
    spec = Path(method_spec(ws, "lin-1").source).read_text()
    w = WorkspaceDirs(tmp_path / "other")
    yaml = tmp_path / "other" / "methods" / "lin-1.yaml"
    yaml.write_text(spec.replace("delve_bench.methods.lin:Lin", "elsewhere.linear:Lin"))
    assert method_spec(w, "lin-1").plugin == "elsewhere.linear:Lin"
    assert expected_fingerprint(w, lin, RunOptions()) == expected_fingerprint(ws, lin, RunOptions())
    yaml.write_text(spec + "version: '2'\n")
    fp = expected_fingerprint(w, lin, RunOptions())
    assert fp["method.version"] == "2" and fp != expected_fingerprint(ws, lin, RunOptions())


@pytest.mark.slow  # six mlp-ese-1 fits in cpu mode, 1.4 CPU s; the fast loop reads stale
# fingerprints in tests/study/test_study.py (packed results under other settings)
def test_analyses_use_only_instances_made_under_one_fingerprint(ws):
    for i, scale in ((0, 0.001), (1, 0.001), (2, 0.002), (3, 0.002)):
        assert (
            execute(str(ws.root), Job("mlp-ese-1", KIN64, i), RunOptions("cpu", scale)).status
            == "ok"
        )
    layout = layout_of(ws, KIN64)
    st = {s.index: s for s in task_instances(ws, "mlp-ese-1", KIN64, layout)}
    # the newest finished instance sets the budget; the others are stale, with the field
    assert [i for i, s in st.items() if s.state == "stale"] == [0, 1]
    assert st[0].stale == ("budget.time_scale", "budget.allowance")
    assert "budget.time_scale: 0.001 -> 0.002" in st[0].detail
    results, states = read_task_results(ws, "mlp-ese-1", KIN64, layout)
    assert [r.instance for r in results] == [2, 3] and states["stale"] == [0, 1]
    # execute itself skips only a result made under its own settings
    job = Job("mlp-ese-1", KIN64, 2)
    assert execute(str(ws.root), job, RunOptions("cpu", 0.002)).status == "skipped"
    assert execute(str(ws.root), job, RunOptions("cpu", 0.003)).status == "ok"


def test_meta_json_that_is_not_an_object_or_a_missing_predictions_file_read_as_corrupt(ws):
    execute(str(ws.root), Job("lin-1", KIN64, 0))
    execute(str(ws.root), Job("lin-1", KIN64, 1))
    d0, d1 = result_dir(ws, "lin-1", KIN64, 0), result_dir(ws, "lin-1", KIN64, 1)
    assert instance_state(d0) == instance_state(d1) == "ok"
    (d0 / "meta.json").write_text("[1, 2, 3]")
    (d1 / "predictions.csv").unlink()
    assert instance_state(d0) == instance_state(d1) == "corrupt"


# -- the old result stays until the new one is complete ---------------------------------


def test_a_forced_rerun_that_fails_keeps_the_finished_result(ws, tmp_path, monkeypatch):
    job = Job("lin-1", KIN64, 0)
    execute(str(ws.root), job)
    d = result_dir(ws, "lin-1", KIN64, 0)
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    monkeypatch.setattr(Lin1, "fit", lambda self, X, y, ctx: 1 / 0)
    r = execute(str(ws.root), job, RunOptions(force=True))
    assert r.status == "failed" and "ZeroDivisionError" in r.error
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before
    assert not staging_dir(d).exists()


def test_commit_swaps_in_one_step_and_recover_undoes_a_half_done_commit(tmp_path):
    d = tmp_path / "0"
    d.mkdir()
    (d / "meta.json").write_text("old")
    stage = staging_dir(d)
    stage.mkdir()
    (stage / "meta.json").write_text("new")
    commit(stage, d)
    assert (d / "meta.json").read_text() == "new" and not stage.exists()
    # a kill between the two renames of the fallback leaves the old result aside
    old = d.parent / ".0.old"
    d.rename(old)
    stage.mkdir()
    (stage / "meta.json").write_text("newer, never committed")
    recover(d)
    assert (d / "meta.json").read_text() == "new" and not old.exists() and not stage.exists()


# -- limits ---------------------------------------------------------------------------------


def test_every_job_has_finite_limits_in_every_mode(ws, tmp_path):
    for name in ("lin-1", "knn-cv-1", "mlp-ese-1", "gp-mc-1"):
        for mode in ("cpu", "work"):
            lim = hard_limits(ws, Job(name, KIN64, 0), RunOptions(mode=mode))
            assert 0 < lim.cpu < float("inf") and lim.wall == 2 * lim.cpu + 5
    assert hard_limits(ws, Job("lin-1", KIN64, 0), RunOptions(mode="work")).cpu == 3600
    # cpu mode: 2 x budget + 60 s (mlp-ese-1: 1.875 s per case on the 1996 machine)
    b = 1.875 * 64 * DEFAULT_TIME_SCALE
    assert hard_limits(ws, Job("mlp-ese-1", KIN64, 0), RunOptions("cpu")).cpu == pytest.approx(
        2 * b + 60
    )
    assert hard_limits(ws, Job("lin-1", KIN64, 0), RunOptions(hard_limit=7.0)).cpu == 7.0
    r = execute(str(ws.root), Job("lin-1", KIN64, 0), RunOptions(mode="work", memory_limit=2**31))
    meta = json.loads((result_dir(ws, "lin-1", KIN64, 0) / "meta.json").read_text())
    assert r.status == "ok" and meta["limits"] == {
        "cpu_hard_limit_s": 3600.0,
        "wall_hard_limit_s": 7205.0,
        "memory_limit_mb": 2048,
    }


@pytest.mark.parametrize(
    "text,want",
    [
        ("4G", 4 * 2**30),
        ("512M", 512 * 2**20),
        ("1.5g", int(1.5 * 2**30)),
        ("2048", 2**31),
        ("none", None),
    ],
)
def test_memory_limit_sizes(text, want):
    from delve_bench.cli.run import _memory_limit

    assert _memory_limit(text, 1) == want


@pytest.mark.parametrize("text", ["0", "-1G", "lots", "10M", "nan", "inf"])
def test_bad_memory_limits_are_refused(text):
    from delve_bench.cli.run import _memory_limit

    with pytest.raises(DelveError, match="--memory-limit"):
        _memory_limit(text, 1)


def test_first_training_is_instance_0s_training_set_as_the_method_sees_it(ws):
    from delve_bench.methods.classify.ofs import OfsLoomi
    from delve_bench.run.job import first_training

    ref = TaskRef("heart", "ida", 170)
    e0, e3 = load_instance(ws, ref, 0), load_instance(ws, ref, 3)
    X, y = first_training(ws, ref, OfsLoomi())()
    assert np.array_equal(X, e0.X_train) and np.array_equal(y, e0.y_train)
    X, y = first_training(ws, ref, OfsLoomi(inputs="raw"))()
    assert np.array_equal(X, e0.raw_train) and np.array_equal(y, e0.y_train)
    assert not np.array_equal(e3.X_train, e0.X_train)
