"""Run jobs in worker processes that can be killed at a job's hard limits.

The executors here receive the function they run (``run_one(root, job, options) ->
Outcome``, normally :func:`delve_bench.run.job.execute`) as an argument, as benchopt's
parallel backends do, so they never import the runner.

Each worker is a long-lived process that runs jobs one after another and keeps loaded
datasets cached, so a job costs no process start. Before each job the worker sets its
``RLIMIT_CPU`` soft limit to the CPU it has used plus the job's CPU hard limit, so the
kernel stops a job that computes too long (SIGXCPU); the parent kills a worker whose job
passes its wall-clock limit (a hung job). Either way the instance is recorded as failed
with the reason, a fresh worker takes over, and the other jobs go on. Workers come from a
``forkserver`` that has the package imported, ignore SIGINT (Ctrl-C is the parent's), and
end when the process that started them does (a lifeline pipe), so no worker outlives
the run that started it.

:func:`run_pool` is the local executor: one thread multiplexes every worker's pipe, so
the parent's work per job is a send, a wake-up and a receive. :func:`run_isolated` runs
one job in the calling thread's own worker (what a Dask task does).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import resource
import selectors
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from typing import Any, cast

from ..blas import CORETYPE_VARIABLE, pin_openblas
from ..workspace import WorkspaceDirs
from .job import (
    Job,
    Limits,
    Outcome,
    RunOptions,
    discard_partial,
    infrastructure_cause,
    infrastructure_message,
    interrupted,
    record_failure,
)

#: the function an executor runs for one job: ``(root, job, options) -> Outcome``; root is
#: the workspace directory or a WorkspaceDirs (one with its result store elsewhere)
RunOne = Callable[[Any, Job, RunOptions], Outcome]

_CTX = None
_LOCAL = threading.local()
_ALL: list[_Worker] = []  # every live thread-local worker, so shutdown_workers can stop them
_ALL_LOCK = threading.Lock()
PR_SET_PDEATHSIG = 1


def _context():
    global _CTX
    if _CTX is None:
        import multiprocessing.process as mpp

        if mpp.current_process().daemon:  # e.g. a daemonic Dask worker: no children allowed
            return None
        ctx = mp.get_context("forkserver")
        # what every job needs, imported once in the forkserver rather than in each worker
        ctx.set_forkserver_preload(["delve_bench.run.isolate", "pandas", "scipy.special"])
        _start_forkserver()
        _CTX = ctx
    return _CTX


def _start_forkserver() -> None:
    """Start the forkserver ignoring SIGINT, with pyarrow's memory pool set to the system
    allocator and OpenBLAS's kernels pinned.

    SIGINT: the forkserver imports its preload (a second or more on a busy machine) before
    it ignores SIGINT itself, and a Ctrl-C in that window would kill it with a traceback
    on the terminal; an ignored signal stays ignored through exec. The parent blocks
    SIGINT meanwhile, so a Ctrl-C during the spawn is delivered to it (a
    KeyboardInterrupt) as soon as its handler is back.

    pyarrow: pandas imports pyarrow where it is installed, and pyarrow's default pool
    (mimalloc) reserves about 1 GB of address space at its first use. RLIMIT_DATA counts
    reserved address space, so a worker would be left with a fraction of its
    ``--memory-limit`` (knn-cv-1 at n = 1024 failed at --jobs 16 on a 24 GB machine).
    pyarrow reads the setting when it is imported, so it is given to the forkserver, which
    imports pandas for every worker; the caller's own environment is left as it was.

    OpenBLAS: the ``delve`` command pins its kernels before anything is imported
    (:func:`~delve_bench.blas.pin_openblas`); a program that runs jobs through the Python
    API, or a Dask worker started by ``dask worker``, has not, so the forkserver, whose
    workers load numpy afresh, gets the same setting (a value already set wins)."""
    from multiprocessing import forkserver

    added = {"ARROW_DEFAULT_MEMORY_POOL": "system"}
    added = {k: v for k, v in added.items() if k not in os.environ}
    os.environ.update(added)
    pinned = pin_openblas()
    if pinned is not None:
        added[CORETYPE_VARIABLE] = pinned
    try:
        if threading.current_thread() is not threading.main_thread():
            forkserver.ensure_running()  # signal handlers can only be set in the main thread
            return
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            forkserver.ensure_running()
        finally:
            signal.signal(signal.SIGINT, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    finally:
        for key in added:
            os.environ.pop(key, None)


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent (the forkserver) exits."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: workers end at their next message
        pass


def _set_limits(lim: Limits) -> None:
    """The kernel's limits for the next job: CPU (this process' use so far plus the job's
    limit: SIGXCPU past it) and data memory (allocations past it fail: MemoryError)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(ru.ru_utime + ru.ru_stime + lim.cpu)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
    mem = resource.RLIM_INFINITY if lim.memory is None else lim.memory
    resource.setrlimit(resource.RLIMIT_DATA, (mem, resource.RLIM_INFINITY))


