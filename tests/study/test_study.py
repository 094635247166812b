"""Studies: the study file's checks, METHOD@F names, snapshots equal to shorter runs, and
the whole cycle run -> status -> report -> report --check -> verify on a small study."""

from __future__ import annotations

import dataclasses
import json
import lzma
import math
import os
import re
import shutil

import numpy as np
import pandas as pd
import pytest
from support import REPO, one_line_error

from delve_bench.errors import DelveError
from delve_bench.methods.registry import fraction_name, method_spec, split_fraction
from delve_bench.study.displays import geometric
from delve_bench.study.run import estimate
from delve_bench.study.spec import MethodPlan, load_study
from delve_bench.workspace import WorkspaceDirs


def _study(tmp_path, text: str, name: str = "s") -> WorkspaceDirs:
    (tmp_path / "studies").mkdir(exist_ok=True)
    (tmp_path / "studies" / f"{name}.yaml").write_text(text)
    return WorkspaceDirs(tmp_path)


GOOD = """
methods: {lin-1: {}, mlp-mc-1: {budget_mode: cpu, time_scale: 0.001, snapshots: [0.25, 0.5]}}
tasks: [kin-8nm/std.64]
"""


def test_study_file_loads_with_defaults(tmp_path):
    st = load_study(_study(tmp_path, GOOD), "s")
    assert st.results.as_posix() == "results/s"
    assert [p.name for p in st.methods] == ["lin-1", "mlp-mc-1"]
    mc = st.plan("mlp-mc-1@0.25")
    assert (mc.budget_mode, mc.time_scale, mc.snapshots) == ("cpu", 0.001, (0.25, 0.5))
    assert st.snapshot_names == ["mlp-mc-1@0.25", "mlp-mc-1@0.5"]
    lin = st.plan("lin-1")  # no defaults: those of `delve run`
    assert (lin.budget_mode, lin.time_scale, st.losses) == ("cpu", 0.05, {"default": ("S",)})
    assert not lin.deterministic and not mc.deterministic
    worked = load_study(_study(tmp_path, "defaults: {budget_mode: work}\n" + GOOD), "s")
    assert worked.plan("lin-1").deterministic and worked.defaults == ("work", 0.05)


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "methods: [lin-1]\ntasks: [kin-8nm]\nfoo: 1\n",
            "s.yaml: foo: unknown key (known: claims,",
        ),
        ("methods: [lin-2]\ntasks: [kin-8nm]\n", "methods.lin-2: unknown method 'lin-2'"),
        (
            "methods: {lin-1: {time_scale: -1}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.time_scale: must be greater than 0, got -1",
        ),
        (
            "methods: {lin-1: {time_scale: abc}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.time_scale: expected a number, got 'abc'",
        ),
        (
            "methods: {lin-1: {budget_mode: fast}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.budget_mode: 'fast' is not one of cpu, work",
        ),
        ("methods: {lin-1: {snapshots: [0.5]}}\ntasks: [kin-8nm]\n", "not an anytime method"),
        (
            "methods: {mlp-mc-1: {snapshots: [1.5]}}\ntasks: [kin-8nm]\n",
            "methods.mlp-mc-1.snapshots[0]: a fraction of the budget lies between 0 and 1",
        ),
        (
            "methods: {lin-1: {speed: 2}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.speed: unknown key (known: budget_mode, cpu_estimate,",
        ),
        ("methods: [lin-1]\ntasks: [kin-9nm]\n", "s.yaml: tasks: unknown dataset 'kin-9nm'"),
        ("methods: [lin-1]\n", "s.yaml: tasks: missing or empty"),
        ("tasks: [kin-8nm]\nmethods: {}\n", "s.yaml: methods: missing or empty"),
        ("methods: [lin-1]\ntasks: [kin-8nm]\ndisplays: [diagramz]\n", "unknown display"),
        ("methods: [lin-1]\ntasks: [kin-8nm]\nresults: ../x\n", "inside the workspace"),
        ("methods: [lin-1\n", "s.yaml: not valid YAML"),
        # wrong types, each named by its field
        ("methods: [lin-1]\ntasks: kin-8nm\n", "s.yaml: tasks: expected a list, got 'kin-8nm'"),
        ("methods: 5\ntasks: [kin-8nm]\n", "s.yaml: methods: expected a mapping"),
        ("methods: [lin-1, 3]\ntasks: [kin-8nm]\n", "methods[1]: expected a method name, got 3"),
        ("description: 5\nmethods: [lin-1]\ntasks: [kin-8nm]\n", "description: expected text"),
        (
            "methods: {lin-1: {skip_sizes: [64, big]}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.skip_sizes[1]: expected a whole number, got 'big'",
        ),
        (
            "methods: {lin-1: {cpu_estimate: {64: fast}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.cpu_estimate.64: expected a number, got 'fast'",
        ),
        (
            "methods: {lin-1: {cpu_estimate: {many: 1}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.cpu_estimate.many: the training-set size: expected a whole number",
        ),
        (
            "methods: [lin-1]\ntasks: [kin-8nm]\nlosses: {default: [S, Z]}\n",
            "losses.default[1]: 'Z' is not one of S, A, L",
        ),
        (
            "methods: [lin-1]\ntasks: [kin-8nm]\nclaims: [everyone]\n",
            "claims[0]: 'everyone' is not one of thesis, barrio",
        ),
        # the defaults: only budget_mode, time_scale and instances, each checked
        (
            "defaults: {budget_mode: work, speed: 2}\nmethods: [lin-1]\ntasks: [kin-8nm]\n",
            "s.yaml: defaults.speed: unknown key",
        ),
        (
            "defaults: {time_scale: 0}\nmethods: [lin-1]\ntasks: [kin-8nm]\n",
            "s.yaml: defaults.time_scale: must be greater than 0, got 0",
        ),
        (
            "defaults: {time_scale: .inf}\nmethods: [lin-1]\ntasks: [kin-8nm]\n",
            "defaults.time_scale: expected a finite number, got inf",
        ),
        # instances: {size: [instance, ...]}, in defaults or per method
        (
            "methods: {lin-1: {instances: [0]}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.instances: expected a mapping of training-set sizes to lists of "
            "instance numbers ({4096: [0]}), got [0]",
        ),
        (
            "methods: {lin-1: {instances: {64: []}}}\ntasks: [kin-8nm]\n",
            "s.yaml: methods.lin-1.instances.64: the list is empty",
        ),
        (
            "methods: {lin-1: {instances: {64: 0}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.instances.64: expected a list, got 0",
        ),
        (
            "methods: {lin-1: {instances: {64: [0, two]}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.instances.64[1]: expected a whole number, got 'two'",
        ),
        (
            "methods: {lin-1: {instances: {all: [0]}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.instances.all: the training-set size: expected a whole number",
        ),
        (
            "methods: {lin-1: {instances: {0: [0]}}}\ntasks: [kin-8nm]\n",
            "methods.lin-1.instances.0: the training-set size: must be at least 1, got 0",
        ),
        (
            "defaults: {instances: {64: [-1]}}\nmethods: [lin-1]\ntasks: [kin-8nm]\n",
            "s.yaml: defaults.instances.64[0]: must be at least 0, got -1",
        ),
    ],
)
def test_study_file_errors_are_one_line_naming_the_field(tmp_path, text, message):
    with pytest.raises(DelveError) as e:
        load_study(_study(tmp_path, text), "s")
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("studies/s.yaml: ")


