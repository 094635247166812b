"""`delve check` cannot be fooled by a changed method spec: a method whose version, params
or budget changed since the baseline is compared anyway and fails the gate until it is
accepted; a method on one side only is listed; the margin must be a finite number >= 0.
Generated data (hwang-g1), real runs of lin-1 and knn-cv-1 once per module."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from support import one_line_error, run_delve

from delve_bench.analysis.gate import check
from delve_bench.errors import DelveError
from delve_bench.run.store import csv_bytes, sha256_bytes
from delve_bench.workspace import WorkspaceDirs

TASK = "hwang-g1/noisy/std.64"
METHODS = Path(__file__).resolve().parents[2] / "methods"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("baseline")
    r = run_delve(root, "run", "lin-1", "knn-cv-1", TASK, "-q")
    assert r.returncode == 0, r.stderr
    return root


@pytest.fixture
def current(baseline, tmp_path) -> Path:
    ws = tmp_path / "current"
    shutil.copytree(baseline, ws)
    return ws


def bump_version(root: Path, method: str, factor: float = 1.0) -> None:
    """What `version: 2` in the method's YAML and a rerun leave behind: the workspace spec
    says version 2, every instance's fingerprint records it, and the losses are the new
    method's (here the old ones times ``factor``; checksums kept valid)."""
    (root / "methods").mkdir(exist_ok=True)
    text = (METHODS / f"{method}.yaml").read_text()
    (root / "methods" / f"{method}.yaml").write_text(text + "version: 2\n")
    for inst in (root / "results" / method / TASK).iterdir():
        meta = json.loads((inst / "meta.json").read_text())
        if factor != 1.0:
            df = pd.read_csv(inst / "losses.csv")
            df[["S", "A"]] *= factor
            data = csv_bytes(df)
            (inst / "losses.csv").write_bytes(data)
            meta["losses_sha256"] = sha256_bytes(data)
        meta["fingerprint"]["method.version"] = "2"
        (inst / "meta.json").write_text(json.dumps(meta))


def test_a_changed_version_is_compared_and_fails_until_accepted(baseline, current):
    bump_version(current, "knn-cv-1", factor=5.0)  # S 5 x worse, as in the audit
    res = check(WorkspaceDirs(current), baseline)
    row = next(r for r in res.rows if r.method == "knn-cv-1" and r.loss == "S")
    assert res.failed and row.status == "changed spec"
    assert row.spec_change == ("method.version",) and row.comparison == "worse"
    assert row.change == pytest.approx(4.0)
    r = run_delve(current, "check", str(baseline))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "changed spec (field method.version; worse)" in r.stdout
    assert "--accept-changed knn-cv-1" in r.stdout
    # accepting the change judges it on its losses: still worse, still failing
    res = check(WorkspaceDirs(current), baseline, accept_changed=("knn-cv-1",))
    row = next(r for r in res.rows if r.method == "knn-cv-1" and r.loss == "S")
    assert row.status == "worse" and row.accepted and res.failed


def test_an_accepted_change_that_leaves_the_losses_alone_passes(baseline, current):
    bump_version(current, "knn-cv-1")
    assert check(WorkspaceDirs(current), baseline).failed
    r = run_delve(current, "check", str(baseline), "--accept-changed", "knn-cv-1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "accepted changed spec: method.version" in r.stdout


def test_a_method_on_one_side_only_is_listed(baseline, current):
    shutil.copytree(current / "results" / "lin-1", current / "results" / "lin-2")
    shutil.rmtree(current / "results" / "knn-cv-1")
    res = check(WorkspaceDirs(current), baseline)
    status = {(r.method, r.loss): r.status for r in res.rows}
    assert status[("knn-cv-1", "S")] == "missing" and status[("lin-2", "-")] == "new"
    assert res.failed


@pytest.mark.parametrize("margin", [float("nan"), float("inf"), -0.01])
def test_the_margin_is_a_finite_non_negative_number(baseline, current, margin):
    with pytest.raises(DelveError, match="finite"):
        check(WorkspaceDirs(current), baseline, margin=margin)


def test_a_huge_margin_is_judged_without_a_numpy_warning(baseline, current):
    # 1.5 x worse, tolerated by a margin of 1e300: the shifted test's t^2 overflowed and
    # `delve check` printed numpy's "RuntimeWarning: overflow encountered in square"
    import warnings

    bump_version(current, "lin-1", factor=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = check(
            WorkspaceDirs(current), baseline, ["lin-1"], margin=1e300, accept_changed=("lin-1",)
        )
    row = next(r for r in res.rows if r.loss == "S")
    assert (row.status, row.test, row.p) == ("changed", "t", 1.0) and not res.failed
    assert row.change == pytest.approx(0.5)


def test_margin_nan_on_the_command_line_is_one_error(baseline, current):
    r = run_delve(current, "check", str(baseline), "--margin", "nan")
    one_line_error(r, "--margin")


def test_a_baseline_losses_file_that_is_a_fifo_is_named_not_waited_on(baseline, current, tmp_path):
    base = tmp_path / "base"
    shutil.copytree(baseline, base)
    losses = base / "results" / "lin-1" / TASK / "2" / "losses.csv"
    losses.unlink()
    os.mkfifo(losses)  # reading it would wait forever for a writer
    res = check(WorkspaceDirs(current), base, ["lin-1"])
    row = next(r for r in res.rows if r.loss == "S")
    assert row.status == "unchanged" and row.instances == 7
    assert row.why == "baseline corrupt, not compared: 2"
