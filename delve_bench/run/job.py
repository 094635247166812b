"""One job (method, task, instance): fit, predict, decode, check, write, record.

A job fits a method on one training set, predicts its test set, computes the per-case
losses in original units and writes them atomically (:mod:`delve_bench.run.store`). A job
that raises, predicts NaN or overruns its budget is recorded as failed with its error; the
other jobs go on. Every job runs with one BLAS (and OpenMP) thread unless
``--blas-threads`` asks for more, whatever the executor: parallelism comes from running
jobs side by side, a CPU budget counts the CPU of every thread, and in ``work`` budget mode
every executor then produces byte-identical files.

This module knows nothing of executors: :func:`execute` is the function they run (in a
worker process, on a Dask worker, or in-process), and each step of it (:func:`fit_predict`,
:func:`decode`, :func:`check`, :func:`write_result`) is a plain function that can be tested
without a subprocess.
"""

from __future__ import annotations

import datetime as _dt
import errno
import json
import os
import platform
import shutil
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import numpy as np

from .. import __version__
from ..blas import blas_libraries, machine_record
from ..defaults import CLASSIFICATION_LOSSES, DEFAULT_BUDGET_MODE, DEFAULT_TIME_SCALE, BudgetMode
from ..errors import DelveError
from ..losses import case_losses, class_losses
from ..methods.base import Budget, FitContext, Method, Prediction
from ..methods.registry import fraction_name, method_spec
from ..rng import derived_seed
from ..tasks.names import TaskRef
from ..tasks.spec import PrototaskSpec, prototask_spec
from ..workspace import WorkspaceDirs
from . import provenance
from .instance import EncodedInstance, load_instance
from .stages import stage_cache
from .store import (
    InstanceLock,
    StorageError,
    Table,
    atomic_write,
    commit,
    csv_bytes,
    instance_state,
    lock_path,
    read_meta,
    recover,
    remove_tree,
    result_dir,
    sha256_bytes,
    staging_dir,
    storage,
)

#: a job is killed when its CPU time passes this multiple of its budget plus a minute of
#: slack (setup and prediction), or when its wall time passes twice that plus 5 s
HARD_LIMIT_FACTOR = 2.0
#: CPU seconds after which a job with no CPU budget (work mode; methods without a CPU
#: rule) is killed, unless --hard-limit or the YAML's budget.hard_limit say otherwise
DEFAULT_HARD_LIMIT = 3600.0

Status = Literal["ok", "failed", "skipped", "locked", "interrupted"]
#: instance -> its expected fingerprint (:func:`fingerprints`)
Fingerprints = Callable[[int], dict]


@dataclass(frozen=True)
class Job:
    """One method on one task instance. ``snapshots``: budget fractions (< 1) at which an
    anytime method also records the result ``METHOD@F`` from the same run."""

    method: str
    ref: TaskRef
    instance: int
    snapshots: tuple[float, ...] = ()

    @property
    def label(self) -> str:
        extra = f" (+@{','.join(format(f, 'g') for f in self.snapshots)})" if self.snapshots else ""
        return f"{self.method} {self.ref.full_name} #{self.instance}{extra}"


@dataclass(frozen=True)
class RunOptions:
    """How the jobs of one ``delve run`` are executed.

    Attributes
    ----------
    mode : {'cpu', 'work'}
        Budget mode: CPU seconds from the method's rule, or deterministic work units.
    time_scale : float
        Multiplies the 1996-machine CPU budgets (cpu mode).
    force : bool
        Redo instances that are already finished.
    hard_limit : float or None
        CPU seconds after which any job is killed (``--hard-limit``); None: the method's
        ``budget.hard_limit`` or the default rule (:func:`hard_limits`).
    memory_limit : int or None
        Bytes of data memory a job's process may use (``--memory-limit``; the CLI's default
        comes from the machine's memory and the number of jobs at a time); None: no limit.
    blas_threads : int
        BLAS and OpenMP threads of each job, in every mode and executor (``--blas-threads``;
        default 1). Recorded in meta.json and, when not 1, in the fingerprint.
    """

    mode: BudgetMode = DEFAULT_BUDGET_MODE
    time_scale: float = DEFAULT_TIME_SCALE
    force: bool = False
    hard_limit: float | None = None
    memory_limit: int | None = None
    blas_threads: int = 1


