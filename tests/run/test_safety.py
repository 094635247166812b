"""Trust under stress, with real processes: stale results are rerun, --force and kill -9,
limits in work mode and on memory, Ctrl-C with every executor."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from delve_bench.run.store import instance_state

TESTS = str(Path(__file__).resolve().parent)
RES = ("results", "nap-1", "kin-8nm", "dist", "std.64")


def _workspace(root: Path) -> dict:
    (root / "methods").mkdir(exist_ok=True)
    (root / "methods" / "nap-1.yaml").write_text(
        "plugin: misbehaving:Nap\nparams: {}\nbudget: {cpu_per_case: 0.5}\n"
    )
    (root / "methods" / "hog-1.yaml").write_text(
        "plugin: misbehaving:Hog\nparams: {gigabytes: 3}\n"
    )
    (root / "methods" / "spin-1.yaml").write_text(
        "plugin: misbehaving:Spin\nparams: {}\nbudget: {hard_limit: 1}\n"
    )
    return {"PYTHONPATH": TESTS + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _popen(
    root: Path, *args: str, nap: float, command: tuple[str, ...] = ("run",), **env_vars: str
) -> subprocess.Popen:
    """``delve COMMAND ARGS`` (``delve run`` by default) in workspace ``root`` whose methods
    nap ``nap`` seconds in fit(), in a process group of its own; ``env_vars`` added."""
    (root / "naps").mkdir(exist_ok=True)
    env = dict(os.environ, DELVE_ROOT=str(root), DELVE_TEST_NAP=str(nap), **_workspace(root))
    env["DELVE_TEST_NAP_MARKS"] = str(root / "naps")  # misbehaving.Nap: a file per fit
    env.update(env_vars)
    return subprocess.Popen(
        [sys.executable, "-m", "delve_bench", *command, *args],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


# The waits below are for events, each with a generous bound that only a failure reaches:
# the load of other work on the machine (a study run on every core) makes each step slower
# by a factor no fixed sleep can know.


def _wait_for_naps(root: Path, n: int, bound: float = 300) -> None:
    """Until ``n`` jobs of the run are in misbehaving.Nap's fit() (its marker files)."""
    deadline = time.monotonic() + bound
    while len(list((root / "naps").iterdir())) < n:
        assert time.monotonic() < deadline, "the jobs never started"
        time.sleep(0.02)


def _run_delay(pid: int) -> float | None:
    """Seconds the main thread of process ``pid`` has waited so far for a CPU while it could
    run (Linux's /proc/PID/task/PID/schedstat; None once it has ended or where that is
    missing). The main thread's alone: the waits of several threads overlap in time."""
    try:
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


def _signal(p: subprocess.Popen, sig: int, bound: float) -> str:
    """Send ``sig`` to the run's process group and wait for it to exit: its stderr (the
    group is killed if it is still there after ``bound`` seconds)."""
    os.killpg(p.pid, sig)
    try:
        return p.communicate(timeout=bound)[1]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)


def _interrupt(p: subprocess.Popen, bound: float = 120) -> tuple[float, str]:
    """Ctrl-C to the run (to its process group, as a terminal sends it) and wait for it to
    exit: the seconds that took, less the time its main thread waited for a CPU held by
    other processes, and its stderr.

    On a loaded machine that wait is most of the elapsed time and says nothing about the
    run; what is left is the time the main thread computed, or slept and blocked on
    something (a job, a worker, another thread of the run, a timeout): what "stops within
    two seconds" is about. Its last few milliseconds of waiting, after the last look, count
    as the run's, so the figure can only err on the long side."""
    err: list[str] = []
    assert p.stderr is not None
    stderr = p.stderr
    reader = threading.Thread(target=lambda: err.append(stderr.read()))  # no full pipe
    reader.start()
    before = last = _run_delay(p.pid)
    t = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    try:
        while p.poll() is None:
            assert time.monotonic() - t < bound, "the run did not stop"
            now = _run_delay(p.pid)
            last = last if now is None else now
            time.sleep(0.01)
        took = time.monotonic() - t
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    _wait_for_the_run_to_end(p.pid)
    reader.join(bound)  # EOF once every process that shares the pipe has ended
    assert not reader.is_alive(), "the run's stderr stayed open"
    waited = last - before if before is not None and last is not None else 0.0
    return took - waited, err[0]


def _live_members(group: int) -> list[int]:
    """The processes of process group ``group`` that have not ended (zombies are ended:
    whether they are reaped is up to their parent or init)."""
    if not Path("/proc/self/stat").is_file():  # no /proc: ask the kernel, zombies and all
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return []
        return [group]
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, pgrp = stat.read_text().rpartition(")")[2].split()[:3]
        except (OSError, ValueError):
            continue  # the process ended meanwhile
        if int(pgrp) == group and state != "Z":
            out.append(int(stat.parent.name))
    return out


