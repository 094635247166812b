"""`delve check --with STUDY`: reruns of a study's methods against its committed (packed)
results, and every example of `delve check --help`, run as written on the smoke study.
Real reruns of lin-1 and knn-cv-1 on smoke's tasks; the baseline of the path examples is a
copy of that workspace."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from support import run_delve

from delve_bench.cli.check import EXAMPLES

run = run_delve


@pytest.fixture(scope="module")
def reruns(tmp_path_factory) -> Path:
    """``<tmp>/ws``: lin-1 and knn-cv-1 rerun as study smoke runs them; ``<tmp>/baseline``:
    a copy of it (the help's ``../baseline``)."""
    top = tmp_path_factory.mktemp("check-with")
    ws = top / "ws"
    ws.mkdir()
    r = run(ws, "run", "lin-1", "knn-cv-1", "--study", "smoke", "-q")
    assert r.returncode == 0, r.stderr
    shutil.copytree(ws, top / "baseline")
    return ws


def _rows(stdout: str) -> list[list[str]]:
    return [line.split() for line in stdout.splitlines() if line.startswith(("lin-1", "knn-cv-1"))]


def test_reruns_are_checked_against_the_packed_study_results(reruns):
    # the study's baseline holds only packed files: the gate read instance folders there
    r = run(reruns, "check", "--with", "smoke")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("delve check against study smoke (")
    # the committed losses are the reruns' rounded to float32: unchanged at that precision
    tail = ["+0.00%", "-", "-", "unchanged"]  # change, p(worse), Holm p, verdict
    assert _rows(r.stdout) == [
        ["lin-1", "kin-8nm/dist/std.64", "S", "8", "0.655", "0.655", *tail],
        ["lin-1", "kin-8nm/dist/std.128", "S", "8", "0.601", "0.601", *tail],
        ["knn-cv-1", "kin-8nm/dist/std.64", "S", "8", "0.6934", "0.6934", *tail],
        ["knn-cv-1", "kin-8nm/dist/std.128", "S", "8", "0.5576", "0.5576", *tail],
    ]
    assert "No test was needed: no compared loss differs" in r.stdout.splitlines()[1]
    assert r.stdout.splitlines()[-1] == "ok: 4 unchanged"


def _examples() -> list[str]:
    """The `delve check` commands of the help's examples (a command after `&&` included)."""
    out = []
    for line in EXAMPLES.splitlines():
        cmd = line.split("#")[0].split("&&")[-1].strip()
        if cmd.startswith("delve check"):
            out.append(cmd)
    return out


def test_the_help_has_these_examples():
    assert len(_examples()) == 5  # a new example is run by the test below too


@pytest.mark.parametrize("example", _examples())
def test_every_help_example_works(reruns, example):
    # run in the workspace, so ../baseline is the copy; the release worktree of the
    # example is that copy too, and study thesis is smoke (whose tasks were rerun)
    args = [
        {"/tmp/base": "../baseline", "thesis": "smoke"}.get(a, a) for a in shlex.split(example)[2:]
    ]
    r = run(reruns, "check", *args)
    assert r.returncode == 0, f"{example}: {r.stdout}{r.stderr}"
    if "--json" in args:
        res = json.loads(r.stdout)
        assert res["failed"] is False and res["margin"] == 0.02
        assert {(x["method"], x["loss"], x["status"]) for x in res["rows"]} == {
            (m, loss, "unchanged") for m in ("lin-1", "knn-cv-1") for loss in ("S", "A")
        }
    else:
        first, last = r.stdout.splitlines()[0], r.stdout.splitlines()[-1]
        assert first.startswith("delve check against ")
        assert last in ("ok: 4 unchanged", "ok: 2 unchanged"), r.stdout