def test_a_bad_study_file_is_one_line_from_the_command(delve, tmp_path):
    _study(tmp_path, "methods: {lin-1: {time_scale: fast}}\ntasks: [kin-8nm]\n")
    line = one_line_error(delve("study", "status", "s"))
    assert line == (
        "delve: error: studies/s.yaml: methods.lin-1.time_scale: expected a number, got 'fast'"
    )


def test_unknown_study_names_the_known_ones(tmp_path):
    with pytest.raises(DelveError, match="unknown study 'thesys' \\(did you mean thesis"):
        load_study(WorkspaceDirs(tmp_path), "thesys")


def test_fraction_names_are_canonical_and_scale_every_budget(tmp_path):
    assert split_fraction("mlp-mc-1@0.25") == ("mlp-mc-1", 0.25)
    assert split_fraction("lin-1") == ("lin-1", None)
    assert fraction_name("gp-mc-1", 0.125) == "gp-mc-1@0.125" and fraction_name("x", 1) == "x"
    for bad, msg in (
        ("m@.25", "write the fraction as 0.25"),
        ("m@0", "positive"),
        ("m@x", "positive"),
    ):
        with pytest.raises(DelveError, match=msg):
            split_fraction(bad)
    ws = WorkspaceDirs(tmp_path)
    full, quarter = method_spec(ws, "mlp-mc-1"), method_spec(ws, "mlp-mc-1@0.25")
    assert quarter.seed_name == "mlp-mc-1" and quarter.base == "mlp-mc-1"
    assert quarter.make_budget(64, "cpu", 0.05).cpu_seconds == pytest.approx(
        full.make_budget(64, "cpu", 0.05).cpu_seconds / 4
    )
    assert quarter.make_budget(64, "work").work == full.make_budget(64, "work").work // 4
    with pytest.raises(DelveError, match="no budget to take a fraction of"):
        method_spec(ws, "lin-1@0.5")


def test_geometric_average_and_its_log_se():
    g, se = geometric([(1.0, 0.1), (4.0, 0.4)])
    assert g == pytest.approx(2.0) and se == pytest.approx(math.sqrt(0.02) / 2)
    assert geometric([]) is None and geometric([(0.0, 1.0)]) is None