def _wait_for_the_run_to_end(group: int, bound: float = 120) -> None:
    """Until every process the run started (its process group) has ended, so that nothing
    of it can still write the files a test then looks at."""
    deadline = time.monotonic() + bound
    while left := _live_members(group):
        if time.monotonic() > deadline:
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"processes of the run outlived it: {left}")
        time.sleep(0.02)


def test_a_result_made_with_another_time_scale_is_rerun_and_shown_as_stale(delve, tmp_path):
    env = _workspace(tmp_path)
    run = ("run", "nap-1", "kin-8nm/std.64", "--instances", "0-2")
    delve(*run, "--time-scale", "0.001", env=env, check=True)
    meta = json.loads((tmp_path.joinpath(*RES) / "0" / "meta.json").read_text())
    assert meta["fingerprint"]["budget.time_scale"] == 0.001
    r = delve(*run, "--time-scale", "0.001", env=env, check=True)
    assert "ran 0, skipped 3 finished" in r.stderr
    again = ("run", "nap-1", "kin-8nm/std.64", "--instances", "1-2", "--time-scale", "0.002")
    delve(*again, env=env, check=True)
    text = delve("status", "nap-1", env=env, check=True).stdout
    assert "#0: stale (budget.time_scale: 0.001 -> 0.002" in text
    (stats,) = json.loads(delve("stats", "nap-1", "kin-8nm/std.64", "--json", env=env).stdout)
    assert stats["instances_used"] == [1, 2] and stats["instances_stale"] == [0]
    assert stats["budget"] == {"mode": "cpu", "time_scale": 0.002}
    r = delve(*run, "--time-scale", "0.002", env=env, check=True)
    assert "rerunning 1 instance(s) made under other settings" in r.stderr
    assert "budget.time_scale" in r.stderr and "ran 1, skipped 2" in r.stderr


def test_kill_9_during_a_forced_rerun_leaves_the_earlier_result(delve, tmp_path):
    env = _workspace(tmp_path)
    delve("run", "nap-1", "kin-8nm/std.64", "--instances", "0", env=env, check=True)
    d = tmp_path.joinpath(*RES) / "0"
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    p = _popen(tmp_path, "nap-1", "kin-8nm/std.64", "--instances", "0", "--force", nap=60)
    _wait_for_naps(tmp_path, 1)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    _wait_for_the_run_to_end(p.pid)
    assert {q.name: q.read_bytes() for q in d.iterdir()} == before
    assert instance_state(d) == "ok"
    r = delve("run", "nap-1", "kin-8nm/std.64", "--instances", "0", "--force", env=env, check=True)
    assert "ran 1" in r.stderr and not list(d.parent.glob(".0.*"))


def test_a_job_past_its_memory_limit_is_recorded_as_failed_with_the_reason(delve, tmp_path):
    env = _workspace(tmp_path)
    r = delve(
        "run",
        "hog-1",
        "kin-8nm/std.64",
        "--instances",
        "0",
        "--memory-limit",
        "1G",
        "--budget-mode",
        "work",
        env=env,
    )
    assert r.returncode == 1 and "memory limit of 1024 MB" in r.stderr
    meta = json.loads((tmp_path / "results/hog-1/kin-8nm/dist/std.64/0/meta.json").read_text())
    assert meta["status"] == "failed" and "MemoryError" in meta["error"]


def test_a_work_mode_job_is_killed_at_its_yaml_hard_limit(delve, tmp_path):
    env = _workspace(tmp_path)
    r = delve(
        "run", "spin-1", "kin-8nm/std.64", "--instances", "0", "--budget-mode", "work", env=env
    )
    # the CPU limit, or on a loaded machine the wall-clock one (2 x 1 s + 5 s)
    assert r.returncode == 1 and "hard limit of" in r.stderr
    meta = json.loads((tmp_path / "results/spin-1/kin-8nm/dist/std.64/0/meta.json").read_text())
    assert meta["limits"]["cpu_hard_limit_s"] == 1.0


def _ctrl_c(tmp_path: Path, *executor: str) -> None:
    res = tmp_path.joinpath(*RES)
    p = _popen(tmp_path, "nap-1", "kin-8nm/std.64", "--instances", "0-3", *executor, nap=600)
    _wait_for_naps(tmp_path, 2 if executor else 1)
    took, err = _interrupt(p)
    assert p.returncode == 130 and "interrupted" in err and "rerun to resume" in err, err
    assert took < 2.0, f"{took:.2f} s\n{err}"
    assert not list(res.glob(".*")), list(res.glob(".*"))  # no lock, no staging left
    assert not list(res.glob("*/meta.json"))
    q = _popen(tmp_path, "nap-1", "kin-8nm/std.64", "--instances", "0-3", nap=0)
    _, err = q.communicate(timeout=600)
    assert q.returncode == 0 and "ran 4" in err, err


