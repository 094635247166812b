"""Locks carry a lease: the holder refreshes it while the job runs; a lock whose lease ran out
is taken over from any host with a line saying so; `delve status` shows held and expired
locks with host, pid and age; and a run's counts add up to its jobs."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from delve_bench.run.store import InstanceLock, lock_path, read_lock, result_dir
from delve_bench.tasks.names import TaskRef

REF = TaskRef("hwang-g1", "noisy", 64)


def _foreign_lock(d: Path, age: float, lease: float = 300) -> Path:
    """The lock a `delve run` on another node left (that node crashed ``age`` s ago)."""
    p = lock_path(d)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"node-17.cluster 4242 12345 {lease:g}")
    t = time.time() - age
    os.utime(p, (t, t))
    return p


def test_a_foreign_lock_holds_until_its_lease_expires(tmp_path, capsys):
    d = tmp_path / "results" / "3"
    _foreign_lock(d, age=10)
    lock = InstanceLock(d)
    assert not lock.acquire()
    assert read_lock(lock.path).describe().startswith("held by node-17.cluster pid 4242")
    _foreign_lock(d, age=400)
    assert lock.acquire() and lock.took_over
    err = capsys.readouterr().err
    assert "taking over the lock" in err and "expired by node-17.cluster pid 4242" in err
    assert lock.path.read_text().split()[1] == str(os.getpid())
    lock.release()
    assert not lock.path.exists()


def test_a_lease_that_is_not_a_finite_number_has_expired(tmp_path, capsys):
    # a damaged or hand-made lock reading `nan` or `inf` held its instance for good
    for i, lease in enumerate(["nan", "inf", "-inf", "soon"]):
        d = tmp_path / "results" / str(i)
        p = lock_path(d)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"node-17.cluster 4242 12345 {lease}")
        os.utime(p, (time.time() - 30, time.time() - 30))  # within any valid lease
        info = read_lock(p)
        assert info is not None and info.expired and not info.held
        assert info.describe().startswith("expired by node-17.cluster pid 4242, refreshed ")
        assert info.describe().endswith(" s ago (no valid lease)")
        lock = InstanceLock(d)
        assert lock.acquire() and lock.took_over == info.describe()
        assert capsys.readouterr().err == f"delve: taking over the lock {p}: {info.describe()}\n"
        assert p.read_text().split()[1] == str(os.getpid())
        lock.release()
        assert not p.exists()


def test_a_lock_that_is_not_a_regular_file_is_never_waited_on(tmp_path):
    # a FIFO in a lock's place hung `delve status` (and a run) on its read
    d = tmp_path / "results" / "0"
    p = lock_path(d)
    p.parent.mkdir(parents=True)
    os.mkfifo(p)
    old = time.time() - 60
    os.utime(p, (old, old))

    class Waited(Exception):  # not an OSError, which a reader may catch
        pass

    def waited(*_):
        raise Waited(f"read_lock waited on the FIFO {p}")

    before = signal.signal(signal.SIGALRM, waited)
    signal.alarm(20)  # a regression fails the test, never hangs it
    try:
        info = read_lock(p)
        assert info is not None and info.host == "?" and info.lease == 10.0 and info.expired
        lock = InstanceLock(d)
        assert lock.acquire() and p.is_file() and p.read_text().split()[1] == str(os.getpid())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)
    lock.release()


def test_a_takeover_claim_left_by_a_run_that_died_is_passed_over(tmp_path, monkeypatch):
    from delve_bench.run import store

    d = tmp_path / "results" / "0"
    p = _foreign_lock(d, age=4000)
    st = p.lstat()
    dead = p.with_name(f"{p.name}.{st.st_ino}-{st.st_mtime_ns}.0")
    os.link(p, dead)  # a run claimed it, then died before putting its lock in place
    assert not InstanceLock(d).acquire()  # as if that run were still at it
    monkeypatch.setattr(store, "CLAIM_STUCK_SECONDS", 0.0)  # ... and now long enough ago
    lock = InstanceLock(d)
    assert lock.acquire() and p.read_text().split()[1] == str(os.getpid())
    assert not dead.exists() and sorted(x.name for x in p.parent.iterdir()) == [p.name]
    lock.release()


def _taker(root: str, rounds: int, barrier, results) -> None:
    """One of two runs racing for the same expired locks, round after round. Each may
    stall up to 2 ms between reading a lock and acting on it, as a busy machine makes it."""
    import random

    import delve_bench.run.store as store

    read = store.read_lock
    rng = random.Random(os.getpid())

    def stalling(path):
        info = read(path)
        time.sleep(rng.uniform(0, 0.002))
        return info

    store.read_lock = stalling
    for r in range(rounds):
        barrier.wait()
        lock = store.InstanceLock(Path(root) / str(r))
        got = lock.acquire()
        barrier.wait()  # both have tried: the file names the one holder
        results.put((r, got, got and lock.path.read_text().split()[1] == str(os.getpid())))
        barrier.wait()
        lock.release()


@pytest.mark.slow  # racing processes, 0.7 s; the fast loop passes over a dead claim above
def test_two_runs_never_both_take_over_one_expired_lock(tmp_path):
    """Taking over was read, unlink, create: a run that read the dead lock before the other
    replaced it unlinked the other's new lock and made its own, and both ran the job."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    rounds = 150
    for r in range(rounds):
        _foreign_lock(tmp_path / str(r), age=4000)
    barrier, results = ctx.Barrier(2, timeout=60), ctx.Queue()
    procs = [
        ctx.Process(target=_taker, args=(str(tmp_path), rounds, barrier, results)) for _ in "AB"
    ]
    for p in procs:
        p.start()
    try:
        got = [results.get(timeout=60) for _ in range(2 * rounds)]
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    assert [p.exitcode for p in procs] == [0, 0]
    for r in range(rounds):
        mine = sorted((g, m) for rr, g, m in got if rr == r)
        assert mine == [(False, False), (True, True)], (r, mine)  # one holder, named in the file
    assert not list(tmp_path.glob(".*.lock.*"))  # no claim or temporary file left behind