def test_cpu_estimate_prefers_measurements_then_budget_then_the_study_file(tmp_path):
    ws = WorkspaceDirs(tmp_path)
    lin = method_spec(ws, "lin-1")
    plan = MethodPlan("lin-1", "work", 0.05, cpu_estimate=((64, 1.0), (256, 16.0)))
    assert estimate(plan, lin, 128, {}, 0.05) == pytest.approx(4.0)  # log-log between 1 and 16
    assert estimate(plan, lin, 1024, {}, 0.05) == pytest.approx(256.0)  # nearest slope beyond
    assert estimate(plan, lin, 64, {64: [3.0, 5.0]}, 0.05) == 4.0
    # a measurement joins the study's values, replacing its own size's only
    assert estimate(plan, lin, 256, {64: [4.0]}, 0.05) == 16.0
    assert estimate(plan, lin, 128, {64: [4.0]}, 0.05) == pytest.approx(8.0)  # 4 to 16
    # beyond: the slope of the last two points, here 8 at 128 (measured) to 16 at 256
    assert estimate(plan, lin, 512, {64: [1.0], 128: [8.0]}, 0.05) == pytest.approx(32.0)
    mc = MethodPlan("mlp-mc-1", "cpu", 0.01)
    mlp = method_spec(ws, "mlp-mc-1")
    assert estimate(mc, mlp, 64, {}, 0.01) == pytest.approx(30 * 64 * 0.01)
    assert estimate(mc, mlp, 64, {}, 0.05) == pytest.approx(30 * 64 * 0.05)  # the task's scale
    assert estimate(MethodPlan("lin-1", "work", 0.05), lin, 64, {}, 0.05) is None


@pytest.mark.slow
def test_snapshots_are_byte_identical_to_shorter_runs_in_work_mode(tmp_path, delve):
    """One run of gp-mc-1 / mlp-mc-1 with snapshots at F writes METHOD@F results equal,
    byte for byte, to what separate runs with F of the budget write."""
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "gpt.yaml").write_text(
        "plugin: delve_bench.methods.gp:GpMc\nparams: {min_iterations: 50}\n"
        "budget: {cpu_per_case: 30, work: 800}\n"
    )
    (tmp_path / "methods" / "mlpt.yaml").write_text(
        "plugin: delve_bench.methods.mlp.mc:MlpMc\nbudget: {cpu_per_case: 30, work: 40}\n"
    )
    common = ("kin-8nm/std.64", "--instances", "0", "--budget-mode", "work", "-q")
    delve("--results", "r1", "run", "gpt", "gpt@0.5", "mlpt", "mlpt@0.25", *common, check=True)
    delve("--results", "r2", "run", "gpt@0.5", "mlpt@0.25", *common, check=True)
    for name in ("gpt@0.5", "mlpt@0.25"):
        d1, d2 = (tmp_path / r / name / "kin-8nm/dist/std.64/0" for r in ("r1", "r2"))
        assert (d1 / "losses.csv").read_bytes() == (d2 / "losses.csv").read_bytes()
        m1, m2 = (json.loads((d / "meta.json").read_text()) for d in (d1, d2))
        assert m1["snapshot_of"] == name.split("@")[0] and "snapshot_of" not in m2
        assert m1["budget"] == m2["budget"] and m1["seed"] == m2["seed"]
        assert m1["fraction_of"] == m2["fraction_of"]
    full = json.loads((tmp_path / "r1/gpt/kin-8nm/dist/std.64/0/meta.json").read_text())
    assert full["info"]["iterations"] == 800


SMOKE = """
description: lin-1 and knn-cv-1 on kin-8nm
defaults: {budget_mode: work}
methods:
  lin-1: {}
  knn-cv-1: {cpu_estimate: {64: 0.02}}
tasks: [kin-8nm/std.64]
displays: [diagrams, geometric, cpu-time]
claims: [thesis]
"""


@pytest.mark.slow
def test_a_study_runs_reports_checks_and_verifies_end_to_end(tmp_path, delve):
    _study(tmp_path, SMOKE, "smoke")
    r = delve("study", "status", "smoke", check=True)
    assert "0 of 16 results done" in r.stdout
    cores = os.cpu_count() or 1
    assert (f"with --jobs {cores}" in r.stdout) == (cores > 1)  # the best wall time
    delve("study", "run", "smoke", "--jobs", "2", check=True)
    r = delve("study", "status", "smoke", check=True)
    assert "16 of 16 results done" in r.stdout
    base = tmp_path / "results" / "smoke"
    packed = pd.read_parquet(base / "losses" / "lin-1" / "kin-8nm-dist.parquet")
    # only the loss the study reports (S, its default) is committed
    assert list(packed.columns) == ["task", "instance", "case", "S"]
    assert len(packed) == 8 * 512 and packed["S"].dtype == np.float32
    orig = pd.read_csv(base / "runs/lin-1/kin-8nm/dist/std.64/3/losses.csv")
    mine = packed[packed["instance"] == 3]
    assert np.array_equal(mine["case"].to_numpy(), orig["case"].to_numpy())
    assert np.array_equal(mine["S"].to_numpy(), orig["S"].to_numpy().astype(np.float32))

    delve("study", "report", "smoke", check=True)
    rep = base / "report"
    for f in ("RESULTS.md", "index.html", "plots/kin-8nm-dist-S.png", "tables/cpu-time.md"):
        assert (rep / f).is_file(), f
    assert "| kin-8nm/dist/std.64 |" in (rep / "RESULTS.md").read_text()
    assert delve("study", "report", "smoke", "--check").returncode == 0

    # the working store is not needed: a fresh clone has only the packed files
    shutil.rmtree(base / "runs")
    assert delve("study", "report", "smoke", "--check").returncode == 0
    (rep / "tables" / "cpu-time.md").write_text("edited\n")
    (rep / "stray.txt").write_text("x")
    r = delve("study", "report", "smoke", "--check")
    assert r.returncode == 2
    assert (
        "tables/cpu-time.md (differs)" in r.stderr and "stray.txt (not made any more)" in r.stderr
    )

    r = delve("study", "verify", "smoke")
    assert r.returncode == 1 and "FAIL report" in r.stdout
    assert "ok   reproduce lin-1: kin-8nm/dist/std.64 #0: bit-identical" in r.stdout
    delve("study", "report", "smoke", check=True)
    r = delve("study", "verify", "smoke", check=True)
    assert "4 passed, 0 failed" in r.stdout

    # the packed results serve the ordinary commands once unpacked
    delve("study", "unpack", "smoke", check=True)
    r = delve("--results", "results/smoke/runs", "stats", "lin-1", "kin-8nm/std.64", check=True)
    assert "Estimated expected loss" in r.stdout


