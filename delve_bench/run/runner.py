"""Jobs (method, task, instance): plan, execute and record.

One job fits a method on one training set, predicts its test set, computes the per-case
losses in original units and writes them atomically (:mod:`delve_bench.run.store`). A job
that raises, predicts NaN or overruns its budget is recorded as failed with its error;
the other jobs go on. In ``work`` budget mode BLAS runs single-threaded, so every
executor produces byte-identical files.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..data import load_dataset
from ..data.encoding import fit_coding
from ..errors import DelveError
from ..losses import case_losses, class_losses
from ..methods.base import FitContext
from ..methods.registry import DEFAULT_TIME_SCALE, method_spec
from ..rng import derived_seed
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import Workspace
from .store import InstanceLock, atomic_write, csv_bytes, instance_state, result_dir, sha256_bytes

#: a job is killed when its CPU time passes this multiple of its budget plus a minute of
#: slack (setup and prediction), or when its wall time passes twice that plus 5 s
HARD_LIMIT_FACTOR = 2.0


@dataclass(frozen=True)
class Job:
    method: str
    ref: TaskRef
    instance: int

    @property
    def label(self) -> str:
        return f"{self.method} {self.ref.full_name} #{self.instance}"


def plan_jobs(
    ws: Workspace,
    methods: list[str],
    refs: list[TaskRef],
    instances: set[int] | None = None,
    force: bool = False,
    retry_failed: bool = False,
) -> tuple[list[Job], dict[str, list[Job]]]:
    """Jobs to run, and the others grouped by why they are not run (done, failed)."""
    todo: list[Job] = []
    other: dict[str, list[Job]] = {"done": [], "failed": []}
    for m in methods:
        method_spec(ws, m)  # unknown names fail before anything runs...
    for ds in sorted({r.dataset for r in refs}):
        load_dataset(ws, ds)  # ...and so do missing, corrupt or malformed data
    for ref in refs:
        proto = prototask_spec(ws, ref.dataset, ref.prototask)
        for m in methods:
            check_method_task(ws, m, proto)  # ...and so does a method that cannot do the task
        layout = task_layout(ws, proto, ref.size)
        idx = [i.index for i in layout.instances]
        if instances is not None:
            bad = sorted(instances - set(idx))
            if bad:
                raise DelveError(
                    f"{ref.full_name} has instances 0-{len(idx) - 1}; no instance {bad[0]}"
                )
            idx = [i for i in idx if i in instances]
        for m in methods:
            for i in idx:
                job = Job(m, ref, i)
                state = "missing" if force else instance_state(result_dir(ws, m, ref, i))
                if state == "ok":
                    other["done"].append(job)
                elif state == "failed" and not retry_failed:
                    other["failed"].append(job)
                else:
                    todo.append(job)
    return todo, other


def check_method_task(ws: Workspace, method: str, proto) -> None:
    """A one-line error when ``method`` cannot serve the prototask: a regression method on
    a classification task or the reverse, or too many classes for a two-class method."""
    from ..methods.base import Method
    from ..methods.sklearn import is_sklearn_classifier

    cls = method_spec(ws, method).load_class()
    ours = isinstance(cls, type) and issubclass(cls, Method)
    classifier = cls.is_classifier() if ours else is_sklearn_classifier(cls)
    if classifier != proto.categorical:
        kind = "classification" if classifier else "regression"
        task_kind = "classification" if proto.categorical else "regression"
        raise DelveError(
            f"{method} is a {kind} method; {proto.full_name} is a {task_kind} prototask "
            f"(losses {', '.join(proto.losses)})"
        )
    most = getattr(cls, "max_classes", None)
    if classifier and most is not None and len(proto.classes) > most:
        raise DelveError(
            f"{method} is a {most}-class method; {proto.full_name} has {len(proto.classes)} classes"
        )


def hard_limits(
    ws: Workspace, job: Job, mode: str, time_scale: float, override: float | None = None
) -> tuple[float | None, float | None]:
    """(CPU seconds, wall seconds) after which the job is killed; None means no limit.

    ``override`` (``--hard-limit``) or the YAML's ``budget.hard_limit`` (seconds on this
    machine) win; otherwise a cpu-mode budget B gives 2 B + 60 s.
    """
    spec = method_spec(ws, job.method)
    cpu = override or spec.budget.get("hard_limit")
    if cpu is None and mode == "cpu":
        b = spec.make_budget(job.ref.size, mode, time_scale)
        if b.cpu_seconds:
            cpu = HARD_LIMIT_FACTOR * b.cpu_seconds + 60
    return (None, None) if cpu is None else (float(cpu), 2 * float(cpu) + 5)


def discard_partial(ws: Workspace, job: Job) -> None:
    """Remove what a job killed mid-way may have left (files without meta.json, its lock)."""
    d = result_dir(ws, job.method, job.ref, job.instance)
    for name in ("losses.csv", "predictions.csv", ".lock"):
        (d / name).unlink(missing_ok=True)


def record_failure(ws: Workspace, job: Job, kind: str, reason: str, mode: str) -> None:
    """Record a job that died without writing its own meta.json (killed, crashed)."""
    d = result_dir(ws, job.method, job.ref, job.instance)
    discard_partial(ws, job)
    meta = {
        "method": job.method,
        "task": job.ref.full_name,
        "instance": job.instance,
        "status": "failed",
        "error": f"{kind}: {reason}",
        "budget": {"mode": mode},
        "package_version": __version__,
        "host": platform.node(),
        "end": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    atomic_write(d / "meta.json", (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())


def encode_instance(ws: Workspace, job: Job):
    proto = prototask_spec(ws, job.ref.dataset, job.ref.prototask)
    layout = task_layout(ws, proto, job.ref.size)
    inst = layout.instances[job.instance]
    ds = load_dataset(ws, proto.dataset)
    attrs = [ds.spec.attributes[j] for j in proto.inputs]
    target = ds.spec.attributes[proto.targets[0]]
    xtr, ytr = ds.values[np.ix_(inst.train, proto.inputs)], ds.values[inst.train, proto.targets[0]]
    xte, yte = ds.values[np.ix_(inst.test, proto.inputs)], ds.values[inst.test, proto.targets[0]]
    coding = fit_coding(xtr, ytr, attrs, target)
    return inst, coding, (xtr, ytr, xte, yte)


def _blas_limit(n: int | None):
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(n) if n else threadpool_limits(None)


def execute(
    root: str,
    job: Job,
    mode: str = "work",
    time_scale: float = DEFAULT_TIME_SCALE,
    force: bool = False,
    blas_threads: int | None = None,
) -> dict:
    """Run one job and record it; returns ``{status, error, cpu}``. Never raises for a
    failing method: its error is written to meta.json instead."""
    ws = Workspace(Path(root))
    d = result_dir(ws, job.method, job.ref, job.instance)
    lock = InstanceLock(d)
    if not lock.acquire():
        return {"status": "locked", "job": job}
    try:
        if not force and instance_state(d) == "ok":
            return {"status": "skipped", "job": job}
        for name in ("meta.json", "losses.csv", "predictions.csv"):
            (d / name).unlink(missing_ok=True)
        with _blas_limit(1 if mode == "work" else blas_threads):
            return _execute_locked(ws, d, job, mode, time_scale)
    finally:
        lock.release()


def _execute_locked(ws: Workspace, d: Path, job: Job, mode: str, time_scale: float) -> dict:
    spec = method_spec(ws, job.method)
    seed = derived_seed(job.method, job.ref.full_name, job.instance)
    started = _dt.datetime.now(_dt.timezone.utc)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    meta: dict = {
        "method": job.method,
        "plugin": spec.plugin,
        "params": spec.params,
        "task": job.ref.full_name,
        "instance": job.instance,
        "seed": seed,
        "budget": None,
        "package_version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "host": platform.node(),
        "start": started.isoformat(timespec="seconds"),
    }
    try:
        inst, coding, (xtr, ytr, xte, yte) = encode_instance(ws, job)
        meta.update(n_train=len(inst.train), n_test=len(inst.test))
        method = spec.instantiate()
        budget = spec.make_budget(len(inst.train), mode, time_scale)
        meta["budget"] = budget.describe() | {"time_scale": time_scale if mode == "cpu" else None}
        ctx = FitContext(
            rng=np.random.default_rng(seed),
            budget=budget,
            kinds=coding.kinds,
            classes=coding.classes,
        )
        if method.wants_raw:
            Xtr, Ytr, Xte = xtr, ytr, xte
        else:
            Xtr, Ytr, Xte = coding.inputs(xtr), coding.target(ytr), coding.inputs(xte)
        if coding.categorical:
            Ytr = coding.target(ytr)  # class codes, raw or not
        method.fit(Xtr, Ytr, ctx)
        fit_cpu = time.process_time() - cpu0
        pred = method.predict(Xte)
        score = _score_classes if coding.categorical else _score_regression
        preds, table, losses = score(method, pred, coding, inst.test, yte)
        cpu = time.process_time() - cpu0
        if budget.cpu_seconds and cpu > HARD_LIMIT_FACTOR * budget.cpu_seconds + 60:
            raise TimeoutError(
                f"CPU time {cpu:.1f} s is over the hard limit "
                f"({HARD_LIMIT_FACTOR} x budget {budget.cpu_seconds:.1f} s + 60 s)"
            )
        atomic_write(d / "predictions.csv", csv_bytes(preds))
        data = csv_bytes(table)
        atomic_write(d / "losses.csv", data)
        meta.update(
            status="ok",
            losses_sha256=sha256_bytes(data),
            losses_available=[k for k, v in losses.items() if v is not None],
            cpu_seconds=round(cpu, 4),
            fit_cpu_seconds=round(fit_cpu, 4),
            info=_jsonable(ctx.info | pred.info),
        )
        status, error = "ok", None
    except Exception as e:  # a failing method is recorded, not raised
        status, error = "failed", f"{type(e).__name__}: {e}"
        meta.update(status="failed", error=error, traceback=traceback.format_exc(limit=8))
    meta["wall_seconds"] = round(time.perf_counter() - wall0, 4)
    meta.setdefault("cpu_seconds", round(time.process_time() - cpu0, 4))
    meta["end"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    atomic_write(d / "meta.json", (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())
    return {"status": status, "error": error, "cpu": meta["cpu_seconds"], "job": job}


def _score_regression(method, pred, coding, cases: np.ndarray, yte: np.ndarray):
    """predictions.csv and losses.csv (case, S, A, L) of a regression prediction."""
    decode = (lambda v: np.asarray(v, float)) if method.wants_raw else coding.decode
    if pred.mean is None:
        raise ValueError("the prediction has no mean (a classifier on a regression task?)")
    mean, median = decode(pred.mean), decode(pred.point_for_A)
    logd = var = None
    if pred.density is not None and "L" in method.losses:
        if method.wants_raw:
            logd, var = pred.density.logpdf(yte), pred.density.variance()
        else:
            logd = pred.density.logpdf(coding.target(yte)) + coding.log_jacobian
            var = pred.density.variance() * coding.target_scale**2
    for name, v in (("mean", mean), ("median", median), ("log density", logd)):
        if v is not None and (np.shape(v) != (len(yte),) or not np.all(np.isfinite(v))):
            raise FloatingPointError(f"non-finite or misshapen {name} predictions")
    losses = case_losses(yte, mean, median, logd)
    preds = pd.DataFrame(
        {
            "case": cases,
            "target": yte,
            "mean": mean,
            "median": median,
            "var": np.nan if var is None else var,
            "log_density": np.nan if logd is None else logd,
        }
    )
    table = pd.DataFrame(
        {
            "case": cases,
            "S": losses["S"],
            "A": losses["A"],
            "L": np.nan if losses["L"] is None else losses["L"],
        }
    )
    return preds, table, losses


#: how far a row of predicted class probabilities may be from summing to 1
PROB_TOLERANCE = 1e-6


def _score_classes(method, pred, coding, cases: np.ndarray, yte: np.ndarray):
    """predictions.csv (case, target, one probability column per class) and losses.csv
    (case, Z, Q, L) of a classification prediction. Probabilities must be finite, >= 0
    and sum to 1 within 1e-6 per case; they are renormalised before scoring."""
    if pred.categorical is None:
        raise ValueError("the prediction has no class probabilities (a regression method?)")
    P = np.asarray(pred.categorical.probs, dtype=float)
    C = len(coding.classes)
    if P.shape != (len(yte), C):
        raise FloatingPointError(
            f"class probabilities have shape {P.shape}, expected ({len(yte)}, {C})"
        )
    if not np.all(np.isfinite(P)) or P.min() < 0:
        raise FloatingPointError("non-finite or negative class probabilities")
    total = P.sum(axis=1)
    if np.max(np.abs(total - 1.0)) > PROB_TOLERANCE:
        raise FloatingPointError("class probabilities do not sum to 1")
    P = P / total[:, None]
    t = coding.target(yte)
    losses = class_losses(t, P)
    preds = pd.DataFrame({"case": cases, "target": [coding.classes[c] for c in t]})
    for c, label in enumerate(coding.classes):
        preds[f"p.{label}"] = P[:, c]
    table = pd.DataFrame({"case": cases, "Z": losses["Z"], "Q": losses["Q"], "L": losses["L"]})
    return preds, table, losses


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


def run_jobs(
    ws: Workspace,
    jobs: list[Job],
    mode: str = "work",
    time_scale: float = DEFAULT_TIME_SCALE,
    n_jobs: int = 1,
    force: bool = False,
    progress: bool = True,
    hard_limit: float | None = None,
    dask: str | None = None,
) -> list[dict]:
    """Execute ``jobs``, each in its own killable child process: ``n_jobs`` at a time on
    this machine, or on a Dask cluster (``dask`` = scheduler address or ``local[:N]``)."""
    from tqdm import tqdm

    from .isolate import run_isolated, shutdown_workers

    bar = tqdm(
        total=len(jobs), disable=not progress, file=sys.stderr, unit="job", dynamic_ncols=True
    )
    outcomes: list[dict] = []
    args = (mode, time_scale, force, hard_limit)

    def done(job: Job, outcome: dict) -> None:
        outcomes.append(outcome)
        bar.set_postfix_str(job.label, refresh=False)
        bar.update()

    try:
        if dask:
            from .dask import run_on_dask

            run_on_dask(dask, str(ws.root), jobs, args, done)
        elif n_jobs <= 1:
            for job in jobs:
                bar.set_postfix_str(job.label, refresh=True)
                done(job, run_isolated(str(ws.root), job, *args))
        else:
            with ThreadPoolExecutor(n_jobs) as pool:  # threads only wait on worker processes
                futures = {pool.submit(run_isolated, str(ws.root), j, *args): j for j in jobs}
                for f in as_completed(futures):
                    done(futures[f], f.result())
    finally:
        shutdown_workers()
        bar.close()
    return outcomes
