"""Run jobs in worker processes that can be killed at a job's hard limits.

The executors here receive the function they run (``run_one(root, job, options) ->
Outcome``, normally :func:`delve_bench.run.job.execute`) as an argument, as benchopt's
parallel backends do, so they never import the runner.

Each worker is a long-lived process that runs jobs one after another and keeps loaded
datasets cached, so a job costs no process start. Before each job the worker sets its
limits with the kernel: ``RLIMIT_CPU`` at the CPU it has used plus the job's CPU hard
limit (SIGXCPU past it) and a real-time timer at the job's wall-clock limit (SIGALRM,
left at its default action, which ends the process even inside C code). Either way the
instance is recorded as failed with the reason, a fresh worker takes over, and the other
jobs go on. Workers come from a ``forkserver`` that has the package imported, ignore
SIGINT (Ctrl-C is the parent's), and end when the process that started them does (a
lifeline pipe), so no worker outlives the run that started it.

:func:`run_pool` is the local executor. Its workers take job indices from one shared pipe
(the feed) and report on their own pipes, which the parent reads in batches: the parent
does no work per job, so its share of a run does not grow with the number of jobs or
workers (a parent that answered each finished job woke once per job, about 0.5 ms of
CPU each with the workers' processes in its caches). It wakes when a worker exits and
twice a second, to read the reports and to kill a worker whose job escaped its timer.
:func:`run_isolated` runs one job in the calling thread's own worker (what a Dask task
does), the parent waiting on that worker's answer.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import pickle
import resource
import select
import selectors
import signal
import threading
import time
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from ..blas import CORETYPE_VARIABLE, pin_openblas
from ..errors import DelveError
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
#: bytes of one job index in the pool's feed
_RECORD = 8
#: seconds between the pool parent's wake-ups to read reports (progress) and check limits
TICK = 0.5
#: seconds past a job's wall-clock limit before the parent kills a worker whose own timer
#: did not (the job caught or blocked SIGALRM)
_GRACE = 2.0
#: workers of one run that may exit before running a job before the run gives up
_STILLBORN = 3


def _context():
    global _CTX
    if _CTX is None:
        import multiprocessing.process as mpp

        if mpp.current_process().daemon:  # e.g. a daemonic Dask worker: no children allowed
            return None
        ctx = mp.get_context("forkserver")
        # what jobs need, imported once in the forkserver rather than in each worker: the
        # job's own path (numpy, the package) and scipy.linalg, which most methods use;
        # not pandas (about 0.7 CPU s with pyarrow), which no job needs
        ctx.set_forkserver_preload(
            ["delve_bench.run.isolate", "delve_bench.run.job", "scipy.linalg"]
        )
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
    reserved address space, so a worker whose method imports pandas would be left with a
    fraction of its ``--memory-limit`` (knn-cv-1 at n = 1024 failed at --jobs 16 on a 24 GB
    machine when every job wrote its tables through pandas). pyarrow reads the setting when
    it is imported, so it is given to the forkserver, whose environment every worker
    inherits; the caller's own environment is left as it was.

    PYTHONSAFEPATH: the forkserver is started as ``python -c``, which puts the current
    directory first on its module path, and Python 3.11's forkserver does not take the
    parent's path over; in a checkout of delve-bench at another version than the one
    installed (a workspace is one) the workers would import the checkout's package.

    OpenBLAS: the ``delve`` command pins its kernels before anything is imported
    (:func:`~delve_bench.blas.pin_openblas`); a program that runs jobs through the Python
    API, or a Dask worker started by ``dask worker``, has not, so the forkserver, whose
    workers load numpy afresh, gets the same setting (a value already set wins)."""
    from multiprocessing import forkserver

    added = {"ARROW_DEFAULT_MEMORY_POOL": "system", "PYTHONSAFEPATH": "1"}
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
    limit: SIGXCPU past it), data memory (allocations past it fail: MemoryError) and wall
    clock (SIGALRM at its default action ends the process when the limit passes, even in
    the middle of C code that holds the GIL); the caller stops the timer after the job."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(ru.ru_utime + ru.ru_stime + lim.cpu)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
    mem = resource.RLIM_INFINITY if lim.memory is None else lim.memory
    resource.setrlimit(resource.RLIMIT_DATA, (mem, resource.RLIM_INFINITY))
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    if lim.wall and math.isfinite(lim.wall):
        signal.setitimer(signal.ITIMER_REAL, lim.wall)


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
        outcome = run_one(*args)
        signal.setitimer(signal.ITIMER_REAL, 0)
        conn.send(outcome)