def test_study_run_can_be_limited_to_some_methods(tmp_path, delve):
    _study(tmp_path, SMOKE, "smoke")
    r = delve("study", "run", "smoke", "--method", "lin-1", "-q", check=True)
    status = delve("study", "status", "smoke", "--json", check=True)
    done = {rec["result"]: rec["done"] for rec in json.loads(status.stdout)}
    assert done == {"lin-1": 8, "knn-cv-1": 0}
    r = delve("study", "run", "smoke", "--method", "knn-cv-2")
    one_line_error(r, "study smoke has no method 'knn-cv-2'; its methods: lin-1, knn-cv-1")


def test_study_run_can_be_limited_to_some_tasks(tmp_path, delve):
    _study(tmp_path, SMOKE, "smoke")
    delve("study", "run", "smoke", "-m", "knn-cv-1", "--tasks", "kin-8nm/std.64", "-q", check=True)
    status = delve("study", "status", "smoke", "--json", check=True)
    done = {rec["result"]: rec["done"] for rec in json.loads(status.stdout)}
    assert done == {"lin-1": 0, "knn-cv-1": 8}
    losses = tmp_path / "results/smoke/losses"
    assert [p.relative_to(losses).as_posix() for p in losses.rglob("*.parquet")] == [
        "knn-cv-1/kin-8nm-dist.parquet"
    ]
    r = delve("study", "run", "smoke", "--tasks", "boston")
    one_line_error(
        r, "boston/price/std.32 is not a task of study smoke (its tasks: kin-8nm/std.64)"
    )


def test_committed_metas_leave_out_bulky_info_no_display_reads():
    from delve_bench.study.pack import committed_meta

    m = {"task": "kin-8nm/dist/std.64", "instance": 0, "info": {"theta_used": [[0.1]], "k": 5}}
    assert committed_meta(m) == {"task": "kin-8nm/dist/std.64", "instance": 0, "info": {"k": 5}}
    assert m["info"]["theta_used"] == [[0.1]]  # the working store's meta is not touched


@pytest.mark.slow  # reads every committed meta line, 2 CPU s
def test_no_committed_meta_has_bulky_info():
    from delve_bench.study.pack import NOT_COMMITTED_INFO, _meta_lines

    lines = [x for f in sorted(REPO.glob("results/*/meta/*/*.jsonl.xz")) for x in _meta_lines(f)]
    assert lines and not [x for x in lines if set(x.get("info") or {}) & set(NOT_COMMITTED_INFO)]


def test_verify_passes_trivially_without_results(tmp_path, delve):
    _study(tmp_path, SMOKE, "smoke")
    r = delve("study", "verify", "smoke", check=True)
    assert "nothing to verify" in r.stdout and "1 passed, 0 failed" in r.stdout


def test_the_shipped_studies_load():
    ws = WorkspaceDirs(REPO)
    for f in sorted((REPO / "studies").glob("*.yaml")):
        st = load_study(ws, f.stem)
        assert st.methods and st.task_names


ANYTIME = """
description: a cheap mlp-mc-1 with snapshots, in cpu mode
methods:
  lin-1: {budget_mode: work}
  mlpt: {budget_mode: cpu, time_scale: 0.0005, snapshots: [0.5], hard_limit: 600}
tasks: [kin-8nm/std.64]
displays: [diagrams, anytime]
"""


def test_a_study_with_snapshots_reports_them_and_verifies_them_statistically(tmp_path, delve):
    """mlp-mc-1's sampler on ~1 CPU s per instance: snapshots are packed and shown in the
    anytime display, and verify reruns the full budget and tests it (cpu mode)."""
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "mlpt.yaml").write_text(
        "plugin: delve_bench.methods.mlp.mc:MlpMc\nbudget: {cpu_per_case: 30, work: 40}\n"
    )
    _study(tmp_path, ANYTIME, "any")
    delve("study", "run", "any", "--jobs", "2", check=True)
    base = tmp_path / "results" / "any"
    snap = pd.read_parquet(base / "losses" / "mlpt@0.5" / "kin-8nm-dist.parquet")
    assert len(snap) == 8 * 512

    def metas_of(name):
        raw = (base / "meta" / name / "kin-8nm-dist.jsonl.xz").read_bytes()
        return [json.loads(x) for x in lzma.decompress(raw).decode().splitlines()]

    metas, full = metas_of("mlpt@0.5"), metas_of("mlpt")
    assert all(m["snapshot_of"] == "mlpt" and m["fraction_of"]["fraction"] == 0.5 for m in metas)
    assert all(
        s["fit_cpu_seconds"] < f["fit_cpu_seconds"] for s, f in zip(metas, full, strict=True)
    )
    delve("study", "report", "any", check=True)
    table = (base / "report" / "tables" / "anytime.md").read_text()
    assert "mlpt@0.5" in table and (base / "report" / "figures" / "anytime.png").is_file()
    r = delve("study", "verify", "any", check=True)
    assert "ok   rerun mlpt: kin-8nm/dist/std.64 #0" in r.stdout
    assert "ok   reproduce lin-1" in r.stdout


