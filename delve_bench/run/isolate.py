"""Run jobs in worker processes that can be killed at a job's hard limit.

Each executor thread (or Dask worker) owns one long-lived worker process, which runs jobs
one after another and keeps loaded datasets cached, so a job costs milliseconds of
overhead, not a process start. Before each job the worker sets its ``RLIMIT_CPU`` soft
limit to the CPU it has used plus the job's CPU hard limit, so the kernel stops a job that
computes too long (SIGXCPU); the parent kills a worker whose job passes its wall-clock
limit (a hung job). Either way the parent records the instance as failed with the reason,
starts a fresh worker, and the other jobs go on. Workers come from a ``forkserver`` that
has the package imported.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import resource
import signal
import threading

from ..methods.registry import DEFAULT_TIME_SCALE
from ..workspace import Workspace
from .runner import Job, discard_partial, execute, hard_limits, record_failure

_CTX = None
_LOCAL = threading.local()
_ALL: list[_Worker] = []  # every live worker, so executors can stop them when done
_ALL_LOCK = threading.Lock()


def _context():
    global _CTX
    if _CTX is None:
        import multiprocessing.process as mpp

        if mpp.current_process().daemon:  # e.g. a daemonic Dask worker: no children allowed
            return None
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["delve_bench.run.isolate"])
        _CTX = ctx
    return _CTX


def _worker_main(conn) -> None:
    """The worker loop: receive a job, run it under its CPU limit, send the outcome."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if msg is None:
            return
        root, job, mode, time_scale, force, cpu_limit = msg
        if cpu_limit:
            ru = resource.getrusage(resource.RUSAGE_SELF)
            soft = math.ceil(ru.ru_utime + ru.ru_stime + cpu_limit)
            resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
        else:
            resource.setrlimit(
                resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
            )
        conn.send(execute(root, job, mode, time_scale, force, blas_threads=1))


class _Worker:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_main, args=(child,), daemon=True)
        self.proc.start()
        child.close()

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


def _worker(ctx) -> _Worker:
    w = getattr(_LOCAL, "worker", None)
    if w is None or not w.proc.is_alive():
        w = _LOCAL.worker = _Worker(ctx)
        with _ALL_LOCK:
            _ALL.append(w)
    return w


def shutdown_workers() -> None:
    """Stop every worker process (executors call it when they are done)."""
    with _ALL_LOCK:
        workers, _ALL[:] = list(_ALL), []
    for w in workers:
        w.close()


def run_isolated(
    root: str | Workspace,
    job: Job,
    mode: str = "work",
    time_scale: float = DEFAULT_TIME_SCALE,
    force: bool = False,
    hard_limit: float | None = None,
) -> dict:
    """Execute ``job`` in this thread's worker process under its hard limits."""
    ctx = _context()
    if ctx is None:  # cannot have children here: run in-process, overruns are recorded afterwards
        return execute(root, job, mode, time_scale, force, blas_threads=1)
    cpu_limit, wall_limit = hard_limits(Workspace.from_env(root), job, mode, time_scale, hard_limit)
    w = _worker(ctx)
    w.conn.send((root, job, mode, time_scale, force, cpu_limit))
    timed_out = False
    try:
        if w.conn.poll(wall_limit):
            return w.conn.recv()
        timed_out = True
    except (EOFError, OSError):  # the worker died during the job
        pass
    if w.proc.is_alive():
        w.proc.kill()
    w.proc.join()
    _LOCAL.worker = None
    code = w.proc.exitcode
    if timed_out:
        reason = f"killed at the wall-clock hard limit of {wall_limit:.1f} s"
    elif code == -signal.SIGXCPU:
        reason = f"killed at the CPU hard limit of {cpu_limit:.1f} s"
    elif code in (-signal.SIGKILL, -signal.SIGTERM, -signal.SIGINT, -signal.SIGHUP):
        # killed from outside (kill -9, the OOM killer, a shutdown): not the method's fault,
        # so nothing is recorded and the next `delve run` does the job again
        discard_partial(Workspace.from_env(root), job)
        return {
            "status": "interrupted",
            "error": f"its worker was killed (signal {-code})",
            "job": job,
        }
    else:
        reason = f"the job's process died (exit code {code})"
    record_failure(
        Workspace.from_env(root), job, "HardLimit" if "limit" in reason else "Crash", reason, mode
    )
    return {"status": "failed", "error": reason, "job": job, "cpu": None}
