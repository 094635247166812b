"""`delve study verify` checks what is committed: a tampered committed loss fails, naming the
file and the instance, even after the report was regenerated from it; a study with only part
of its results committed passes on what is there; committed instances made on other task
files are listed as stale, never counted as verified. Generated data (hwang-g1), lin-1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import REPO, one_line_error, run_delve

from delve_bench.study.pack import _parquet, read_losses

STUDY = """description: lin-1 and knn-cv-1 on hwang-g1 (verify tests).
defaults: {budget_mode: work}
methods: {lin-1: {}, knn-cv-1: {}}
tasks: [hwang-g1/noisy/std.64]
displays: [diagrams]
"""
LOSSES = Path("results/h/losses/lin-1/hwang-g1-noisy.parquet")
#: the loss columns the study commits (its default, S): a tampered file keeps them, and only them
KEPT = ("S",)


@pytest.fixture(scope="module")
def with_runs(tmp_path_factory) -> Path:
    """A study with lin-1's results committed and knn-cv-1's not yet (in progress), its
    working store still there (the machine that ran it)."""
    root = tmp_path_factory.mktemp("study")
    (root / "studies").mkdir()
    (root / "studies" / "h.yaml").write_text(STUDY)
    for args in (("run", "h", "--method", "lin-1", "-q"), ("report", "h")):
        r = run_delve(root, "study", *args)
        assert r.returncode == 0, r.stderr
    return root


@pytest.fixture(scope="module")
def committed(with_runs, tmp_path_factory) -> Path:
    """The same as a fresh clone has it: only what is committed."""
    root = tmp_path_factory.mktemp("clone") / "ws"
    shutil.copytree(with_runs, root, ignore=shutil.ignore_patterns("runs"))
    return root


@pytest.fixture
def ws(committed, tmp_path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(committed, root)
    return root


def test_a_partly_committed_study_verifies(ws):
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok   committed losses: 8 committed instances match their recorded sha256" in r.stdout
    assert "knn-cv-1: no committed instance yet (skipped)" in r.stdout


def test_a_tampered_committed_loss_fails_even_after_the_report_is_regenerated(ws):
    df = read_losses(ws / LOSSES)
    row = np.flatnonzero(df["instance"].to_numpy() == 3)[0]
    df.loc[row, "S"] *= 100  # one committed value, as in the audit
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    # the report reads the committed rows in place, checked: it cannot be made to agree
    r = run_delve(ws, "study", "report", "h")
    one_line_error(r, f"{LOSSES}: hwang-g1/noisy/std.64 #3: its loss rows do not match the sha256")
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 1, r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL committed losses"))
    assert f"{LOSSES}: hwang-g1/noisy/std.64 #3" in line and "sha256" in line
    line = next(x for x in r.stdout.splitlines() if x.startswith("FAIL report"))
    assert "cannot be regenerated" in line and f"{LOSSES}: hwang-g1/noisy/std.64 #3" in line


def test_a_report_from_the_working_store_does_not_bless_a_tampered_file(with_runs, tmp_path):
    """`delve study report` packs the working store first; rows it keeps from the committed
    file keep their recorded hash, so the edit is still found."""
    ws = tmp_path / "ws"
    shutil.copytree(with_runs, ws)
    df = read_losses(ws / LOSSES)
    df.loc[np.flatnonzero(df["instance"].to_numpy() == 5)[0], "S"] *= 100
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    r = run_delve(ws, "study", "report", "h")
    one_line_error(r, f"{LOSSES}: hwang-g1/noisy/std.64 #5: its loss rows do not match the sha256")
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 1 and f"{LOSSES}: hwang-g1/noisy/std.64 #5" in r.stdout


def _fail_line(r, label: str) -> str:
    return next(x for x in r.stdout.splitlines() if x.startswith(f"FAIL {label}"))


def test_the_rerun_is_compared_with_the_committed_rows(ws):
    df = read_losses(ws / LOSSES)
    df.loc[np.flatnonzero(df["instance"].to_numpy() == 0)[0], "S"] *= 1.01
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 1
    line = _fail_line(r, "reproduce lin-1")
    assert "hwang-g1/noisy/std.64 #0: not bit-identical" in line
    assert "made with" not in line  # committed and rerun with the same kernels


def test_a_rerun_on_other_kernels_says_which_and_how_to_pin_them(ws):
    """The committed meta line records other OpenBLAS kernels than the rerun's (a result
    made on another CPU): the failure names both and the variable that pins them."""
    from delve_bench.study.pack import _meta_lines, _xz

    df = read_losses(ws / LOSSES)
    df.loc[np.flatnonzero(df["instance"].to_numpy() == 0)[0], "S"] *= 1.01
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    meta = ws / "results/h/meta/lin-1/hwang-g1-noisy.jsonl.xz"
    lines = _meta_lines(meta)
    # the kernels this machine's jobs run with (the rerun's), as the fixture's run recorded
    rerun = sorted({lib["architecture"] for lib in lines[0]["blas"]})
    assert {lib["library"] for lib in lines[0]["blas"]} == {"openblas"} and len(rerun) == 1
    for m in lines:
        m["blas"] = [dict(lib, architecture="Zen") for lib in m["blas"]]
    text = "\n".join(json.dumps(m, sort_keys=True) for m in lines) + "\n"
    meta.write_bytes(_xz(text.encode()))
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 1
    assert _fail_line(r, "reproduce lin-1").endswith(
        f"; made with OpenBLAS Zen kernels, this run {rerun[0]}: set OPENBLAS_CORETYPE=Zen"
    )


def _committed_cpu(ws, cpu: dict) -> None:
    """Record ``cpu`` as the CPU the committed lin-1 results were made on."""
    from delve_bench.study.pack import _meta_lines, _xz

    meta = ws / "results/h/meta/lin-1/hwang-g1-noisy.jsonl.xz"
    lines = [m | {"cpu": cpu} for m in _meta_lines(meta)]
    meta.write_bytes(_xz(("\n".join(json.dumps(m, sort_keys=True) for m in lines) + "\n").encode()))


def test_a_rerun_where_numpy_ran_other_loops_is_checked_statistically(ws):
    """Committed where numpy ran AVX-512 loops, rerun here with others: the bits cannot
    match, so a rerun beyond float32 passes when it is not significantly worse, and fails
    when it is (the check of the methods with a CPU budget)."""
    other = {"model": "Intel Xeon", "numpy_simd": ["X86_V3", "X86_V4", "AVX512_ICL"]}
    _committed_cpu(ws, other)
    df = read_losses(ws / LOSSES)
    first = np.flatnonzero(df["instance"].to_numpy() == 0)
    df.loc[first[0], "S"] *= 1.01  # beyond float32, not worse
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    r = run_delve(ws, "study", "verify", "h")
    line = next(x for x in r.stdout.splitlines() if "reproduce lin-1" in x)
    assert line.startswith("ok ") and "not bit-comparable (made where numpy's loops were " in line
    assert "X86_V4, AVX512_ICL (Intel Xeon), this run" in line and "p = " in line
    df.loc[first, "S"] *= 0.5  # the rerun now twice the committed loss on every case
    (ws / LOSSES).write_bytes(_parquet(df, KEPT))
    r = run_delve(ws, "study", "verify", "h")
    assert r.returncode == 1
    assert "mean S +" in _fail_line(r, "reproduce lin-1")


def test_committed_results_on_other_task_files_are_stale_not_verified(ws):
    tasks = ws / "tasks" / "hwang-g1"
    shutil.copytree(REPO / "tasks" / "hwang-g1", tasks)
    train = tasks / "noisy" / "std.64" / "train.0"
    lines = train.read_text().split()
    train.write_text("\n".join(reversed(lines)) + "\n")  # same cases, other index file
    r = run_delve(ws, "study", "verify", "h")
    out = r.stdout
    assert "NOT VERIFIED stale: 1 committed instances" in out, out
    assert "task.index differ" in out and "lin-1 hwang-g1/noisy/std.64 #0" in out
    assert "7 committed instances match" in out
    # the rerun skips the stale instance
    assert "reproduce lin-1: hwang-g1/noisy/std.64 #1" in out
    assert "not verified" in out.splitlines()[-1]


def test_every_analysis_of_the_study_refuses_a_tampered_committed_file(ws):
    """compare, stats, power, report and check read a study's committed rows in place
    (--with): each checks them against the hash their meta line records. A value x100
    flipped a comparison silently before."""
    df = read_losses(ws / LOSSES)
    df.loc[np.flatnonzero(df["instance"].to_numpy() == 3)[0], "S"] *= 100
    (ws / LOSSES).write_bytes(_parquet(df, ("S",)))  # one value, nothing else
    want = (
        f"{ws / LOSSES}: hwang-g1/noisy/std.64 #3: its loss rows do not match the sha256 "
        "its meta line records (edited or damaged; restore it from git)"
    )

    def refused(*args: str) -> None:
        r = run_delve(ws, *args)
        assert (r.returncode, r.stdout, r.stderr) == (2, "", f"delve: error: {want}\n"), args

    refused("stats", "lin-1", "hwang-g1/noisy/std.64", "--with", "h")
    assert run_delve(ws, "run", "knn-cv-1", "--study", "h", "-q").returncode == 0
    refused("compare", "knn-cv-1", "lin-1", "hwang-g1/noisy/std.64", "--with", "h")
    refused("power", "knn-cv-1", "lin-1", "hwang-g1/noisy/std.64", "--with", "h")
    refused("report", "--with", "h", "--out", str(ws / "out"))
    assert run_delve(ws, "run", "lin-1", "--study", "h", "-q").returncode == 0
    refused("check", "--with", "h")