STALE = """
methods: {{mlp-ese-1: {{budget_mode: cpu, time_scale: {ts}}}}}
tasks: [kin-8nm/std.64]
"""


def _write_packed_metas(ws: WorkspaceDirs, study, fingerprint_of) -> None:
    """Packed (committed) metas of mlp-ese-1 on kin-8nm/std.64, one per instance, each
    with the fingerprint ``fingerprint_of(job)`` -- what `study run` would have packed."""
    from delve_bench.run.job import Job
    from delve_bench.study.pack import packed_paths

    lines = []
    for ref in study.method_refs(ws, study.methods[0]):
        for i in range(8):
            job = Job("mlp-ese-1", ref, i)
            meta = {"task": ref.full_name, "instance": i, "status": "ok", "cpu_seconds": 2.0}
            lines.append(json.dumps(meta | {"fingerprint": fingerprint_of(job)}))
    _, mp = packed_paths(ws.root / study.results, "mlp-ese-1", "kin-8nm", "dist")
    mp.parent.mkdir(parents=True)
    mp.write_bytes(lzma.compress(("\n".join(lines) + "\n").encode()))


def test_a_study_may_run_some_instances_at_a_size(tmp_path):
    """``instances`` (defaults for every method, or per method) names the instances run at
    a size: status counts and estimates only those, run plans only those, and an instance
    the task does not have is one error."""
    from delve_bench.study.run import study_jobs, study_progress

    text = (
        "defaults: {instances: {128: [0, 2]}}\n"
        "methods: {lin-1: {cpu_estimate: {64: 1.0}}, knn-cv-1: {instances: {64: [7]}}}\n"
        "tasks: [kin-8nm/std.64, kin-8nm/std.128]\n"
    )
    ws = _study(tmp_path, text)
    st = load_study(ws, "s")
    lin, knn = st.methods
    assert (lin.instances, knn.instances) == (((128, (0, 2)),), ((64, (7,)),))
    # a method's own setting replaces the defaults' ({}: every instance at every size)
    every = load_study(_study(tmp_path, text.replace("{64: [7]}", "{}")), "s").methods[1]
    assert every.instances == ()
    ws = _study(tmp_path, text)
    rows = {r.name: r for r in study_progress(ws, st)}
    assert (rows["lin-1"].missing, rows["knn-cv-1"].missing) == (8 + 2, 1 + 8)
    assert rows["lin-1"].cpu_left == pytest.approx(8 * 1.0 + 2 * 8.0)  # cubic from 64
    jobs = {p.name: sorted((j.ref.size, j.instance) for j in js) for p, _, js in study_jobs(ws, st)}
    assert jobs["lin-1"] == [(64, i) for i in range(8)] + [(128, 0), (128, 2)]
    assert jobs["knn-cv-1"] == [(64, 7)] + [(128, i) for i in range(8)]
    st = load_study(_study(tmp_path, text.replace("[7]", "[9]")), "s")
    for call in (study_progress, study_jobs):
        with pytest.raises(DelveError, match="kin-8nm/dist/std.64 has instances 0-7"):
            call(ws, st)


def test_run_with_a_study_runs_its_instances(tmp_path):
    """``delve run METHOD --study S`` takes S's instances: the method's own, or S's
    defaults for a method S does not name; ``--instances`` picks among them."""
    from delve_bench import api

    ws = _study(
        tmp_path,
        "defaults: {budget_mode: work, instances: {128: [0, 2]}}\n"
        "methods: {lin-1: {instances: {64: [1]}}}\n"
        "tasks: [kin-8nm/std.64, kin-8nm/std.128]\n",
    )

    def jobs(p):
        return sorted((j.ref.size, j.instance) for j in p.todo)

    every = list(range(8))
    assert jobs(api.plan("knn-cv-1", study="s", root=ws)) == [
        *((64, i) for i in every),
        (128, 0),
        (128, 2),
    ]
    assert jobs(api.plan("lin-1", study="s", root=ws)) == [(64, 1), *((128, i) for i in every)]
    picked = api.plan("knn-cv-1", study="s", root=ws, instances=[2, 3])
    assert jobs(picked) == [(64, 2), (64, 3), (128, 2)]
    with pytest.raises(DelveError, match="run them one at a time"):
        api.plan(["lin-1", "knn-cv-1"], study="s", root=ws)


