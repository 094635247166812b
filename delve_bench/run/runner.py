"""Plan the jobs (method, task, instance) of a study and run them on an executor.

The executors (:mod:`.isolate`, :mod:`.dask_backend`) receive the function that runs one
job (:func:`delve_bench.run.job.execute`) as an argument and never import this module.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..data import verify_dataset
from ..errors import DelveError
from ..methods.registry import checked_method, method_spec, split_fraction
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs
from . import isolate
from .job import (
    Fingerprints,
    Job,
    Limits,
    Outcome,
    RunOptions,
    discard_partial,
    execute,
    expected_fingerprint,
    fingerprints,
    hard_limits,
)
from .provenance import stale_fields
from .store import InstanceLock, instance_state, read_meta, result_dir, task_dir


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_jobs`: the workers are stopped, what the running jobs left
    half-way is removed; ``outcomes`` holds the jobs that finished before."""

    def __init__(self, outcomes: list[Outcome]):
        super().__init__()
        self.outcomes = outcomes
        #: the api.RunSummary of the finished jobs, set by :func:`delve_bench.api.execute_plan`
        self.summary: Any = None
        #: set by :func:`delve_bench.study.run.run_study`: the method that was running and
        #: the committed files its finished instances were packed into
        self.packed: tuple[str, list[Path]] | None = None


@dataclass
class JobPlan:
    """What a run will do: the jobs to run, and the others by why they are not run (the
    runner's part of :class:`delve_bench.api.Plan`, which adds the estimate and settings).

    ``stale`` maps each job in ``todo`` that reruns a stale result (or a failure recorded
    under other settings) to the fingerprint fields that differ (run.provenance)."""

    todo: list[Job] = field(default_factory=list)
    done: list[Job] = field(default_factory=list)
    failed: list[Job] = field(default_factory=list)
    stale: dict[Job, list[str]] = field(default_factory=dict)


def plan_jobs(
    ws: WorkspaceDirs,
    methods: list[str],
    refs: list[TaskRef],
    instances: set[int] | Callable[[TaskRef], set[int] | None] | None = None,
    options: RunOptions = RunOptions(),
    retry_failed: bool = False,
) -> JobPlan:
    """Plan a run: every (method, task, instance) job whose result is missing, corrupt or
    stale (made under other settings), all of them with ``options.force``, and failed ones
    with ``retry_failed`` or when the settings changed since they failed. ``instances``:
    only these (None: all), or a function of the task giving them (a study that runs some
    instances at some sizes).

    Unknown methods, missing or corrupt data and bad index files fail here, before any job
    runs."""
    plan = JobPlan()
    for m in methods:
        checked_method(ws, m)  # unknown names and broken plugins fail before anything runs...
    for ds in sorted({r.dataset for r in refs}):
        verify_dataset(ws, ds)  # ...and so do missing or corrupt data
    limits: dict[tuple[str, int], dict] = {}
    for ref in refs:
        proto = prototask_spec(ws, ref.dataset, ref.prototask)
        for m in methods:
            check_method_task(ws, m, proto)  # ...and so does a method that cannot do the task
        layout = task_layout(ws, proto, ref.size)
        idx = [i.index for i in layout.instances]
        want = instances(ref) if callable(instances) else instances
        if want is not None:
            bad = sorted(want - set(idx))
            if bad:
                raise DelveError(
                    f"{ref.full_name} has instances 0-{len(idx) - 1}; no instance {bad[0]}"
                )
            idx = [i for i in idx if i in want]
        for m in methods:
            fingerprint: Fingerprints | None = None  # made when a finished result is met
            tdir = task_dir(ws, m, ref)  # once per task: path joins cost the parent per job
            try:  # one listing per task: an instance without a folder needs no look
                present = set(os.listdir(tdir))
            except OSError:
                present = set()
            for i in idx:
                job = Job(m, ref, i)
                if options.force:
                    plan.todo.append(job)
                    continue
                d = tdir / str(i)
                state = instance_state(d) if str(i) in present else "missing"
                if state in ("missing", "corrupt"):
                    plan.todo.append(job)
                    continue
                if fingerprint is None:
                    fingerprint = fingerprints(ws, m, ref, options, proto)
                fields = outdated_fields(
                    ws, job, options, state, read_meta(d) or {}, limits, fingerprint(i)
                )
                if fields:
                    plan.todo.append(job)
                    plan.stale[job] = fields
                elif state == "ok":
                    plan.done.append(job)
                elif retry_failed:
                    plan.todo.append(job)
                else:
                    plan.failed.append(job)
    plan.todo = merge_snapshots(ws, plan.todo)
    return plan