def _watch(lifeline) -> None:
    """End this worker as soon as the process that started it is gone (its end of the
    lifeline closes when it exits, however it exits), even in the middle of a job."""
    try:
        lifeline.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)


def _worker_main(conn, lifeline) -> None:
    """The worker loop: receive a job, run it under its limits, send the outcome."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if msg is None:
            return
        run_one, args, lim = msg
        _set_limits(lim)
        conn.send(run_one(*args))


class _Worker:
    def __init__(self, ctx):
        self.conn, child = ctx.Pipe()
        life, self._lifeline = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_worker_main, args=(child, life), daemon=True)
        self.proc.start()
        child.close()
        life.close()

    def send(
        self, run_one: RunOne, root: str | WorkspaceDirs, job: Job, options: RunOptions, lim: Limits
    ):
        self.conn.send((run_one, (root, job, options), lim))

    def close(self) -> None:
        """Ask an idle worker to exit; kill it if it does not within a second."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(1)
        self.kill()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
        self._lifeline.close()


def _died(
    w: _Worker,
    root: str | WorkspaceDirs,
    job: Job,
    options: RunOptions,
    lim: Limits,
    timed_out: bool,
) -> Outcome:
    """The outcome of a job whose worker died or was killed at its wall-clock limit."""
    w.kill()
    code = w.proc.exitcode
    ws = WorkspaceDirs.from_env(root)
    if timed_out:
        reason = f"killed at the wall-clock hard limit of {lim.wall:.1f} s"
    elif code == -signal.SIGXCPU:
        reason = f"killed at the CPU hard limit of {lim.cpu:.1f} s"
    elif code in (-signal.SIGKILL, -signal.SIGTERM, -signal.SIGINT, -signal.SIGHUP):
        # killed from outside (kill -9, the OOM killer, a shutdown): not the method's fault,
        # so nothing is recorded and the next `delve run` does the job again
        discard_partial(ws, job)
        return interrupted(ws, job, options, f"its worker was killed (signal {-(code or 0)})")
    else:
        reason = f"the job's process died (exit code {code})"
        if lim.memory is not None:
            reason += f"; its memory limit was {lim.memory // 2**20} MB (--memory-limit)"
    try:
        record_failure(ws, job, "HardLimit" if "limit" in reason else "Crash", reason, options)
    except OSError as e:  # the store itself failed (e.g. the disk is full): name that cause
        cause = infrastructure_cause(e) or (e.strerror or str(e))
        return interrupted(ws, job, options, f"{reason}; {infrastructure_message(cause)}")
    return Outcome(job, "failed", reason)


