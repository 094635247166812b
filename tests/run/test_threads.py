"""One BLAS thread per job in every executor, ``--blas-threads`` where asked, and the
fingerprint that keeps results made before the option existed current."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from delve_bench.run import RunOptions, run_jobs
from delve_bench.run.job import Job, execute, expected_fingerprint
from delve_bench.run.provenance import describe_difference, stale_fields
from delve_bench.run.store import read_meta, result_dir
from delve_bench.tasks import TaskRef
from delve_bench.workspace import WorkspaceDirs

TESTS = str(Path(__file__).resolve().parent)
#: generated data (not a DELVE instance layout): the test holds whatever the data files do
TASK = TaskRef("hwang-g1", "clean", 64)


@pytest.fixture
def probe_ws(tmp_path, monkeypatch):
    """A workspace with the method ``threads-1`` (tests/run/probe.py), importable here and
    in worker processes (PYTHONPATH)."""
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "threads-1.yaml").write_text("plugin: probe:BlasThreads\nparams: {}\n")
    (tmp_path / "methods" / "variables-1.yaml").write_text("plugin: probe:ThreadVariables\n")
    monkeypatch.syspath_prepend(TESTS)
    monkeypatch.setenv("PYTHONPATH", TESTS + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return WorkspaceDirs(tmp_path)


def _threads(ws: WorkspaceDirs, instance: int) -> tuple[int, dict]:
    meta = read_meta(result_dir(ws, "threads-1", TASK, instance)) or {}
    assert meta.get("status") == "ok", meta.get("error")
    return meta["info"]["threads"], meta


@pytest.mark.slow  # probe jobs under three thread settings, 1.3 s; the fast loop reads the recorded threads below
def test_one_blas_thread_per_job_and_blas_threads_where_asked(probe_ws):
    ws = probe_ws
    # a worker process (cpu mode: the runner used to leave its pool at every core) ...
    run_jobs(ws, [Job("threads-1", TASK, 0)], RunOptions("cpu"), progress=False)
    threads, meta = _threads(ws, 0)
    assert threads == 1 and meta["blas_threads"] == 1
    assert "budget.blas_threads" not in meta["fingerprint"]
    # ... and in-process, in both modes
    for mode in ("cpu", "work"):
        execute(str(ws.root), Job("threads-1", TASK, 1), RunOptions(mode, force=True))
        assert _threads(ws, 1)[0] == 1, mode
    # --blas-threads N: N threads, in meta.json and the fingerprint
    asked = RunOptions("cpu", blas_threads=3)
    execute(str(ws.root), Job("threads-1", TASK, 0), asked)
    threads, meta = _threads(ws, 0)
    assert meta["blas_threads"] == 3 and meta["fingerprint"]["budget.blas_threads"] == 3
    # the library may cap the pool at the cores it sees, never leave it at one
    assert 1 < threads <= 3 or (os.cpu_count() or 1) == 1
    default = expected_fingerprint(ws, Job("threads-1", TASK, 0), RunOptions("cpu"))
    assert stale_fields(meta["fingerprint"], default) == ["budget.blas_threads"]
    assert "budget.blas_threads: 3 -> 1" in describe_difference(
        meta["fingerprint"], default, ["budget.blas_threads"]
    )
    # execute skips it only under its own setting, and redoes it with the default
    assert execute(str(ws.root), Job("threads-1", TASK, 0), asked).status == "skipped"
    assert execute(str(ws.root), Job("threads-1", TASK, 0), RunOptions("cpu")).status == "ok"
    assert "budget.blas_threads" not in _threads(ws, 0)[1]["fingerprint"]


def test_a_fingerprint_made_before_the_option_reads_as_one_thread(ws):
    """Results recorded without the field (the committed studies) stay current."""
    job = Job("lin-1", TASK, 0)
    now = expected_fingerprint(ws, job, RunOptions("work"))
    assert "budget.blas_threads" not in now
    assert stale_fields(dict(now), now) == []
    assert stale_fields(now, expected_fingerprint(ws, job, RunOptions("work", blas_threads=2))) == [
        "budget.blas_threads"
    ]


@pytest.mark.parametrize("asked", [1, 3])
def test_a_library_loaded_during_the_job_reads_its_thread_count_too(probe_ws, monkeypatch, asked):
    """threadpoolctl limits the libraries loaded when the limit is set; one a method loads
    during its fit (scikit-learn's OpenMP runtime, a plugin's MKL) takes its pool from
    these variables when it is loaded, so the job sets them as well, and puts them back."""
    names = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    for k in names:
        monkeypatch.delenv(k, raising=False)
    ws = probe_ws
    execute(str(ws.root), Job("variables-1", TASK, 0), RunOptions("cpu", blas_threads=asked))
    meta = read_meta(result_dir(ws, "variables-1", TASK, 0)) or {}
    assert meta.get("status") == "ok", meta.get("error")
    assert meta["info"]["variables"] == dict.fromkeys(names, str(asked))
    assert not set(names) & os.environ.keys()


@pytest.mark.slow
def test_dask_jobs_have_one_blas_thread(probe_ws):
    pytest.importorskip("distributed")
    ws = probe_ws
    jobs = [Job("threads-1", TASK, i) for i in (0, 1)]
    run_jobs(ws, jobs, RunOptions("cpu"), progress=False, dask="local:1")
    for i in (0, 1):
        threads, meta = _threads(ws, i)
        assert threads == 1 and meta["blas_threads"] == 1


def test_analyses_take_the_threads_of_the_newest_result_like_its_budget(probe_ws):
    from delve_bench.analysis.task import layout_of
    from delve_bench.run.store import task_instances

    ws = probe_ws
    layout = layout_of(ws, TASK)
    for i in (0, 1):
        execute(str(ws.root), Job("threads-1", TASK, i), RunOptions("work", blas_threads=2))
    st = {s.index: s.state for s in task_instances(ws, "threads-1", TASK, layout)}
    assert st[0] == st[1] == "ok"  # all made with 2 threads: current for the analyses
    execute(str(ws.root), Job("threads-1", TASK, 1), RunOptions("work", force=True))
    st = {s.index: s for s in task_instances(ws, "threads-1", TASK, layout)}
    assert st[1].state == "ok" and st[0].state == "stale"  # the newest has one thread
    assert st[0].stale == ("budget.blas_threads",) and "2 -> 1" in st[0].detail