def test_packed_results_made_under_other_settings_are_stale_in_a_study(tmp_path):
    """A committed result counts as done only while its fingerprint is what the study's
    settings give now (the rule of `delve run`): after the study's time scale changes,
    `study status` shows it stale with the field, and `study run` redoes it."""
    from delve_bench.run.job import expected_fingerprint
    from delve_bench.study.run import study_jobs, study_progress

    ws = _study(tmp_path, STALE.format(ts=0.001))
    st = load_study(ws, "s")
    plan = st.methods[0]
    _write_packed_metas(
        ws, st, lambda j: expected_fingerprint(st.workspace(ws), j, plan.options(j.ref))
    )
    (row,) = study_progress(ws, st)
    assert (row.done, row.stale, row.missing) == (8, 0, 0)
    assert [len(jobs) for _, _, jobs in study_jobs(ws, st)] == [0]

    ws = _study(tmp_path, STALE.format(ts=0.002))  # the same packed files, other settings
    st = load_study(ws, "s")
    (row,) = study_progress(ws, st)
    assert (row.done, row.stale, row.missing) == (0, 8, 0)
    assert row.stale_reasons[0] == (
        "kin-8nm/dist/std.64 #0: budget.time_scale: 0.001 -> 0.002; budget.allowance: 0.12 -> 0.24"
    )
    assert row.cpu_left == pytest.approx(8 * 0.24)  # redone: estimated from the cpu budget
    ((plan2, _, jobs),) = study_jobs(ws, st)
    assert sorted(j.instance for j in jobs) == list(range(8))

    # a result in the working store made under other settings is redone too
    from delve_bench.run.store import csv_bytes, result_dir, sha256_bytes

    d = result_dir(st.workspace(ws), "mlp-ese-1", jobs[0].ref, 3)
    d.mkdir(parents=True)
    losses = csv_bytes(pd.DataFrame({"case": [0], "S": [1.0], "A": [1.0], "L": [np.nan]}))
    (d / "losses.csv").write_bytes(losses)
    (d / "predictions.csv").write_text("case,mean\n0,1\n")
    old = expected_fingerprint(st.workspace(ws), jobs[0], plan.options(jobs[0].ref))  # ts 0.001
    meta = {"status": "ok", "losses_sha256": sha256_bytes(losses), "fingerprint": old}
    (d / "meta.json").write_text(json.dumps(meta))
    ((_, _, jobs),) = study_jobs(ws, st)
    assert 3 in [j.instance for j in jobs]

    # a packed result with no fingerprint (made by an older delve-bench) is stale
    shutil.rmtree(tmp_path / "results")
    _write_packed_metas(ws, st, lambda j: None)
    (row,) = study_progress(ws, st)
    assert row.stale == 8 and "fingerprint: none recorded" in row.stale_reasons[0]


def test_the_budgets_table_names_per_task_time_scales_by_prototask():
    """The keys of one time scale together, the sizes of one prototask as one list, in
    file order; a key that is not one size stays as written."""
    from delve_bench.study.spec import MethodPlan

    keys = (
        ("pumadyn-32nm/std.64", 0.05),
        ("pumadyn-32nm/std.128", 0.05),
        ("kin-8nm", 0.01),
        ("pumadyn-32nh/accel/std.512", 0.05),
    )
    plan = MethodPlan("m", "cpu", 0.005, time_scale_keys=keys)
    assert plan.describe_time_scale() == (
        "0.005 (0.05 on pumadyn-32nm/std.64, 128 and pumadyn-32nh/accel/std.512; 0.01 on kin-8nm)"
    )


def test_a_time_scale_may_differ_by_task(tmp_path):
    """``time_scale: {default: x, TASKS: y}``: the named tasks' jobs get their own budget
    (fingerprint, status estimate, run groups); results made at the old scale there are
    stale with the field; `run --study` takes one time scale at a time."""
    from delve_bench import api
    from delve_bench.run.job import expected_fingerprint
    from delve_bench.study.run import study_jobs, study_progress

    text = (
        "methods: {mlp-ese-1: {budget_mode: cpu, time_scale: {default: 0.001, TASK: 0.002}}}\n"
        "tasks: [kin-8nm/std.64, kin-8nm/std.128]\n"
    )
    ws = _study(tmp_path, text.replace("TASK", "kin-8nm/std.128"))
    st = load_study(ws, "s")
    (plan,) = st.methods
    small, large = st.method_refs(ws, plan)
    assert (plan.time_scale_at(small), plan.time_scale_at(large)) == (0.001, 0.002)
    assert plan.describe_time_scale() == "0.001 (0.002 on kin-8nm/std.128)"
    assert plan.options(large).time_scale == 0.002
    groups = study_jobs(ws, st)
    assert [(o.time_scale, sorted({j.ref.size for j in js})) for _, o, js in groups] == [
        (0.001, [64]),
        (0.002, [128]),
    ]
    (row,) = study_progress(ws, st)
    budget = method_spec(ws, "mlp-ese-1").make_budget
    want = 8 * budget(64, "cpu", 0.001).cpu_seconds + 8 * budget(128, "cpu", 0.002).cpu_seconds
    assert row.cpu_left == pytest.approx(want)

    # results packed at the default scale everywhere: those of the named task are stale
    _write_packed_metas(
        ws,
        st,
        lambda j: expected_fingerprint(st.workspace(ws), j, plan.options(small)),
    )
    (row,) = study_progress(ws, st)
    assert (row.done, row.stale) == (8, 8)
    assert row.stale_reasons[0].startswith(
        "kin-8nm/dist/std.128 #0: budget.time_scale: 0.001 -> 0.002; budget.allowance:"
    )
    assert [len(js) for _, _, js in study_jobs(ws, st)] == [0, 8]
    with pytest.raises(DelveError, match=r"runs mlp-ese-1 at time scale 0\.001 \(0\.002 on"):
        api.plan("mlp-ese-1", study="s", root=ws)
    assert api.plan("mlp-ese-1", "kin-8nm/std.128", study="s", root=ws).time_scale == 0.002

    # the keys name tasks of the study, each once
    for key, message in (
        ("kin-8nm/std.256", "methods.mlp-ese-1.time_scale: kin-8nm/dist/std.256 is not a task"),
        ("kin-9zz", "time_scale.kin-9zz: "),
    ):
        with pytest.raises(DelveError, match=re.escape(message)):
            load_study(_study(tmp_path, text.replace("TASK", key)), "s")
    twice = text.replace("TASK: 0.002", "kin-8nm/std.128: 0.002, kin-8nm: 0.003")
    with pytest.raises(DelveError, match="kin-8nm/dist/std.128 is named by an earlier key"):
        load_study(_study(tmp_path, twice), "s")