class _Child:
    """A worker process, the pipe the parent talks to it on (two-way, or the worker's
    reports only) and the lifeline that ends it when the parent goes: ``target`` is
    called with ``args``, the worker's end of the pipe and the lifeline."""

    def __init__(self, ctx, target: Callable, args: tuple, duplex: bool):
        self.conn, child = ctx.Pipe(duplex=duplex)
        life, self._lifeline = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=target, args=(*args, child, life), daemon=True)
        self.proc.start()
        child.close()
        life.close()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()
        self._lifeline.close()


class _Worker(_Child):
    """A worker that answers one job at a time (:func:`run_isolated`)."""

    def __init__(self, ctx):
        super().__init__(ctx, _worker_main, (), duplex=True)

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


def _died(
    w: _Child,
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
    if timed_out or code == -signal.SIGALRM:  # the parent's kill, or the worker's own timer
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


def _pull_main(payload: bytes, feed: Connection, report: Connection, lifeline) -> None:
    """A pool worker: take the next job index from the shared feed, run the job under its
    limits, report; exit when the feed is empty and closed.

    Each job sends two messages the parent reads when it next wakes (it does not wake for
    them): ``(i, None, t)`` as job ``i`` starts at monotonic time ``t``, and ``(i, outcome,
    None)`` when it ends, so a worker that dies is known to have died in its last started
    job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    threading.Thread(target=_watch, args=(lifeline,), daemon=True).start()
    run_one, root, jobs, options, lims = pickle.loads(payload)
    fd = feed.fileno()
    while True:
        # the feed holds 8-byte records written whole; a pipe hands each concurrent reader
        # whole records, so every index goes to exactly one worker
        b = os.read(fd, _RECORD)
        if not b:
            return
        i = int.from_bytes(b, "little")
        try:
            report.send((i, None, time.monotonic()))
            _set_limits(lims[i])
            outcome = run_one(root, jobs[i], options)
            signal.setitimer(signal.ITIMER_REAL, 0)
            report.send((i, outcome, None))
        except (BrokenPipeError, ConnectionResetError):  # the parent is gone: end quietly
            return


class _Puller(_Child):
    """A pool worker: it takes its jobs from the feed and reports on its pipe."""

    def __init__(self, ctx, payload: bytes, feed: Connection):
        super().__init__(ctx, _pull_main, (payload, feed), duplex=False)
        self.running: tuple[int, float] | None = None  # (job index, start time) last reported
        self.ran = False  # reported the start of a job


class _Feed:
    """The job indices, written into one pipe that every pool worker reads from.

    Records are written at most :data:`PIPE_BUF` bytes at a time (such a write is atomic:
    all of it or none), so the pipe never holds part of a record; what does not fit now is
    written when the parent next wakes."""

    def __init__(self, ctx, n: int):
        self.reader, writer = ctx.Pipe(duplex=False)
        self._writer: Connection | None = writer
        os.set_blocking(writer.fileno(), False)
        self._data = np.arange(n, dtype="<i8").tobytes()  # _RECORD bytes each, little-endian
        self._at = 0
        self.fill()

    def fill(self) -> None:
        """Write what fits; close the writing end when all is written (the workers' EOF)."""
        w = self._writer
        if w is None:
            return
        while self._at < len(self._data):
            try:
                self._at += os.write(w.fileno(), self._data[self._at : self._at + select.PIPE_BUF])
            except BlockingIOError:
                return
        w.close()
        self._writer = None

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self.reader.close()


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
    """Run ``jobs`` on ``n_workers`` worker processes; ``done(outcome)`` as each finishes
    (reported in batches, at most :data:`TICK` seconds late).

    The workers take the jobs from a shared feed in order, so the parent does no work per
    job: it wakes when a worker exits, and every :data:`TICK` seconds to read the reports,
    write more of the feed and enforce the wall-clock limits that a job escaped (the
    worker's own timer kills it on time unless the job took SIGALRM for itself). A worker
    that dies is replaced while jobs remain.

    On KeyboardInterrupt (or any error) every worker is killed at once, what the running
    jobs left half-way is removed, and the exception propagates."""
    ctx = _context()
    todo = list(jobs)
    if ctx is None:  # cannot have children here: run in-process, overruns are caught afterwards
        for job in todo:
            started(job)
            done(run_one(root, job, options))
        return
    if not todo:
        return
    lims = [limits(job) for job in todo]
    payload = pickle.dumps((run_one, root, todo, options, lims), pickle.HIGHEST_PROTOCOL)
    feed = _Feed(ctx, len(todo))
    reported = [False] * len(todo)
    stillborn: list[int | None] = []
    # two selectors, made once: the parent sleeps on the workers' exits only, and reads
    # the report pipes when it is awake anyway
    exits, reports = selectors.DefaultSelector(), selectors.DefaultSelector()
    workers: list[_Puller] = []

    def spawn() -> None:
        # Ctrl-C (or SIGTERM) while a worker starts is held until the worker is counted:
        # one interrupted half-way would be left running, taking jobs from the feed,
        # until the lifeline ended it
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            w = _Puller(ctx, payload, feed.reader)
            exits.register(w.proc.sentinel, selectors.EVENT_READ, w)
            reports.register(w.conn, selectors.EVENT_READ, w)
            workers.append(w)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def take(w: _Puller) -> bool:
        """One report of ``w`` taken in; False at the end of its pipe."""
        try:
            i, outcome, t = w.conn.recv()
        except (EOFError, OSError):
            return False
        if outcome is None:
            w.running, w.ran = (i, t), True
            started(todo[i])
        else:
            w.running = None
            reported[i] = True
            done(outcome)
        return True

    def read() -> None:
        """Take in every report written so far."""
        while ready := reports.select(0):
            for key, _ in ready:
                if not take(key.data):
                    reports.unregister(key.fileobj)

    def ended(w: _Puller, timed_out: bool) -> None:
        """``w`` exited or was killed: record the job it died in, replace it if needed."""
        exits.unregister(w.proc.sentinel)
        if w.conn in reports.get_map():
            reports.unregister(w.conn)
        while w.conn.poll() and take(w):
            pass
        workers.remove(w)
        if w.running is not None and not reported[w.running[0]]:
            i = w.running[0]
            reported[i] = True
            done(_died(w, root, todo[i], options, lims[i], timed_out))
        else:
            w.kill()
        code = w.proc.exitcode
        if code != 0 and not w.ran:
            # a worker that cannot start (a broken install, no memory) would be replaced
            # forever, since it takes no job with it
            stillborn.append(code)
            if len(stillborn) >= _STILLBORN:
                raise DelveError(
                    f"the runner's worker processes exit before running a job (exit codes "
                    f"{', '.join(map(str, stillborn))}); see the messages above"
                )
        if code != 0 and not all(reported):
            spawn()

    try:
        for _ in range(min(n_workers, len(todo))):
            spawn()
        while workers:
            now = time.monotonic()
            for w in [w for w in workers if _late(w, lims, now)]:
                w.proc.kill()
                w.proc.join()
                ended(w, timed_out=True)
            exited = [key.data for key, _ in exits.select(TICK)]
            feed.fill()
            read()
            for w in exited:
                ended(w, timed_out=False)
        # a worker killed between taking an index and reporting its start: nothing of the
        # job was written, so it is left for the next run, like the jobs of a Ctrl-C
        ws = WorkspaceDirs.from_env(root)
        for i in (i for i, r in enumerate(reported) if not r):
            discard_partial(ws, todo[i])
            done(interrupted(ws, todo[i], options, "its worker was killed"))
    except BaseException:
        for w in workers:  # stop now; a rerun redoes these jobs
            w.proc.kill()
        for w in workers:
            w.proc.join()
            while w.conn.poll() and take(w):
                pass
            if w.running is not None and not reported[w.running[0]]:
                discard_partial(WorkspaceDirs.from_env(root), todo[w.running[0]])
            w.kill()
        raise
    finally:
        exits.close()
        reports.close()
        feed.close()


def _late(w: _Puller, lims: list[Limits], now: float) -> bool:
    """Whether ``w``'s job is past its wall-clock limit and the grace its own timer had."""
    if w.running is None:
        return False
    i, start = w.running
    return bool(lims[i].wall) and now > start + lims[i].wall + _GRACE


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