def test_the_holder_refreshes_its_lease(tmp_path, monkeypatch):
    monkeypatch.setenv("DELVE_LOCK_LEASE", "0.6")
    d = tmp_path / "results" / "0"
    lock = InstanceLock(d)
    assert lock.acquire()
    t = time.time() - 100
    os.utime(lock.path, (t, t))
    time.sleep(0.35)  # two refresh periods (a sixth of the lease each)
    assert read_lock(lock.path).age < 1 and not InstanceLock(d).acquire()
    lock.release()


@pytest.mark.parametrize("value", ["nan", "-1", "soon"])
def test_a_bad_lease_setting_is_an_error(tmp_path, monkeypatch, value):
    from delve_bench.errors import DelveError

    monkeypatch.setenv("DELVE_LOCK_LEASE", value)
    with pytest.raises(DelveError, match="DELVE_LOCK_LEASE"):
        InstanceLock(tmp_path / "0").acquire()


def test_status_shows_locks_and_run_takes_an_expired_one_over(tmp_path, delve):
    from delve_bench.workspace import WorkspaceDirs

    ws = WorkspaceDirs(tmp_path)
    _foreign_lock(result_dir(ws, "lin-1", REF, 0), age=30)
    _foreign_lock(result_dir(ws, "lin-1", REF, 1), age=4000)
    r = delve("status", "lin-1", REF.full_name, check=True)
    assert re.search(r"#0: lock held by node-17.cluster pid 4242, refreshed 3\d s ago", r.stdout)
    assert "#1: lock expired by node-17.cluster pid 4242" in r.stdout
    r = delve("run", "lin-1", REF.full_name, "--instances", "0-2")
    assert r.returncode == 0, r.stderr
    assert "taking over the lock" in r.stderr and ".1.lock" in r.stderr
    assert "ran 2, skipped 0 finished, 0 failed, 1 busy elsewhere" in r.stderr


def test_counts_add_up_when_another_run_finished_a_job_meanwhile():
    from delve_bench.api import _summary
    from delve_bench.run.job import Job, Outcome

    jobs = [Job("lin-1", REF, i) for i in range(4)]
    outcomes = [
        Outcome(jobs[0], "ok"),
        Outcome(jobs[1], "skipped"),  # the other run finished it first
        Outcome(jobs[2], "locked"),
        Outcome(jobs[3], "ok"),
    ]

    class _Plan:
        skipped: dict = {"done": []}

    s = _summary(outcomes, _Plan(), 1.0)  # type: ignore[arg-type]
    assert s.ran + s.skipped + len(s.failed) + s.busy == len(jobs)
