"""Run one job in a child process that can be killed at its hard limit.

The child sets ``RLIMIT_CPU`` to the job's CPU hard limit, so the kernel stops a job that
computes too long (SIGXCPU, then SIGKILL); the parent kills a child that passes its
wall-clock limit (a hung job). Either way the parent records the instance as failed with
the reason, and the other jobs go on. Children come from a ``forkserver`` that has the
package imported, so starting one costs milliseconds, not an interpreter start-up.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import signal

from ..methods.registry import DEFAULT_TIME_SCALE
from ..workspace import Workspace
from .runner import Job, execute, hard_limits, record_failure

_CTX = None


def _context():
    global _CTX
    if _CTX is None:
        import multiprocessing.process as mpp

        if mpp.current_process().daemon:  # e.g. a Dask worker: no children allowed
            return None
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["delve_bench.run.runner", "delve_bench.run.isolate"])
        _CTX = ctx
    return _CTX


def _child(
    conn, root: str, job: Job, mode: str, time_scale: float, force: bool, cpu_limit: float | None
) -> None:
    if cpu_limit:
        soft = max(1, int(cpu_limit + 0.999))
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))
    conn.send(execute(root, job, mode, time_scale, force, blas_threads=1))
    conn.close()


def run_isolated(
    root: str,
    job: Job,
    mode: str = "work",
    time_scale: float = DEFAULT_TIME_SCALE,
    force: bool = False,
    hard_limit: float | None = None,
) -> dict:
    """Execute ``job`` in a child process under its hard limits; returns the outcome."""
    ctx = _context()
    cpu_limit, wall_limit = hard_limits(Workspace.from_env(root), job, mode, time_scale, hard_limit)
    if ctx is None:  # cannot fork here: run in-process, overruns are recorded after the fact
        return execute(root, job, mode, time_scale, force, blas_threads=1)
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child, root, job, mode, time_scale, force, cpu_limit))
    p.start()
    child.close()
    outcome, timed_out = None, False
    try:
        if parent.poll(wall_limit):
            try:
                outcome = parent.recv()
            except EOFError:  # the child died before sending its outcome
                pass
            p.join(10)
        else:
            timed_out = True
    finally:
        if p.is_alive():
            p.kill()
        p.join()
        parent.close()
    if outcome is not None:
        return outcome
    code = p.exitcode
    if timed_out:
        reason = f"killed at the wall-clock hard limit of {wall_limit:.1f} s"
    elif code in (-signal.SIGXCPU, -signal.SIGKILL) and cpu_limit:
        reason = f"killed at the CPU hard limit of {cpu_limit:.1f} s"
    else:
        reason = f"the job's process died (exit code {code})"
    record_failure(
        Workspace.from_env(root), job, "HardLimit" if "limit" in reason else "Crash", reason, mode
    )
    return {"status": "failed", "error": reason, "job": job, "cpu": None}