@dataclass(frozen=True)
class Outcome:
    """What happened to one job."""

    job: Job
    status: Status
    error: str | None = None
    cpu: float | None = None


@dataclass(frozen=True)
class Limits:
    """Hard limits of one job: CPU and wall-clock seconds, memory in bytes (None: none)."""

    cpu: float
    wall: float
    memory: int | None = None

    def describe(self) -> dict:
        """The limits as meta.json records them."""
        return {
            "cpu_hard_limit_s": round(self.cpu, 3),
            "wall_hard_limit_s": round(self.wall, 3),
            "memory_limit_mb": None if self.memory is None else self.memory // 2**20,
        }


def hard_limits(ws: WorkspaceDirs, job: Job, options: RunOptions) -> Limits:
    """The limits after which ``job`` is killed; every job has them.

    CPU seconds: ``options.hard_limit`` (``--hard-limit``), else the YAML's
    ``budget.hard_limit`` (seconds on this machine), else 2 B + 60 s for a job with a CPU
    budget B (cpu mode), else :data:`DEFAULT_HARD_LIMIT` -- or, in work mode, 2 B + 60 s
    for the CPU budget the method would get in cpu mode at the run's time scale, if that
    is more. Wall clock: twice the CPU limit plus 5 s. Memory: ``options.memory_limit``.
    """
    spec = method_spec(ws, job.method)
    cpu = options.hard_limit or spec.budget.get("hard_limit")
    if cpu is None:
        b = spec.make_budget(job.ref.size, "cpu", options.time_scale)
        scaled = HARD_LIMIT_FACTOR * b.cpu_seconds + 60 if b.cpu_seconds else None
        if options.mode == "cpu" and scaled is not None:
            cpu = scaled
        else:
            cpu = max(DEFAULT_HARD_LIMIT, scaled or 0.0)
    cpu = float(cpu)
    return Limits(cpu, 2 * cpu + 5, options.memory_limit)


#: the smallest default memory limit per job
MIN_MEMORY_LIMIT = 2**30


def machine_memory() -> int | None:
    """Bytes of memory this machine (or its cgroup, if smaller) has; None if unknown."""
    sizes = []
    try:
        sizes.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for p in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            v = Path(p).read_text().strip()
        except OSError:
            continue
        if v.isdigit() and int(v) < 2**60:
            sizes.append(int(v))
    return min(sizes) if sizes else None


def default_memory_limit(concurrent: int) -> int | None:
    """90 % of the machine's memory shared by the jobs that run at once, at least 1 GiB."""
    total = machine_memory()
    if total is None:
        return None
    return max(MIN_MEMORY_LIMIT, int(0.9 * total / max(concurrent, 1)))


def fingerprints(
    ws: WorkspaceDirs,
    method: str,
    ref: TaskRef,
    options: RunOptions,
    proto: PrototaskSpec | None = None,
    task: Fingerprints | None = None,
) -> Fingerprints:
    """:func:`expected_fingerprint` of the instances of ``method`` on task ``ref``: the
    method, budget and prototask fields are computed once, the index files per instance
    (what lets the planner check thousands of finished results quickly). ``proto``: the
    task's prototask spec, when the caller has it already. ``task``: the
    :func:`~.provenance.task_fields` of an instance of ``ref``, when the caller keeps
    them (a study's status shares each task's among all its methods)."""
    spec = method_spec(ws, method)
    budget = spec.make_budget(ref.size, options.mode, options.time_scale)
    fixed = provenance.method_fields(spec) | provenance.budget_fields(
        spec, options.mode, options.time_scale, budget.total, options.blas_threads
    )
    if task is None:
        task = instance_fields(ws, ref, proto)
    return lambda i: fixed | task(i)


def instance_fields(
    ws: WorkspaceDirs, ref: TaskRef, proto: PrototaskSpec | None = None
) -> Fingerprints:
    """:func:`~.provenance.task_fields` of the instances of task ``ref``, the prototask's
    shared fields computed once."""
    proto = proto or prototask_spec(ws, ref.dataset, ref.prototask)
    shared = provenance.prototask_fields(ws, proto)
    return lambda i: provenance.task_fields(ws, proto, ref.size, i, shared)