def run_pool(
    run_one: RunOne,
    root: str | WorkspaceDirs,
    jobs: Iterable[Job],
    options: RunOptions,
    limits: Callable[[Job], Limits],
    n_workers: int,
    done: Callable[[Outcome], None],
    started: Callable[[Job], None] = lambda job: None,
) -> None:
    """Run ``jobs`` on ``n_workers`` worker processes; ``done(outcome)`` as each finishes.

    On KeyboardInterrupt (or any error) every worker is killed at once, what the running
    jobs left half-way is removed, and the exception propagates."""
    ctx = _context()
    queue = deque(jobs)
    if ctx is None:  # cannot have children here: run in-process, overruns are caught afterwards
        while queue:
            job = queue.popleft()
            started(job)
            done(run_one(root, job, options))
        return
    idle: list[_Worker] = []
    running: dict[Connection, tuple[_Worker, Job, Limits, float]] = {}
    # one selector for the whole run, each pipe registered while its job runs: a wake-up
    # costs the parent the pipes that are ready, not a fresh poll set of every worker
    sel = selectors.DefaultSelector()

    def start(job: Job) -> None:
        w = idle.pop() if idle else _Worker(ctx)
        lim = limits(job)
        w.send(run_one, root, job, options, lim)
        deadline = time.monotonic() + lim.wall if lim.wall else math.inf
        running[w.conn] = (w, job, lim, deadline)
        sel.register(w.conn, selectors.EVENT_READ)
        started(job)

    def finish(conn: Connection) -> tuple[_Worker, Job, Limits, float]:
        sel.unregister(conn)
        return running.pop(conn)

    try:
        while queue and len(running) < n_workers:
            start(queue.popleft())
        while running:
            first = min(r[3] for r in running.values())
            timeout = None if first == math.inf else max(0.0, first - time.monotonic())
            for key, _ in sel.select(timeout):
                conn = cast(Connection, key.fileobj)
                w, job, lim, _ = finish(conn)
                try:
                    outcome = conn.recv()
                    idle.append(w)
                except (EOFError, OSError):  # the worker died during the job
                    outcome = _died(w, root, job, options, lim, timed_out=False)
                done(outcome)
                if queue:
                    start(queue.popleft())
            now = time.monotonic()
            for conn, (w, job, lim, deadline) in list(running.items()):
                if deadline <= now and not conn.poll():
                    finish(conn)
                    done(_died(w, root, job, options, lim, timed_out=True))
                    if queue:
                        start(queue.popleft())
    except BaseException:
        for w, _job, _, _ in running.values():  # stop now; a rerun redoes these jobs
            w.kill()
        ws = WorkspaceDirs.from_env(root)
        for _, job, _, _ in running.values():
            discard_partial(ws, job)
        raise
    finally:
        sel.close()
        for w in idle:
            w.close()


def _worker(ctx) -> _Worker:
    w = getattr(_LOCAL, "worker", None)
    if w is None or not w.proc.is_alive():
        w = _LOCAL.worker = _Worker(ctx)
        with _ALL_LOCK:
            _ALL.append(w)
    return w


def shutdown_workers() -> None:
    """Stop every thread-local worker process (:func:`run_isolated` starts them)."""
    with _ALL_LOCK:
        workers, _ALL[:] = list(_ALL), []
    for w in workers:
        w.close()


def run_isolated(
    run_one: RunOne, root: str | WorkspaceDirs, job: Job, options: RunOptions, lim: Limits
) -> Outcome:
    """Run ``job`` in this thread's worker process under its hard limits (a Dask task)."""
    ctx = _context()
    if ctx is None:  # cannot have children here: run in-process, overruns are caught afterwards
        return run_one(root, job, options)
    w = _worker(ctx)
    w.send(run_one, root, job, options, lim)
    timed_out = False
    try:
        if w.conn.poll(lim.wall):
            return w.conn.recv()
        timed_out = True
    except (EOFError, OSError):  # the worker died during the job
        pass
    _LOCAL.worker = None
    return _died(w, root, job, options, lim, timed_out)
