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
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..data import load_dataset
from ..data.encoding import fit_coding
from ..errors import DelveError
from ..losses import case_losses
from ..methods.base import FitContext
from ..methods.registry import DEFAULT_TIME_SCALE, fraction_name, method_spec, split_fraction
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
    """One fit of ``method`` on one task instance. ``snapshots``: budget fractions (< 1)
    at which an anytime method also records the result ``METHOD@F`` from the same run."""

    method: str
    ref: TaskRef
    instance: int
    snapshots: tuple[float, ...] = ()

    @property
    def label(self) -> str:
        extra = f" (+@{','.join(format(f, 'g') for f in self.snapshots)})" if self.snapshots else ""
        return f"{self.method} {self.ref.full_name} #{self.instance}{extra}"


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
        layout = task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)
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
    return merge_snapshots(ws, todo), other


def merge_snapshots(ws: Workspace, jobs: list[Job]) -> list[Job]:
    """Fold each ``METHOD@F`` job (F < 1) of an anytime method into the job of METHOD on the
    same instance when that one runs too: one run records both (the snapshot is what a
    run with F of the budget would have given). Order is kept otherwise."""
    anytime: dict[str, bool] = {}

    def is_anytime(m: str) -> bool:
        if m not in anytime:
            anytime[m] = bool(getattr(method_spec(ws, m).load_class(), "anytime", False))
        return anytime[m]

    mains = {(j.method, j.ref, j.instance) for j in jobs}
    extra: dict[tuple, list[float]] = {}
    keep = []
    for j in jobs:
        base, f = split_fraction(j.method)
        if f is not None and f < 1 and (base, j.ref, j.instance) in mains and is_anytime(base):
            extra.setdefault((base, j.ref, j.instance), []).append(f)
        else:
            keep.append(j)
    return [
        replace(j, snapshots=tuple(sorted(extra[key])))
        if (key := (j.method, j.ref, j.instance)) in extra
        else j
        for j in keep
    ]


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
    root: str | Workspace,
    job: Job,
    mode: str = "work",
    time_scale: float = DEFAULT_TIME_SCALE,
    force: bool = False,
    blas_threads: int | None = None,
) -> dict:
    """Run one job and record it; returns ``{status, error, cpu}``. Never raises for a
    failing method: its error is written to meta.json instead."""
    ws = Workspace.from_env(root)
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
        "budget": None,
        "package_version": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "host": platform.node(),
        "start": started.isoformat(timespec="seconds"),
    }
    snaps: dict = {}
    try:
        inst, coding, (xtr, ytr, xte, yte) = encode_instance(ws, job)
        meta.update(n_train=len(inst.train), n_test=len(inst.test))
        method = spec.instantiate()
        budget = spec.make_budget(len(inst.train), mode, time_scale)
        meta["budget"] = budget.describe() | {"time_scale": time_scale if mode == "cpu" else None}
        if job.snapshots and not getattr(method, "anytime", False):
            raise ValueError(f"{job.method} makes no snapshots (not an anytime method)")
        for f in job.snapshots:
            sb = replace(spec, fraction=spec.fraction * f).make_budget(
                len(inst.train), mode, time_scale
            )
            sb.start_cpu = budget.start_cpu
            snaps[f] = sb
        ctx = FitContext(
            rng=np.random.default_rng(seed), budget=budget, kinds=coding.kinds, snapshots=snaps
        )
        if method.wants_raw:
            Xtr, Ytr, Xte = xtr, ytr, xte
        else:
            Xtr, Ytr, Xte = coding.inputs(xtr), coding.target(ytr), coding.inputs(xte)
        method.fit(Xtr, Ytr, ctx)
        fit_cpu = time.process_time() - cpu0
        pred = method.predict(Xte)
        tables = _prediction_tables(method, pred, coding, inst, yte)
        cpu = time.process_time() - cpu0
        if budget.cpu_seconds and cpu > HARD_LIMIT_FACTOR * budget.cpu_seconds + 60:
            raise TimeoutError(
                f"CPU time {cpu:.1f} s is over the hard limit "
                f"({HARD_LIMIT_FACTOR} x budget {budget.cpu_seconds:.1f} s + 60 s)"
            )
        # snapshots first: the main result (whose meta.json marks the job done) comes last
        for f, sb in snaps.items():
            _record_snapshot(ws, job, spec, f, sb, method, Xte, coding, inst, yte, meta, mode)
        meta.update(
            _write_result(d, *tables),
            cpu_seconds=round(cpu, 4),
            fit_cpu_seconds=round(fit_cpu, 4),
            info=_jsonable(ctx.info | pred.info),
        )
        if spec.base:
            meta["fraction_of"] = {"method": spec.base, "fraction": spec.fraction}
        status, error = "ok", None
    except Exception as e:  # a failing method is recorded, not raised
        status, error = "failed", f"{type(e).__name__}: {e}"
        meta.update(status="failed", error=error, traceback=traceback.format_exc(limit=8))
    meta["wall_seconds"] = round(time.perf_counter() - wall0, 4)
    meta.setdefault("cpu_seconds", round(time.process_time() - cpu0, 4))
    meta["end"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    atomic_write(d / "meta.json", (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode())
    return {"status": status, "error": error, "cpu": meta["cpu_seconds"], "job": job}


def _prediction_tables(method, pred, coding, inst, yte) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Decode a prediction and compute its per-case losses: (predictions, losses, which)."""
    decode = (lambda v: np.asarray(v, float)) if method.wants_raw else coding.decode
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
            "case": inst.test,
            "target": yte,
            "mean": mean,
            "median": median,
            "var": np.nan if var is None else var,
            "log_density": np.nan if logd is None else logd,
        }
    )
    table = pd.DataFrame(
        {
            "case": inst.test,
            "S": losses["S"],
            "A": losses["A"],
            "L": np.nan if losses["L"] is None else losses["L"],
        }
    )
    return preds, table, losses


def _write_result(d: Path, preds: pd.DataFrame, table: pd.DataFrame, losses: dict) -> dict:
    """Write predictions.csv and losses.csv; returns the meta.json fields that vouch for them."""
    atomic_write(d / "predictions.csv", csv_bytes(preds))
    data = csv_bytes(table)
    atomic_write(d / "losses.csv", data)
    return {
        "status": "ok",
        "losses_sha256": sha256_bytes(data),
        "losses_available": [k for k, v in losses.items() if v is not None],
    }


def _record_snapshot(ws, job, spec, f, budget, method, Xte, coding, inst, yte, meta, mode):
    """Write the result of ``METHOD@F`` that ``method`` saved on its way (its own directory,
    lock and meta.json). A snapshot that fails, or whose directory another run holds, is
    left undone: the next run makes it by a run of its own."""
    name = (
        fraction_name(job.method, f)
        if not spec.base
        else fraction_name(spec.base, spec.fraction * f)
    )
    d = result_dir(ws, name, job.ref, job.instance)
    lock = InstanceLock(d)
    if not lock.acquire():
        return
    try:
        cpu0 = time.process_time()
        pred = method.snapshot(f, Xte)
        tables = _prediction_tables(method, pred, coding, inst, yte)
        info = dict(method.snapshot_info(f))
        fit_cpu = float(info.pop("fit_cpu_seconds"))
        base = spec.base or spec.name
        smeta = meta | {
            "method": name,
            "budget": budget.describe()
            | {"time_scale": meta["budget"].get("time_scale") if meta["budget"] else None},
            "fraction_of": {"method": base, "fraction": spec.fraction * f},
            "snapshot_of": job.method,
            "fit_cpu_seconds": round(fit_cpu, 4),
            "cpu_seconds": round(fit_cpu + time.process_time() - cpu0, 4),
            "info": _jsonable(info | pred.info),
            "end": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        smeta.update(_write_result(d, *tables))
        atomic_write(d / "meta.json", (json.dumps(smeta, indent=2, sort_keys=True) + "\n").encode())
    except Exception:  # the main result stands; the snapshot is redone by its own run
        for n in ("meta.json", "losses.csv", "predictions.csv"):
            (d / n).unlink(missing_ok=True)
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

            run_on_dask(dask, ws, jobs, args, done)
        elif n_jobs <= 1:
            for job in jobs:
                bar.set_postfix_str(job.label, refresh=True)
                done(job, run_isolated(ws, job, *args))
        else:
            with ThreadPoolExecutor(n_jobs) as pool:  # threads only wait on worker processes
                futures = {pool.submit(run_isolated, ws, j, *args): j for j in jobs}
                for f in as_completed(futures):
                    done(futures[f], f.result())
    finally:
        shutdown_workers()
        bar.close()
    return outcomes