def expected_fingerprint(ws: WorkspaceDirs, job: Job, options: RunOptions) -> dict:
    """The fingerprint a result of ``job`` made with ``options`` gets (run.provenance)."""
    return fingerprints(ws, job.method, job.ref, options)(job.instance)


def discard_partial(ws: WorkspaceDirs, job: Job) -> None:
    """Remove what a job stopped mid-way left: its staging directory and its lock."""
    d = result_dir(ws, job.method, job.ref, job.instance)
    shutil.rmtree(staging_dir(d), ignore_errors=True)
    lock_path(d).unlink(missing_ok=True)


def record_failure(
    ws: WorkspaceDirs, job: Job, kind: str, reason: str, options: RunOptions
) -> None:
    """Record a job that died without writing its own meta.json (killed, crashed).

    Like any failure, it never replaces a finished result (a stale or forced rerun that
    fails leaves the earlier result in place)."""
    d = result_dir(ws, job.method, job.ref, job.instance)
    discard_partial(ws, job)
    if instance_state(d) == "ok":
        return
    try:
        fingerprint = expected_fingerprint(ws, job, options)
        limits = hard_limits(ws, job, options).describe()
    except Exception:  # the specs changed under the run: record what is known
        fingerprint, limits = None, None
    meta = {
        "method": job.method,
        "task": job.ref.full_name,
        "instance": job.instance,
        "status": "failed",
        "error": f"{kind}: {reason}",
        "budget": {"mode": options.mode},
        "blas_threads": options.blas_threads,
        "limits": limits,
        "fingerprint": fingerprint,
        "package_version": __version__,
        "host": platform.node(),
        "end": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    stage = staging_dir(d)
    stage.mkdir(parents=True, exist_ok=True)
    _write_meta(stage, meta)
    commit(stage, d)


# ---------------------------------------------------------------- the steps of one job


@dataclass(frozen=True)
class Decoded:
    """Predictions in original units, one value per test case (arrays of shape (t,)).

    ``var`` and ``log_density`` are None for a method without a predictive density."""

    mean: np.ndarray
    median: np.ndarray
    var: np.ndarray | None = None
    log_density: np.ndarray | None = None


@dataclass(frozen=True)
class Fitted:
    """A fitted method's prediction and the CPU seconds its fit took."""

    prediction: Prediction
    fit_cpu: float
    info: dict = field(default_factory=dict)


def training_set(method: Method, enc: EncodedInstance) -> tuple[np.ndarray, np.ndarray]:
    """The training inputs (n, m) and targets (n,) of ``enc`` as ``method`` receives them:
    encoded, or raw when it sets ``wants_raw`` (class codes are the raw form of a
    categorical target too)."""
    if method.wants_raw:
        y = enc.y_train if enc.coding.categorical else enc.raw_y_train
        return enc.raw_train, y
    return enc.X_train, enc.y_train


def first_training(
    ws: WorkspaceDirs, ref: TaskRef | str, method: Method
) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """``FitContext.first_training`` for ``method`` on task ``ref``: a callable that loads
    instance 0's training set only when the method asks for it."""
    return lambda: training_set(method, load_instance(ws, ref, 0))


def fit_predict(method: Method, enc: EncodedInstance, ctx: FitContext) -> Fitted:
    """Fit ``method`` on the training set of ``enc`` and predict its test set.

    The method sees encoded data (raw data when it sets ``wants_raw``)."""
    cpu0 = time.process_time()
    method.fit(*training_set(method, enc), ctx)
    fit_cpu = time.process_time() - cpu0
    pred = method.predict(enc.raw_test if method.wants_raw else enc.X_test)
    return Fitted(pred, fit_cpu, ctx.info | pred.info)


def decode(pred: Prediction, enc: EncodedInstance, method: Method) -> Decoded:
    """Predictions back in original units; log densities with the coding's Jacobian."""
    if pred.mean is None:
        raise ValueError("the prediction has no mean (a classification method?)")
    if method.wants_raw:
        mean, median = np.asarray(pred.mean, float), np.asarray(pred.point_for_A, float)
    else:
        mean, median = enc.coding.decode(pred.mean), enc.coding.decode(pred.point_for_A)
    logd = var = None
    if pred.density is not None and "L" in method.losses:
        if method.wants_raw:
            logd, var = pred.density.logpdf(enc.y_test), pred.density.variance()
        else:
            logd = pred.density.logpdf(enc.y_test_encoded) + enc.coding.log_jacobian
            var = pred.density.variance() * enc.coding.target_scale**2
    return Decoded(mean, median, var, logd)


def check(dec: Decoded, n_test: int) -> None:
    """Raise FloatingPointError unless every prediction is finite and one per test case."""
    for name, v in (("mean", dec.mean), ("median", dec.median), ("log density", dec.log_density)):
        if v is not None and (np.shape(v) != (n_test,) or not np.all(np.isfinite(v))):
            raise FloatingPointError(f"non-finite or misshapen {name} predictions")


def check_budget(cpu: float, budget: Budget) -> None:
    """Raise TimeoutError when a job's CPU time passed its budget's hard limit (the
    in-process executor has no kernel limit, so the overrun is caught afterwards)."""
    if budget.cpu_seconds and cpu > HARD_LIMIT_FACTOR * budget.cpu_seconds + 60:
        raise TimeoutError(
            f"CPU time {cpu:.1f} s is over the hard limit "
            f"({HARD_LIMIT_FACTOR} x budget {budget.cpu_seconds:.1f} s + 60 s)"
        )


@dataclass(frozen=True)
class Written:
    """What :func:`write_result` wrote: the sha256 of losses.csv and the losses present."""

    losses_sha256: str
    losses_available: list[str]


def result_tables(enc: EncodedInstance, dec: Decoded) -> tuple[Table, Table]:
    """(predictions, losses) tables of one instance, in test-set order: columns by name."""
    losses = case_losses(enc.y_test, dec.mean, dec.median, dec.log_density)
    cases = enc.instance.test
    n = len(cases)

    def column(v) -> np.ndarray:  # an absent prediction or loss: an empty column
        return np.full(n, np.nan) if v is None else np.asarray(v)

    preds = {
        "case": cases,
        "target": np.asarray(enc.y_test),
        "mean": column(dec.mean),
        "median": column(dec.median),
        "var": column(dec.var),
        "log_density": column(dec.log_density),
    }
    table = {"case": cases, "S": column(losses["S"]), "A": column(losses["A"])}
    table["L"] = column(losses["L"])
    return preds, table


#: how far a row of predicted class probabilities may be from summing to 1
PROB_TOLERANCE = 1e-6


def checked_probs(cat, n_test: int, n_classes: int) -> np.ndarray:
    """Class probabilities (t, C), renormalised; FloatingPointError unless they are
    finite, >= 0, of that shape and sum to 1 within 1e-6 per case."""
    P = np.asarray(cat.probs, dtype=float)
    if P.shape != (n_test, n_classes):
        raise FloatingPointError(
            f"class probabilities have shape {P.shape}, expected ({n_test}, {n_classes})"
        )
    if not np.all(np.isfinite(P)) or P.min() < 0:
        raise FloatingPointError("non-finite or negative class probabilities")
    total = P.sum(axis=1)
    if np.max(np.abs(total - 1.0)) > PROB_TOLERANCE:
        raise FloatingPointError("class probabilities do not sum to 1")
    return P / total[:, None]


def class_tables(pred: Prediction, enc: EncodedInstance) -> tuple[Table, Table]:
    """(predictions, losses) tables of a classification instance: ``case, target`` and one
    probability column ``p.<class>`` per class (plus ``<loss>:p.<class>`` columns for a
    loss the method predicts another distribution for); ``case, Z, Q, L``."""
    if pred.categorical is None:
        raise ValueError("the prediction has no class probabilities (a regression method?)")
    classes = enc.coding.classes
    n, C = len(enc.y_test), len(classes)
    t = enc.y_test_encoded
    P = checked_probs(pred.categorical, n, C)
    preds: dict[str, np.ndarray] = {
        "case": enc.instance.test,
        "target": np.asarray([str(c) for c in classes])[t],
    }
    for c, label in enumerate(classes):
        preds[f"p.{label}"] = P[:, c]
    losses = {}
    for loss in CLASSIFICATION_LOSSES:
        cat = pred.categorical_for(loss)
        PL = P
        if cat is not pred.categorical:
            PL = checked_probs(cat, n, C)
            for c, label in enumerate(classes):
                preds[f"{loss}:p.{label}"] = PL[:, c]
        losses[loss] = class_losses(t, PL)[loss]
    table = {"case": enc.instance.test} | losses
    return preds, table


def write_tables(d: Path, preds: Table, table: Table) -> Written:
    """Write predictions.csv and losses.csv into ``d`` (atomically, file by file)."""
    atomic_write(d / "predictions.csv", csv_bytes(preds))
    data = csv_bytes(table)
    atomic_write(d / "losses.csv", data)
    have = [c for c in list(table)[1:] if not np.isnan(np.asarray(table[c], dtype=float)).all()]
    return Written(sha256_bytes(data), have)


def write_result(d: Path, enc: EncodedInstance, dec: Decoded) -> Written:
    """Write a regression instance's predictions.csv and losses.csv into ``d``."""
    return write_tables(d, *result_tables(enc, dec))


def _write_meta(d: Path, meta: dict) -> None:
    atomic_write(d / "meta.json", (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())


#: what OpenBLAS, an OpenMP runtime and MKL read, once, when they are loaded
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextmanager
def thread_limit(n: int) -> Iterator[None]:
    """A context in which BLAS and OpenMP libraries (OpenBLAS, MKL, libgomp, ...) use at
    most ``n`` threads: what every job runs in. Idle BLAS threads spin, so a pool as wide
    as the machine burns a cpu budget several times faster than one thread for the same
    work on the small matrices of these tasks, and makes the work depend on the machine.

    threadpoolctl sets the pools of the libraries already loaded; one that a method loads
    during its fit (a plugin's scikit-learn and its OpenMP runtime, MKL) takes its pool
    from :data:`THREAD_VARIABLES` when it is loaded, so they say ``n`` too for the
    length of the job, and are put back afterwards."""
    from threadpoolctl import threadpool_limits

    before = {k: os.environ.get(k) for k in THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, str(n)))
    try:
        with threadpool_limits(limits=n):
            yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def execute(root: str | WorkspaceDirs, job: Job, options: RunOptions = RunOptions()) -> Outcome:
    """Run one job and record it. Never raises for a failing method: its error is written
    to meta.json instead. This is the function every executor runs. ``root`` may be a
    :class:`~delve_bench.workspace.WorkspaceDirs` (so a result store other than ``root/results`` reaches workers).

    The files are written into a staging directory and committed when complete
    (:func:`~delve_bench.run.store.commit`): an earlier result -- stale, or redone with
    ``force`` -- stays in place until then, and is kept when the new run fails."""
    ws = WorkspaceDirs.from_env(root)
    d = result_dir(ws, job.method, job.ref, job.instance)
    lock = InstanceLock(d)
    try:
        with storage():
            if not lock.acquire():
                return Outcome(job, "locked")
        try:
            recover(d)
            state = instance_state(d)
            if state == "ok" and not options.force:
                meta = read_meta(d) or {}
                if not provenance.stale_fields(
                    meta.get("fingerprint"), expected_fingerprint(ws, job, options)
                ):
                    return Outcome(job, "skipped")
            stage = staging_dir(d)
            with storage():
                stage.mkdir(parents=True)
            with thread_limit(options.blas_threads):
                outcome = _execute_locked(ws, stage, job, options)
            if outcome.status == "ok" or state != "ok":
                commit(stage, d)
            else:  # a failed rerun never replaces a finished result
                remove_tree(stage)
            return outcome
        finally:
            lock.release()
    except OSError as e:
        cause = infrastructure_cause(e)
        if cause is None:
            raise
        try:  # what the job had staged; the earlier result, if any, is untouched
            remove_tree(staging_dir(d))
        except OSError:
            pass
        return interrupted(ws, job, options, infrastructure_message(cause))


#: errors of the machine rather than of a method, wherever they are raised in a job
INFRASTRUCTURE_ERRNO = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.ESTALE})