def test_study_status_tells_each_state_of_packed_and_working_results(tmp_path):
    """Status reads a task's results in one pass (packed metas, fingerprints per task):
    each instance keeps its own state -- done, failed, failed under other hard limits or
    made under other settings (stale, with why), missing -- and a result in the working
    store is taken before the packed one of the same instance."""
    from delve_bench.run.job import Job, expected_fingerprint, hard_limits
    from delve_bench.run.store import csv_bytes, result_dir, sha256_bytes
    from delve_bench.study.pack import packed_paths
    from delve_bench.study.run import study_jobs, study_progress

    ws = _study(tmp_path, STALE.format(ts=0.001))
    st = load_study(ws, "s")
    plan, sws = st.methods[0], st.workspace(ws)
    (ref,) = st.method_refs(ws, plan)
    other = dataclasses.replace(plan.options(ref), time_scale=0.002)  # instance 6's settings

    def meta(i: int, status: str, options=plan.options(ref)) -> dict:
        job = Job("mlp-ese-1", ref, i)
        return {
            "task": ref.full_name,
            "instance": i,
            "status": status,
            "cpu_seconds": 2.0,
            "fingerprint": expected_fingerprint(sws, job, options),
            "limits": hard_limits(sws, job, options).describe(),
        }

    lines = [meta(i, "ok") for i in range(4)] + [meta(4, "failed") | {"error": "E: boom"}]
    lines.append(meta(5, "failed") | {"limits": {"cpu_hard_limit_s": 1.0}, "error": "E: slow"})
    lines.append(meta(6, "ok", other))  # instance 7: none
    _, mp = packed_paths(ws.root / st.results, "mlp-ese-1", "kin-8nm", "dist")
    mp.parent.mkdir(parents=True)
    mp.write_bytes(lzma.compress("".join(json.dumps(m) + "\n" for m in lines).encode()))
    d = result_dir(sws, "mlp-ese-1", ref, 0)  # the working store's failure replaces it
    d.mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps(meta(0, "failed") | {"error": "E: store"}))

    (row,) = study_progress(ws, st)
    assert (row.done, row.failed, row.stale, row.missing) == (3, 2, 2, 1)
    assert row.cpu_done == 6.0
    assert row.failures == [f"{ref.full_name} #0: E: store", f"{ref.full_name} #4: E: boom"]
    assert row.stale_reasons == [
        f"{ref.full_name} #5: failed under other hard limits",
        f"{ref.full_name} #6: budget.time_scale: 0.002 -> 0.001; budget.allowance: 0.24 -> 0.12",
    ]
    for retry, redone in ((False, [5, 6, 7]), (True, [0, 4, 5, 6, 7])):
        ((_, _, jobs),) = study_jobs(ws, st, retry_failed=retry)
        assert sorted(j.instance for j in jobs) == redone

    # a finished result in the working store counts as done, whatever is packed
    losses = csv_bytes(pd.DataFrame({"case": [0], "S": [1.0], "A": [1.0], "L": [np.nan]}))
    (d / "losses.csv").write_bytes(losses)
    (d / "predictions.csv").write_text("case,mean\n0,1\n")
    done = meta(0, "ok") | {"losses_sha256": sha256_bytes(losses), "cpu_seconds": 5.0}
    (d / "meta.json").write_text(json.dumps(done))
    (row,) = study_progress(ws, st)
    assert (row.done, row.failed, row.cpu_done) == (4, 1, 11.0)


