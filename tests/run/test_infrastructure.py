"""A full disk, a read-only store or a vanished directory is the machine's failure, not the
method's: nothing is recorded (a plain rerun retries the job), the earlier result stays, and
the message names the real cause. An instance directory that is a symbolic link never
wedges later runs. In-process runs of lin-1 on generated data (hwang-g1)."""

from __future__ import annotations

import errno
import shutil

import pytest

from delve_bench.run import job as jobmod
from delve_bench.run.job import Job, RunOptions, execute
from delve_bench.run.store import InstanceLock, instance_state, lock_path, result_dir, staging_dir
from delve_bench.tasks.names import TaskRef

REF = TaskRef("hwang-g1", "noisy", 64)
WORK = RunOptions(mode="work")


def _job(i: int = 0) -> Job:
    return Job("lin-1", REF, i)


def _clean(ws, i: int = 0) -> None:
    d = result_dir(ws, "lin-1", REF, i)
    assert not staging_dir(d).exists() and not lock_path(d).exists()


def test_a_full_disk_is_not_recorded_as_a_method_failure(ws, monkeypatch):
    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(jobmod, "atomic_write", full)
    out = execute(ws, _job(), WORK)
    assert out.status == "interrupted"
    d = result_dir(ws, "lin-1", REF, 0)
    assert out.error == (
        "infrastructure failure, not the method's: No space left on device (ENOSPC): "
        f"{staging_dir(d)}/predictions.csv; nothing recorded (a plain rerun does the job)"
    )
    assert instance_state(result_dir(ws, "lin-1", REF, 0)) == "missing"
    _clean(ws)
    monkeypatch.undo()
    assert execute(ws, _job(), WORK).status == "ok"  # a plain rerun does the job


def test_a_full_disk_during_force_keeps_the_earlier_result(ws, monkeypatch):
    assert execute(ws, _job(), WORK).status == "ok"
    d = result_dir(ws, "lin-1", REF, 0)
    before = (d / "losses.csv").read_bytes()

    def full(path, data):
        raise OSError(errno.EDQUOT, "Disk quota exceeded", str(path))

    monkeypatch.setattr(jobmod, "atomic_write", full)
    out = execute(ws, _job(), RunOptions(mode="work", force=True))
    assert out.status == "interrupted" and "EDQUOT" in out.error
    # a plain rerun would skip the kept result: the advice said it retries the job
    assert out.error.endswith(
        "; the earlier result is kept (a plain rerun keeps it; --force redoes the job)"
    )
    assert instance_state(d) == "ok" and (d / "losses.csv").read_bytes() == before
    _clean(ws)


def test_a_read_only_store_names_the_cause(ws, monkeypatch):
    def read_only(self):
        raise OSError(errno.EROFS, "Read-only file system", str(self.path))

    monkeypatch.setattr(InstanceLock, "acquire", read_only)
    out = execute(ws, _job(), WORK)
    assert out.status == "interrupted" and "Read-only file system (EROFS)" in out.error


def test_a_vanished_directory_is_retried(ws, monkeypatch):
    inner = jobmod._execute_locked

    def vanish(ws_, stage, job, options):
        out = inner(ws_, stage, job, options)
        shutil.rmtree(stage)  # e.g. a cleanup script removed the folder under the run
        return out

    monkeypatch.setattr(jobmod, "_execute_locked", vanish)
    out = execute(ws, _job(), WORK)
    assert out.status == "interrupted" and "(ENOENT)" in out.error
    assert instance_state(result_dir(ws, "lin-1", REF, 0)) == "missing"
    _clean(ws)


def test_a_method_error_is_still_the_methods(ws, monkeypatch):
    def broken(method, enc, ctx):
        raise ValueError("singular matrix")

    monkeypatch.setattr(jobmod, "fit_predict", broken)
    out = execute(ws, _job(), WORK)
    assert out.status == "failed" and "singular matrix" in out.error


@pytest.mark.parametrize("force", [False, True])
def test_a_symlinked_instance_directory_never_wedges(ws, tmp_path, force):
    assert execute(ws, _job(1), WORK).status == "ok"
    d = result_dir(ws, "lin-1", REF, 1)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(d), elsewhere)
    d.symlink_to(elsewhere, target_is_directory=True)
    kept = (elsewhere / "losses.csv").read_bytes()
    options = RunOptions(mode="work", force=force)
    for _ in range(2):  # the second run used to fail on what the first left behind
        out = execute(ws, _job(1), options)
        assert out.status in ("ok", "skipped"), out.error
        _clean(ws, 1)
    assert instance_state(d) == "ok"
    assert (elsewhere / "losses.csv").read_bytes() == kept  # the link's target is untouched
    if force:
        assert not d.is_symlink()


def test_the_run_summary_counts_interrupted_jobs_and_says_each_rerun_once(ws, monkeypatch):
    from delve_bench.api import _summary
    from delve_bench.report.plaintext import format_run_summary

    assert execute(ws, _job(1), WORK).status == "ok"

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(jobmod, "atomic_write", full)
    outcomes = [
        execute(ws, _job(0), WORK),
        execute(ws, _job(1), RunOptions(mode="work", force=True)),
    ]

    class _Plan:
        skipped: dict = {"done": []}

    lines = format_run_summary(_summary(outcomes, _Plan(), 1.0)).splitlines()  # type: ignore[arg-type]
    # the line left the interrupted jobs out: "ran 0, skipped 0 finished, 0 failed, 0 busy"
    assert (
        lines[0]
        == "ran 0, skipped 0 finished, 0 failed, 2 interrupted, 0 busy elsewhere; 0.00 CPU s"
    )
    assert lines[1].startswith(
        "interrupted: lin-1 hwang-g1/noisy/std.64 #0: infrastructure failure"
    )
    assert lines[1].endswith(
        "(ENOSPC): "
        + str(staging_dir(result_dir(ws, "lin-1", REF, 0)))
        + "/predictions.csv; nothing recorded (a plain rerun does the job)"
    )
    assert lines[2].endswith(
        "; the earlier result is kept (a plain rerun keeps it; --force redoes the job)"
    )
    assert not [x for x in lines if x.count("rerun") > 1]