def infrastructure_cause(e: BaseException) -> str | None:
    """The real cause, in words, when ``e`` is a failure of the machine or the file system
    (a full disk, a read-only or vanished directory, an I/O error) rather than of the
    method; None otherwise."""
    if not isinstance(e, OSError) or not (
        isinstance(e, StorageError) or e.errno in INFRASTRUCTURE_ERRNO
    ):
        return None
    code = errno.errorcode.get(e.errno or 0, "")
    text = e.strerror or str(e)
    where = f": {e.filename}" if e.filename else ""
    return f"{text}{f' ({code})' if code else ''}{where}"


def infrastructure_message(cause: str) -> str:
    """The error of a job stopped by an infrastructure failure (never recorded)."""
    return f"infrastructure failure, not the method's: {cause}"


def interrupted(ws: WorkspaceDirs, job: Job, options: RunOptions, what: str) -> Outcome:
    """The outcome of a job stopped from outside (``what`` happened; nothing of it is
    recorded) and what a plain rerun then does: the job, or -- where an earlier current
    result was kept (a ``--force`` rerun stopped) -- nothing, so it says ``--force``."""
    d = result_dir(ws, job.method, job.ref, job.instance)
    try:
        kept = instance_state(d) == "ok" and not provenance.stale_fields(
            (read_meta(d) or {}).get("fingerprint"), expected_fingerprint(ws, job, options)
        )
    except (OSError, DelveError):  # the store cannot say: the generic advice
        return Outcome(job, "interrupted", f"{what}; rerun to redo it")
    hint = (
        "the earlier result is kept (a plain rerun keeps it; --force redoes the job)"
        if kept
        else "nothing recorded (a plain rerun does the job)"
    )
    return Outcome(job, "interrupted", f"{what}; {hint}")