@pytest.mark.slow
@pytest.mark.parametrize("executor", [(), ("--jobs", "2")], ids=["sequential", "jobs2"])
def test_ctrl_c_stops_a_run_within_two_seconds_and_the_rerun_resumes(tmp_path, executor):
    _ctrl_c(tmp_path, *executor)


@pytest.mark.slow
def test_ctrl_c_stops_a_dask_run_within_two_seconds(tmp_path):
    pytest.importorskip("distributed")
    _ctrl_c(tmp_path, "--dask", "local:2")


@pytest.mark.slow
def test_ctrl_c_during_a_forced_rerun_keeps_the_earlier_result(delve, tmp_path):
    """--force replaces a result only when the new one is complete: one Ctrl-C while the
    forced rerun runs (with --jobs 2) leaves every earlier file byte-identical."""
    env = _workspace(tmp_path)
    delve("run", "nap-1", "kin-8nm/std.64", "--instances", "0-1", env=env, check=True)
    res = tmp_path.joinpath(*RES)
    before = {p: p.read_bytes() for p in sorted(res.rglob("*")) if p.is_file()}
    p = _popen(
        tmp_path, "nap-1", "kin-8nm/std.64", "--instances", "0-1", "--force", "--jobs", "2", nap=600
    )
    _wait_for_naps(tmp_path, 2)
    _, err = _interrupt(p)
    assert p.returncode == 130, err
    assert {p: p.read_bytes() for p in sorted(res.rglob("*")) if p.is_file()} == before
    assert all(instance_state(res / str(i)) == "ok" for i in (0, 1))


def _forkserver_of(pid: int, timeout: float = 60) -> int:
    """The pid of the forkserver process ``pid`` starts (its child running
    multiprocessing.forkserver), as soon as it exists."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            for child in (task / "children").read_text().split():
                try:
                    cmd = Path(f"/proc/{child}/cmdline").read_bytes()
                except OSError:
                    continue
                if b"forkserver" in cmd:
                    return int(child)
        time.sleep(0.01)
    raise AssertionError("no forkserver started")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_ctrl_c_while_the_workers_start_prints_no_traceback(tmp_path):
    """Ctrl-C while the forkserver is still importing its preload (numpy, the package, scipy:
    most of a second) stops the run with its summary; the forkserver ignores it rather
    than dying with a KeyboardInterrupt traceback on the terminal."""
    p = _popen(tmp_path, "nap-1", "kin-8nm/std.64", "--instances", "0-3", "--jobs", "2", nap=600)
    _forkserver_of(p.pid)
    time.sleep(0.05)
    err = _signal(p, signal.SIGINT, 30)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" in err or "aborted" in err, err


@pytest.mark.slow
def test_sigterm_stops_a_study_run_and_packs_what_finished(tmp_path):
    """A study run stopped by SIGTERM (a batch system's or a session's time limit) packs the
    running method's finished instances into the committed files before it exits, so a
    machine wiped afterwards loses only the jobs that were running; the rerun resumes."""
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "naps.yaml").write_text(
        "defaults: {budget_mode: work}\nmethods: {nap-1: {}}\ntasks: [kin-8nm/std.64]\n"
    )
    # three instances finish at once, the fourth naps
    study = ("study", "run", "naps")
    p = _popen(tmp_path, "-q", nap=600, command=study, DELVE_TEST_NAP_AFTER="3")
    _wait_for_naps(tmp_path, 4)
    err = _signal(p, signal.SIGTERM, 120)
    assert p.returncode == 143, err
    assert "Traceback" not in err, err
    assert (
        "terminated (SIGTERM): 3 jobs finished and are kept; nap-1's finished instances are "
        "packed (2 committed files written); the running ones were stopped" in err
    ), err
    packed = tmp_path / "results" / "naps" / "losses" / "nap-1" / "kin-8nm-dist.parquet"
    assert sorted(pd.read_parquet(packed)["instance"].unique()) == [0, 1, 2]
    # the working store is lost (a wiped machine): the packed three count as done
    shutil.rmtree(tmp_path / "results" / "naps" / "runs")
    _, err = _popen(tmp_path, nap=0, command=study).communicate(timeout=300)
    assert "ran 5 jobs, 0 failed" in err, err
    assert sorted(pd.read_parquet(packed)["instance"].unique()) == list(range(8))