def outdated_fields(
    ws: WorkspaceDirs,
    job: Job,
    options: RunOptions,
    state: str,
    meta: dict,
    limits_cache: dict | None = None,
    expected: dict | None = None,
) -> list[str]:
    """Why a recorded result of ``job`` (``state`` ``ok`` or ``failed``, its ``meta``) must
    be redone with ``options``: the fingerprint fields that differ from what these settings
    give (run.provenance) and, for a failure, the hard limits that changed since it failed
    (it may pass now). Empty: the result stands. The one rule of ``delve run`` and
    ``delve study run|status``, for results in a store or packed in a study. ``expected``:
    the job's :func:`~.job.expected_fingerprint`, when the caller has it already."""
    if expected is None:
        expected = expected_fingerprint(ws, job, options)
    fields = stale_fields(meta.get("fingerprint"), expected)
    if state == "failed" and not fields:
        cache = {} if limits_cache is None else limits_cache
        key = (job.method, job.ref.size)
        if key not in cache:
            cache[key] = hard_limits(ws, job, options).describe()
        now, then = cache[key], meta.get("limits") or {}
        fields = [k for k in ("cpu_hard_limit_s", "wall_hard_limit_s") if then.get(k) != now[k]]
    return fields


def _clean_abandoned(ws: WorkspaceDirs, jobs: list[Job], outcomes: list[Outcome]) -> None:
    """After Ctrl-C on Dask: remove the staging directories and locks that jobs killed
    mid-way left on this file system (their processes end within moments)."""
    import time

    finished = {o.job for o in outcomes}
    pending = [j for j in jobs if j not in finished]
    deadline = time.monotonic() + 0.8
    while pending:
        left = []
        for job in pending:
            lock = InstanceLock(result_dir(ws, job.method, job.ref, job.instance))
            if not lock.path.exists():
                continue
            if lock.holder_gone():
                discard_partial(ws, job)
            else:
                left.append(job)
        if not left or time.monotonic() > deadline:
            return
        pending = left
        time.sleep(0.1)


def merge_snapshots(ws: WorkspaceDirs, jobs: list[Job]) -> list[Job]:
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


def check_method_task(ws: WorkspaceDirs, method: str, proto) -> None:
    """A one-line error when ``method`` cannot serve the prototask: a regression method on
    a classification task or the reverse, or too many classes for a two-class method."""
    from ..methods.base import Method
    from ..methods.registry import method_spec
    from ..methods.sklearn import is_sklearn_classifier

    cls = method_spec(ws, method).load_class()
    ours = isinstance(cls, type) and issubclass(cls, Method)
    classifier = cls.is_classifier() if ours else is_sklearn_classifier(cls)  # type: ignore[attr-defined]
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


def run_jobs(
    ws: WorkspaceDirs,
    jobs: list[Job],
    options: RunOptions = RunOptions(),
    n_jobs: int = 1,
    progress: bool = True,
    dask: str | None = None,
) -> list[Outcome]:
    """Execute ``jobs``, each in a killable worker process: ``n_jobs`` at a time on this
    machine, or on a Dask cluster (``dask`` = scheduler address or ``local[:N]``).

    Raises :class:`RunInterrupted` (a KeyboardInterrupt) on Ctrl-C, after stopping every
    worker and removing what the running jobs left half-way."""
    bar = None
    if progress:  # tqdm imported only for a bar: a quiet run's parent is lighter without it
        from tqdm import tqdm

        bar = tqdm(total=len(jobs), file=sys.stderr, unit="job", dynamic_ncols=True)
    outcomes: list[Outcome] = []
    cache: dict[tuple[str, int], Limits] = {}

    def limits(job: Job) -> Limits:
        key = (job.method, job.ref.size)
        if key not in cache:
            cache[key] = hard_limits(ws, job, options)
        return cache[key]

    def started(job: Job) -> None:
        if bar is not None:
            bar.set_postfix_str(job.label, refresh=False)

    def done(outcome: Outcome) -> None:
        outcomes.append(outcome)
        if bar is not None:
            bar.update()

    root = ws if ws.results_dir is not None else str(ws.root)  # a WorkspaceDirs pickles
    try:
        if dask:
            from . import dask_backend

            dask_backend.run_on_dask(dask, execute, root, jobs, options, limits, done)
        else:
            isolate.run_pool(execute, root, jobs, options, limits, n_jobs, done, started)
    except KeyboardInterrupt:
        if dask:
            _clean_abandoned(ws, jobs, outcomes)
        raise RunInterrupted(outcomes) from None
    finally:
        if bar is not None:
            bar.close()
    return outcomes