def _execute_locked(ws: WorkspaceDirs, d: Path, job: Job, options: RunOptions) -> Outcome:
    spec = method_spec(ws, job.method)
    seed = derived_seed(spec.seed_name, job.ref.full_name, job.instance)
    started = _dt.datetime.now(_dt.timezone.utc)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    meta: dict = {
        "method": job.method,
        "plugin": spec.plugin,
        "params": spec.params,
        "task": job.ref.full_name,
        "instance": job.instance,
        "seed": seed,
        "version": spec.version,
        "budget": None,
        "blas_threads": options.blas_threads,
        "limits": None,
        "fingerprint": None,
        "package_version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "host": platform.node(),
        "start": started.isoformat(timespec="seconds"),
    }
    try:
        meta["limits"] = hard_limits(ws, job, options).describe()
        enc = load_instance(ws, job.ref, job.instance)
        meta["fingerprint"] = expected_fingerprint(ws, job, options)
        meta.update(n_train=len(enc.instance.train), n_test=len(enc.instance.test))
        method = spec.instantiate()
        budget = spec.make_budget(len(enc.instance.train), options.mode, options.time_scale)
        meta["budget"] = budget.describe() | {
            "time_scale": options.time_scale if options.mode == "cpu" else None
        }
        snaps = snapshot_budgets(spec, method, job, len(enc.instance.train), options, budget)
        ctx = FitContext(
            rng=np.random.default_rng(seed),
            budget=budget,
            kinds=enc.coding.kinds,
            classes=enc.coding.classes,
            snapshots=snaps,
            first_training=first_training(ws, job.ref, method),
            stages=stage_cache(ws.results),
        )
        fitted = fit_predict(method, enc, ctx)
        # after the fit: the libraries the method loaded (scipy's own OpenBLAS) are listed
        meta["blas"] = blas_libraries()
        meta["cpu"] = machine_record()
        if enc.coding.categorical:
            tables = class_tables(fitted.prediction, enc)
        else:
            dec = decode(fitted.prediction, enc, method)
            check(dec, len(enc.y_test))
            tables = result_tables(enc, dec)
        cpu = time.process_time() - cpu0
        check_budget(cpu, budget)
        # snapshots first: the main result (whose meta.json marks the job done) comes last
        for f, sb in snaps.items():
            record_snapshot(ws, job, spec, f, sb, method, enc, meta, options)
        if spec.base:
            meta["fraction_of"] = {"method": spec.base, "fraction": spec.fraction}
        written = write_tables(d, *tables)
        meta.update(
            status="ok",
            losses_sha256=written.losses_sha256,
            losses_available=written.losses_available,
            cpu_seconds=round(cpu, 4),
            fit_cpu_seconds=round(fitted.fit_cpu, 4),
            info=_jsonable(fitted.info),
        )
        status: Status = "ok"
        error = None
    except Exception as e:  # a failing method is recorded, not raised
        if infrastructure_cause(e) is not None:
            raise  # the machine failed, not the method: execute() records nothing
        status, error = "failed", f"{type(e).__name__}: {e}"
        if isinstance(e, MemoryError) and options.memory_limit:
            error += f" (past the memory limit of {options.memory_limit // 2**20} MB per job)"
        meta.update(status="failed", error=error, traceback=traceback.format_exc(limit=8))
    meta["wall_seconds"] = round(time.perf_counter() - wall0, 4)
    meta.setdefault("cpu_seconds", round(time.process_time() - cpu0, 4))
    meta.setdefault("blas", blas_libraries())
    meta.setdefault("cpu", machine_record())
    meta["end"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    meta["end_time"] = time.time()  # to order results finished within one second
    _write_meta(d, meta)
    return Outcome(job, status, error, meta["cpu_seconds"])


def snapshot_budgets(spec, method: Method, job: Job, n: int, options: RunOptions, budget: Budget):
    """The budgets of the snapshots ``job`` asks for: F of the job's budget, on its clock."""
    if job.snapshots and not getattr(method, "anytime", False):
        raise ValueError(f"{job.method} makes no snapshots (not an anytime method)")
    out = {}
    for f in job.snapshots:
        sb = replace(spec, fraction=spec.fraction * f).make_budget(
            n, options.mode, options.time_scale
        )
        sb.start_cpu = budget.start_cpu
        out[f] = sb
    return out


def record_snapshot(
    ws: WorkspaceDirs,
    job: Job,
    spec,
    f: float,
    budget: Budget,
    method: Method,
    enc,
    meta: dict,
    options: RunOptions = RunOptions(),
) -> None:
    """Write the result ``METHOD@F`` that an anytime ``method`` kept on its way (its own
    directory, lock, fingerprint and meta.json; staged and committed like any result). A
    snapshot that fails, or whose directory another run holds, is left undone: the next
    run makes it by a run of its own."""
    name = fraction_name(spec.base or spec.name, spec.fraction * f)
    d = result_dir(ws, name, job.ref, job.instance)
    lock = InstanceLock(d)
    if not lock.acquire():
        return
    stage = staging_dir(d)
    try:
        recover(d)
        stage.mkdir(parents=True)
        own = Job(name, job.ref, job.instance)
        cpu0 = time.process_time()
        X = enc.raw_test if method.wants_raw else enc.X_test
        pred = method.snapshot(f, X)
        dec = decode(pred, enc, method)
        check(dec, len(enc.y_test))
        info = dict(method.snapshot_info(f))
        fit_cpu = float(info.pop("fit_cpu_seconds"))
        written = write_result(stage, enc, dec)
        smeta = meta | {
            "method": name,
            "fingerprint": expected_fingerprint(ws, own, options),
            "limits": hard_limits(ws, own, options).describe(),
            "budget": budget.describe()
            | {"time_scale": (meta.get("budget") or {}).get("time_scale")},
            "fraction_of": {"method": spec.base or spec.name, "fraction": spec.fraction * f},
            "snapshot_of": job.method,
            "status": "ok",
            "losses_sha256": written.losses_sha256,
            "losses_available": written.losses_available,
            "fit_cpu_seconds": round(fit_cpu, 4),
            "cpu_seconds": round(fit_cpu + time.process_time() - cpu0, 4),
            "info": _jsonable(info | pred.info),
            "end": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "end_time": time.time(),
        }
        _write_meta(stage, smeta)
        commit(stage, d)
    except Exception:  # the main result stands; the snapshot is redone by its own run
        shutil.rmtree(stage, ignore_errors=True)
    finally:
        lock.release()


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return str(x)
    return x
