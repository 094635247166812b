"""The runner as a batch engine: hard limits kill, crashes are recorded, kill -9 resumes,
concurrent runs do each job once, corrupt results are caught, Dask gives the same files."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from delve_bench.run.store import instance_state

TESTS = str(Path(__file__).resolve().parent)
SLOW_RUN = [
    sys.executable,
    "-m",
    "delve_bench",
    "run",
    "slow-1",
    "kin-8nm/std.64",
    "--budget-mode",
    "work",
]


def _methods(root: Path) -> dict:
    (root / "methods").mkdir(exist_ok=True)
    for name, cls, params in (
        ("spin-1", "Spin", "{}"),
        ("sleep-1", "Sleep", "{}"),
        ("deaf-1", "SleepDeaf", "{}"),
        ("segv-1", "Segfault", "{}"),
        ("nan-1", "NanPredictions", "{}"),
        ("slow-1", "Slow", "{seconds: 0.4}"),
    ):
        (root / "methods" / f"{name}.yaml").write_text(
            f"plugin: misbehaving:{cls}\nparams: {params}\n"
        )
    return {"PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _digests(root: Path) -> dict:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in (root / "results").rglob("losses.csv")
    }


def test_hung_and_crashing_jobs_are_killed_and_recorded(delve, tmp_path):
    env = _methods(tmp_path)
    t = time.perf_counter()
    r = delve(
        "run",
        "spin-1",
        "sleep-1",
        "deaf-1",
        "segv-1",
        "nan-1",
        "lin-1",
        "boston/price/std.128",
        "--budget-mode",
        "work",
        "--hard-limit",
        "1",
        "--jobs",
        "2",
        env=env,
    )
    assert r.returncode == 1
    assert time.perf_counter() - t < 60
    status = json.loads(delve("status", "--json", env=env, check=True).stdout)
    by = {s["method"]: s for s in status}
    assert by["lin-1"]["done"] == [0, 1]
    assert (
        "hard limit" in by["spin-1"]["errors"]["0"]
    )  # CPU limit; on a loaded machine the wall one
    assert "wall-clock hard limit" in by["sleep-1"]["errors"]["0"]  # the worker's own timer
    assert "wall-clock hard limit" in by["deaf-1"]["errors"]["0"]  # the parent, a tick later
    assert "died" in by["segv-1"]["errors"]["0"]
    assert "non-finite" in by["nan-1"]["errors"]["0"]
    text = delve("status", env=env, check=True).stdout
    assert "spin-1" in text and "#1: HardLimit" in text
    assert not list((tmp_path / "results" / "spin-1").rglob("losses.csv"))
    assert not list((tmp_path / "results").rglob(".*.lock"))


@pytest.mark.slow
def test_a_computing_job_is_stopped_by_the_kernel_at_its_cpu_limit(tmp_path, monkeypatch):
    from delve_bench.run import isolate
    from delve_bench.run.job import Job, Limits, RunOptions, execute
    from delve_bench.tasks import TaskRef

    _methods(tmp_path)
    monkeypatch.syspath_prepend(TESTS)
    monkeypatch.setenv("PYTHONPATH", TESTS)
    job = Job("spin-1", TaskRef("boston", "price", 128), 0)
    out = isolate.run_isolated(execute, str(tmp_path), job, RunOptions(), Limits(1.0, 300.0))
    assert out.status == "failed" and "CPU hard limit of 1.0 s" in out.error


def test_kill_9_mid_run_leaves_nothing_half_written_and_resume_completes(delve, tmp_path):
    env = dict(os.environ, DELVE_ROOT=str(tmp_path), PYTHONPATH=_methods(tmp_path)["PYTHONPATH"])
    p = subprocess.Popen(
        SLOW_RUN + ["-q"],
        env=env,
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 60
    res = tmp_path / "results" / "slow-1" / "kin-8nm" / "dist" / "std.64"
    while time.time() < deadline and len(list(res.glob("*/meta.json"))) < 2:
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    done = len(list(res.glob("*/meta.json")))
    assert 2 <= done < 8
    for d in res.iterdir():  # every instance is complete, or has no meta.json at all
        assert instance_state(d) in ("ok", "missing")
    r = delve("run", "slow-1", "kin-8nm/std.64", "--budget-mode", "work", env=env, check=True)
    assert f"ran {8 - done}, skipped {done}" in r.stderr
    assert len(list(res.glob("*/meta.json"))) == 8


def test_kill_9_of_a_worker_loses_only_its_job_and_a_rerun_redoes_it(delve, tmp_path):
    env = dict(os.environ, DELVE_ROOT=str(tmp_path), PYTHONPATH=_methods(tmp_path)["PYTHONPATH"])
    p = subprocess.Popen(SLOW_RUN, env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    res = tmp_path / "results" / "slow-1" / "kin-8nm" / "dist" / "std.64"
    deadline, victim = time.time() + 60, None
    while victim is None and time.time() < deadline:  # the lock file names the worker's pid
        for lock in res.glob(".*.lock"):
            try:
                victim = int(lock.read_text().split()[1])
                break
            except (OSError, ValueError, IndexError):
                pass
        time.sleep(0.01)
    assert victim is not None
    os.kill(victim, signal.SIGKILL)
    err = p.communicate(timeout=120)[1]
    assert p.returncode == 1 and "interrupted: slow-1" in err and "ran 7" in err, err
    assert sum(instance_state(d) == "ok" for d in res.iterdir()) == 7
    r = delve("run", "slow-1", "kin-8nm/std.64", "--budget-mode", "work", env=env, check=True)
    assert "ran 1, skipped 7" in r.stderr


def test_two_concurrent_runs_do_each_job_once(delve, tmp_path):
    env = dict(os.environ, DELVE_ROOT=str(tmp_path), PYTHONPATH=_methods(tmp_path)["PYTHONPATH"])
    procs = [
        subprocess.Popen(SLOW_RUN, env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    errs = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errs
    ran = sum(int(e.split("ran ", 1)[1].split(",")[0]) for e in errs)
    assert ran == 8, errs
    metas = [json.loads(p.read_text()) for p in (tmp_path / "results").rglob("meta.json")]
    assert len(metas) == 8 and all(m["status"] == "ok" for m in metas)


def test_a_corrupt_losses_file_is_reported_not_used(delve, tmp_path):
    delve("run", "lin-1", "boston/price/std.64", "--budget-mode", "work", "-q", check=True)
    f = tmp_path / "results/lin-1/boston/price/std.64/2/losses.csv"
    f.write_text(f.read_text()[:-40])
    r = delve("stats", "lin-1", "boston/price/std.64")
    assert r.returncode == 2 and "corrupt" in r.stderr and "--force" in r.stderr
    assert "corrupt" in delve("status", "lin-1", check=True).stdout
    delve(
        "run", "lin-1", "boston/price/std.64", "--budget-mode", "work", "-q", check=True
    )  # reruns it
    delve("stats", "lin-1", "boston/price/std.64", check=True)


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_files(delve, tmp_path):
    pytest.importorskip("distributed")
    a, b = tmp_path / "seq", tmp_path / "dask"
    a.mkdir()
    b.mkdir()
    args = (
        "run",
        "lin-1",
        "knn-cv-1",
        "boston/price/std.32",
        "kin-8nm/std.128",
        "--budget-mode",
        "work",
        "-q",
    )
    delve(*args, root=a, check=True)
    delve(*args, "--dask", "local:2", root=b, check=True)
    da, db = _digests(a), _digests(b)
    assert len(da) == 32 and da == db


@pytest.mark.slow  # three worker starts that fail, 0.7 s; the fast loop runs jobs through the pool
def test_workers_that_cannot_start_stop_the_run_with_one_error():
    """A worker that exits before taking a job takes no job with it; replacing it forever
    would hang the run, so the third such exit ends the run with one error."""
    from delve_bench.errors import DelveError
    from delve_bench.run import isolate
    from delve_bench.run.job import Job, Limits, RunOptions, execute
    from delve_bench.tasks import TaskRef

    class ExitsWhereUnpickled:  # a worker unpickles its jobs first: it exits right there
        def __reduce__(self):
            return (os._exit, (3,))

    jobs = [Job("lin-1", TaskRef("boston", "price", 128), i) for i in range(4)]
    t = time.perf_counter()
    with pytest.raises(DelveError, match=r"exit before running a job \(exit codes 3, 3, 3\)"):
        isolate.run_pool(
            execute,
            ExitsWhereUnpickled(),
            jobs,
            RunOptions(),
            lambda job: Limits(10.0, 30.0),
            2,
            lambda outcome: None,
        )
    assert time.perf_counter() - t < 60


@pytest.mark.slow  # a run in a folder of its own, 1.5 s
def test_workers_import_the_installed_package_not_one_in_the_working_directory(tmp_path):
    """A workspace may be a checkout of delve-bench at another version; the `delve` command
    does not import from its working directory, and neither may its workers."""
    (tmp_path / "delve_bench").mkdir()
    (tmp_path / "delve_bench" / "__init__.py").write_text("raise ImportError('the checkout')\n")
    script = Path(sys.executable).with_name("delve")
    r = subprocess.run(
        [str(script), "run", "lin-1", "boston/price/std.128", "--budget-mode", "work", "-j", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, DELVE_ROOT=str(tmp_path)),
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ran 2, skipped 0" in r.stderr