@pytest.mark.parametrize(
    "which, data, message",
    [
        ("meta", b"garbage", "not a readable .jsonl.xz file"),
        ("meta", lzma.compress(b'{"task": "x"}\n'), "line 1: not a meta.json object"),
        ("meta", lzma.compress(b"[1, 2]\n"), "line 1: not a meta.json object"),
        ("losses", b"junk", "not a readable Parquet file"),
    ],
)
def test_a_damaged_committed_study_file_is_one_error_naming_it(tmp_path, which, data, message):
    from delve_bench.study.pack import packed_paths, read_packed

    pytest.importorskip("pyarrow")
    lp, mp = packed_paths(tmp_path, "lin-1", "kin-8nm", "dist")
    mp.parent.mkdir(parents=True)
    mp.write_bytes(lzma.compress(b'{"task": "kin-8nm/dist/std.64", "instance": 0}\n'))
    (lp if which == "losses" else mp).parent.mkdir(parents=True, exist_ok=True)
    (lp if which == "losses" else mp).write_bytes(data)
    with pytest.raises(DelveError) as e:
        read_packed(tmp_path, "lin-1", "kin-8nm", "dist")
    assert message in str(e.value) and str(lp if which == "losses" else mp) in str(e.value)


def test_the_modern_study_is_sized_to_about_eight_cpu_hours(tmp_path):
    """docs/studies.md "modern": the search sizes are chosen so that the study (590
    instances per method in DELVE's own layouts) fits about 8 CPU hours of one core; before
    any result exists `delve study status` says so from the study file's cost table."""
    from delve_bench.study.run import study_progress

    ws = WorkspaceDirs(tmp_path)  # the built-in study and methods, no results
    rows = study_progress(ws, load_study(ws, "modern"))
    assert [(r.name, r.missing, r.unknown) for r in rows] == [
        (m, 590, 0) for m in ("xgboost-1", "lightgbm-1", "catboost-1", "rf-1", "hgb-1")
    ]
    assert sum(r.cpu_left for r in rows) / 3600 == pytest.approx(8, rel=0.1)


def test_committed_rows_hash_to_their_recorded_sha256_with_the_fast_writer(tmp_path, monkeypatch):
    """Every read of a committed instance hashes the losses.csv its rows make
    (run.packed.packed_csv, written with repr for speed): its bytes are those of the
    pandas writer every losses.csv has (store.csv_bytes), and every committed smoke
    instance hashes to the value its meta line recorded when it was packed."""
    from delve_bench.run.packed import PACKED_SHA, _float32, packed_csv, read_packed
    from delve_bench.run.store import csv_bytes

    v = np.array([0.0, -0.0, 1e-5, 1e-4, 1 / 3, 1e15, 1e16, 123456789.0, np.nan, 1.4e-45, 3e38])
    rows = pd.DataFrame({"case": np.arange(v.size) * 7, "S": v, "A": v[::-1], "L": -v})
    for kept in (("S",), ("S", "A", "L"), ()):
        frame = {c: _float32(rows[c]).astype(np.float64) for c in kept}
        want = csv_bytes(pd.DataFrame({"case": rows["case"].to_numpy(np.int64), **frame}))
        assert packed_csv(rows, kept) == want
    checked = 0
    for m in ("lin-1", "knn-cv-1"):
        p = read_packed(REPO / "results" / "smoke", m, "kin-8nm", "dist")
        assert p.kept == ("S",) and len(p.losses) == 16
        for key in p.losses:
            assert p.rows(key) is p.losses[key] and PACKED_SHA in p.metas[key]
            checked += 1
    assert checked == 32
    # a cache that has not seen the file: one that has skips the check (run.checked)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    p = read_packed(REPO / "results" / "smoke", "lin-1", "kin-8nm", "dist")
    p.losses[(128, 5)]["S"][0] *= 1.001  # as an edited file reads
    with pytest.raises(DelveError, match=r"kin-8nm-dist.parquet: kin-8nm/dist/std.128 #5: its"):
        p.rows((128, 5))


def test_a_study_report_warns_of_missing_instances_only_beyond_its_design(tmp_path):
    """A study that runs some instances at a size reports the rest as not run in its
    tables, but warns only where a method lacks instances the study means it to run."""
    # (RESULTS.md shows such a cell as (1/8), not as the '–' of a method not run)
    from delve_bench import api

    text = "methods: {{lin-1: {{instances: {{64: {inst}}}}}}}\ntasks: [kin-8nm/std.64]\n"
    _study(tmp_path, text.format(inst="[0]"))
    api.study_run("s", root=tmp_path)
    assert api.study_report("s", root=tmp_path).warnings == []
    table = (tmp_path / "results/s/report/tables/kin-8nm-dist-S.md").read_text()
    assert "not run: 1 2 3 4 5 6 7" in table  # the page still says what the design left out
    md = (tmp_path / "results/s/report/RESULTS.md").read_text()
    assert "| kin-8nm/dist/std.64 | (1/8) |" in md and "(k/n): k of the task's n" in md
    _study(tmp_path, text.format(inst="[0, 1]"))
    assert api.study_report("s", root=tmp_path).warnings == [
        "kin-8nm/dist/std.64: lin-1 has 1 of 8 instances (only 1 instance (need 2); "
        "not run: 1 2 3 4 5 6 7)"
    ]
