"""`delve check`, the regression gate: identical trees pass; a method made 20 % worse on a
task with a clear signal fails; 0.5 % worse on a noisy task passes; missing or corrupt
results fail. Real runs of lin-1 and knn-cv-1; perturbed trees keep valid checksums."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support import one_line_error, run_delve

from delve_bench.analysis.gate import check
from delve_bench.run.store import csv_bytes, sha256_bytes
from delve_bench.workspace import WorkspaceDirs

CLEAR = "kin-8nm/dist/std.256"  # knn-cv-1 vs lin-1: p ~ 2e-7
NOISY = "boston/price/std.32"  # 2-way, large test-case variation


run = run_delve


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("baseline")
    r = run(root, "run", "lin-1", "knn-cv-1", CLEAR, NOISY, "--budget-mode", "work", "-q")
    assert r.returncode == 0, r.stderr
    return root


@pytest.fixture
def current(baseline, tmp_path) -> Path:
    ws = tmp_path / "current"
    shutil.copytree(baseline, ws)
    return ws


def worsen(root: Path, method: str, task: str, factor: float) -> None:
    """Multiply the S and A losses of every instance by ``factor``, as a method that got
    worse would write them (meta.json's checksum updated, so the results stay valid)."""
    for inst in (root / "results" / method / task).iterdir():
        df = pd.read_csv(inst / "losses.csv")
        df[["S", "A"]] *= factor
        data = csv_bytes(df)
        (inst / "losses.csv").write_bytes(data)
        meta = json.loads((inst / "meta.json").read_text())
        meta["losses_sha256"] = sha256_bytes(data)
        (inst / "meta.json").write_text(json.dumps(meta))


def test_identical_trees_pass(baseline, current):
    r = run(current, "check", str(baseline))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "unchanged" in r.stdout and "ok: 4 unchanged" in r.stdout
    assert "Holm" in r.stdout


def test_twenty_percent_worse_on_a_clear_task_fails(baseline, current):
    worsen(current, "knn-cv-1", CLEAR, 1.2)
    r = run(current, "check", str(baseline / "results"), "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    rows = json.loads(r.stdout)["rows"]
    worse = [(x["method"], x["task"]) for x in rows if x["status"] == "worse"]
    assert worse == [("knn-cv-1", CLEAR)]
    row = next(x for x in rows if x["status"] == "worse")
    assert row["change"] == pytest.approx(0.2) and row["p_adjusted"] < 0.05


def test_half_a_percent_worse_on_a_noisy_task_passes(baseline, current):
    worsen(current, "knn-cv-1", NOISY, 1.005)
    r = run(current, "check", str(baseline))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "changed" in r.stdout
    # without a margin, a uniform 0.5 % is a real (noise-free) worsening: the test finds it
    res = check(WorkspaceDirs(current), baseline, margin=0.0)
    assert [(x.method, x.task) for x in res.worse] == [("knn-cv-1", NOISY)]


def test_missing_and_corrupt_results_fail(baseline, current):
    shutil.rmtree(current / "results" / "lin-1" / CLEAR / "3")
    (current / "results" / "knn-cv-1" / NOISY / "0" / "losses.csv").write_text("case,S,A,L\n")
    res = check(WorkspaceDirs(current), baseline)
    assert res.failed
    why = {(x.method, x.task): x.why for x in res.missing}
    assert why == {("lin-1", CLEAR): "missing: 3", ("knn-cv-1", NOISY): "corrupt: 0"}
    shutil.rmtree(current / "results" / "knn-cv-1")
    r = run(current, "check", str(baseline), "knn-cv-1")
    assert r.returncode == 1 and "missing" in r.stdout


def test_selection_and_bad_baselines(baseline, current, tmp_path):
    res = check(WorkspaceDirs(current), baseline, ["lin-1"], losses=("S", "A", "L"))
    assert {x.method for x in res.rows} == {"lin-1"} and {x.loss for x in res.rows} == {
        "S",
        "A",
        "L",
    }
    assert not res.failed
    r = run(current, "check", str(tmp_path / "nowhere"))
    one_line_error(r, "no such directory")
    r = run(current, "check", str(current))
    one_line_error(r, "own results")
