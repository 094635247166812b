"""Locks carry a lease: the holder refreshes it while the job runs; a lock whose lease ran out
is taken over from any host with a line saying so; `delve status` shows held and expired
locks with host, pid and age; and a run's counts add up to its jobs."""

from __future__ import annotations

import os
import re
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
