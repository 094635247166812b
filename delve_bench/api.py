"""The Python API: everything the ``delve`` command does, as functions for scripts and
notebooks (docs/api.md). The command is a thin layer over these functions.

::

    from delve_bench.api import Workspace

    ws = Workspace("~/study")                     # or root=... on every function
    ws.run(["lin-1", "knn-cv-1"], "kin-8nm/std.64", budget_mode="work")
    ws.run("my-hgb-1", study="thesis")               # a study's tasks and budget settings
    ws.with_study("thesis").report(methods=["my-hgb-1", "gp-mc-1", "lin-1"], plot=True)
    df = ws.losses("lin-1", "kin-8nm/std.64")     # per-case S, A, L: 4096 rows
    ws.results()                                  # expected losses and SEs, every method x task
    c = ws.compare("knn-cv-1", "lin-1", "kin-8nm/std.64")
    c.difference, c.se, c.p                       # the fields of `delve compare --json`

Every function takes ``root=``: a directory, a :class:`Workspace`, or None for
``DELVE_ROOT`` or the current directory. Errors a user can fix raise
:class:`~delve_bench.errors.DelveError` with a one-line message.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union, cast

from .defaults import (
    ALL_LOSSES,
    BUDGET_MODES,
    DEFAULT_BUDGET_MODE,
    DEFAULT_TIME_SCALE,
    REGRESSION_LOSSES,
    BudgetMode,
)
from .errors import DelveError
from .stats.results import ComparisonResult, StatsResult
from .workspace import WorkspaceDirs

if TYPE_CHECKING:
    import pandas as pd

    from .report import ReportFiles
    from .run.estimate import Estimate
    from .run.job import Job, RunOptions
    from .run.status import StatusRow
    from .tasks.names import TaskRef

__all__ = [
    "ComparisonResult",
    "DatasetInfo",
    "MethodInfo",
    "Plan",
    "RunSummary",
    "StatsResult",
    "TaskInfo",
    "Workspace",
    "compare",
    "comparisons",
    "datasets",
    "execute",
    "losses",
    "method",
    "methods",
    "plan",
    "posterior_plot",
    "report",
    "results",
    "run",
    "stats",
    "status",
    "tasks",
]


class Workspace:
    """A workspace (``datasets/``, ``tasks/``, ``methods/``, ``results/``) with the API
    as methods: ``Workspace(path).losses(...)`` is ``losses(..., root=path)``.

    ``root``: a directory (default: ``DELVE_ROOT`` or the current directory); ``~`` is
    the home directory and the path is made absolute."""

    def __init__(self, root: str | os.PathLike[str] | WorkspaceDirs | None = None):
        self.core = WorkspaceDirs.from_env(root)

    @property
    def root(self) -> Path:
        return self.core.root

    @property
    def results_dir(self) -> Path:
        return self.core.results

    def with_study(self, name: str) -> Workspace:
        """This workspace reading study ``name``'s committed results beside its own (the
        ``--with STUDY`` of the analysis commands): its methods and yours, paired."""
        from .study.beside import with_study

        return Workspace(with_study(self.core, name))

    def __repr__(self) -> str:
        ref = self.core.reference
        return f"Workspace({str(self.root)!r}" + (f", with study {ref.name!r})" if ref else ")")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Workspace) and other.core == self.core

    def __hash__(self) -> int:
        return hash(self.core)

    def datasets(self) -> list[DatasetInfo]:
        return datasets(root=self)

    def tasks(self, names: str | Sequence[str] | None = None) -> list[TaskInfo]:
        return tasks(names, root=self)

    def methods(self) -> list[MethodInfo]:
        return methods(root=self)

    def method(self, name: str) -> MethodInfo:
        return method(name, root=self)

    def status(self, method: str | None = None, tasks: str | Sequence[str] = ()) -> list:
        return status(method, tasks, root=self)

    def plan(
        self, methods: str | Sequence[str], tasks: str | Sequence[str] = (), **options
    ) -> Plan:
        return plan(methods, tasks, root=self, **options)

    def run(
        self, methods: str | Sequence[str], tasks: str | Sequence[str] = (), **options
    ) -> RunSummary:
        return run(methods, tasks, root=self, **options)

    def losses(self, method: str, task: str) -> pd.DataFrame:
        return losses(method, task, root=self)

    def stats(self, method: str, task: str, loss: str | None = None) -> StatsResult:
        return stats(method, task, loss, root=self)

    def results(
        self, methods=None, tasks=None, loss: str | Sequence[str] | None = None
    ) -> pd.DataFrame:
        return results(methods, tasks, loss, root=self)

    def compare(self, a: str, b: str, task: str, loss: str | None = None, **kw) -> ComparisonResult:
        return compare(a, b, task, loss, root=self, **kw)

    def comparisons(self, a: str, b: str, tasks=None, loss: str | None = None, **kw) -> list:
        return comparisons(a, b, tasks, loss, root=self, **kw)

    def report(self, names=None, **options) -> ReportFiles:
        return report(names, root=self, **options)


Root = Union[str, "os.PathLike[str]", Workspace, WorkspaceDirs, None]


def workspace(root: Root = None) -> WorkspaceDirs:
    """The workspace at ``root`` (a path, a Workspace; None: ``DELVE_ROOT`` or the cwd)."""
    if isinstance(root, Workspace):
        return root.core
    if isinstance(root, WorkspaceDirs):
        return root
    return WorkspaceDirs.from_env(root)


def _names(x: str | Iterable[str] | None) -> list[str]:
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


def task_refs(ws: WorkspaceDirs, names) -> list[TaskRef]:
    """Task names (shorthands, globs) or TaskRefs to a duplicate-free list of TaskRefs."""
    from .tasks.names import TaskRef, resolve_tasks

    items = [names] if isinstance(names, str | TaskRef) else list(names)
    refs = [n for n in items if isinstance(n, TaskRef)]
    refs += resolve_tasks(ws, [n for n in items if not isinstance(n, TaskRef)])
    return list(dict.fromkeys(refs))


def _one_ref(ws: WorkspaceDirs, task) -> TaskRef:
    refs = task_refs(ws, task)
    if len(refs) != 1:
        raise DelveError(
            f"{task!r} names {len(refs)} tasks; name one, e.g. {refs[0].full_name}"
            if refs
            else f"{task!r} names no task"
        )
    return refs[0]


def _loss(loss: str | None) -> str | None:
    """A loss name (None: each task's first loss, S or Z for classification)."""
    if loss is not None and loss not in ALL_LOSSES:
        raise DelveError(f"loss must be one of {', '.join(ALL_LOSSES)}, not {loss!r}")
    return loss


# ---- what there is --------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class DatasetInfo:
    """A dataset: size, prototasks, and where its data is (or how to get it)."""

    name: str
    cases: int | None
    attributes: int | None
    prototasks: list[str]
    generated: bool  # made by the package (no file)
    data: str | None  # the data file found, or None
    fetch: str | None  # the command that gets a missing file
    error: str | None = None  # why the spec cannot be read (the other fields are empty)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def datasets(*, root: Root = None) -> list[DatasetInfo]:
    """Every dataset of the workspace (built-in ones included). A spec that cannot be read
    is listed with its ``error``; it does not hide the others."""
    from .data import dataset_names, dataset_spec
    from .data.load import find_file
    from .tasks.spec import prototask_names

    ws = workspace(root)
    out = []
    for name in dataset_names(ws):
        try:
            s = dataset_spec(ws, name)
        except DelveError as e:
            out.append(
                DatasetInfo(
                    name=name,
                    cases=None,
                    attributes=None,
                    prototasks=[],
                    generated=False,
                    data=None,
                    fetch=None,
                    error=str(e),
                )
            )
            continue
        f = None if s.generated else find_file(s)
        out.append(
            DatasetInfo(
                name=name,
                cases=s.cases,
                attributes=len(s.attributes),
                prototasks=prototask_names(ws, name),
                generated=s.generated,
                data=str(f) if f else None,
                fetch=None if s.generated or f else f"delve fetch {name}",
            )
        )
    return out


@dataclass(frozen=True, kw_only=True)
class TaskInfo:
    """A task: its design and instances (``error`` when its splits cannot be made)."""

    task: str
    dataset: str
    prototask: str | None
    train_size: int | None
    design: str | None
    instances: int | None
    test_size: int | None
    #: the task's losses: S A L (real target) or Z Q L (classification); None on error
    losses: list[str] | None = None
    #: where its instances come from: ``DELVE's own`` (the exact instances DELVE made),
    #: ``generated (seed N)``, ``published splits``, ``file order`` or ``hand-made``
    instances_from: str | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def tasks(names: str | Sequence[str] | None = None, *, root: Root = None) -> list[TaskInfo]:
    """Tasks of ``names`` (datasets, prototasks, tasks, globs; default: all, where a dataset
    whose specs cannot be read is one entry with its ``error``)."""
    from .data import dataset_names
    from .stats.summary import layout_of

    ws = workspace(root)
    out = []
    if names:
        refs = task_refs(ws, _names(names))
    else:
        refs = []
        for ds in dataset_names(ws):
            try:
                refs += task_refs(ws, ds)
            except DelveError as e:
                out.append(
                    TaskInfo(
                        task=ds,
                        dataset=ds,
                        prototask=None,
                        train_size=None,
                        design=None,
                        instances=None,
                        test_size=None,
                        error=str(e),
                    )
                )
    for r in refs:
        try:
            lay = layout_of(ws, r)
        except DelveError as e:
            lay, error = None, str(e)
        out.append(
            TaskInfo(
                task=r.full_name,
                dataset=r.dataset,
                prototask=r.prototask,
                train_size=r.size,
                design=lay.design if lay else None,
                instances=len(lay.instances) if lay else None,
                test_size=lay.test_size if lay else None,
                losses=list(lay.proto.losses) if lay else None,
                instances_from=lay.proto.instance_origin if lay else None,
                error=None if lay else error,
            )
        )
    return out


@dataclass(frozen=True, kw_only=True)
class MethodInfo:
    """A named method: what it serves, its budget rule, its plugin, what it does."""

    name: str
    summary: str
    losses: list[str] | None  # None: the plugin cannot be imported here (or a broken spec)
    budget: dict  # the YAML's rule: cpu_per_case, cpu_fixed, cpu_cap, work, work_per_case, ...
    budget_rule: str  # the rule in words
    plugin: str
    params: dict
    description: str
    source: str  # the YAML file or entry point
    error: str | None = None  # why the spec cannot be read (the other fields are empty)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _method_info(spec) -> MethodInfo:
    served = spec.losses_served()
    return MethodInfo(
        name=spec.name,
        summary=spec.summary,
        losses=None if served is None else list(served),
        budget=dict(spec.budget),
        budget_rule=spec.budget_rule(),
        plugin=spec.plugin,
        params=dict(spec.params),
        description=spec.description,
        source=spec.source,
    )


def methods(*, root: Root = None) -> list[MethodInfo]:
    """Every named method (workspace YAML, built-in YAML, entry points). A spec that cannot
    be read is listed with its ``error``; it does not hide the others."""
    from .methods.registry import method_names, method_spec

    ws = workspace(root)
    out = []
    for n in method_names(ws):
        try:
            out.append(_method_info(method_spec(ws, n)))
        except DelveError as e:
            out.append(
                MethodInfo(
                    name=n,
                    summary="",
                    losses=None,
                    budget={},
                    budget_rule="",
                    plugin="",
                    params={},
                    description="",
                    source="",
                    error=str(e),
                )
            )
    return out


def method(name: str, *, root: Root = None) -> MethodInfo:
    """One method by name (a one-line error with close names when unknown)."""
    from .methods.registry import method_spec

    return _method_info(method_spec(workspace(root), name))


def status(
    method: str | None = None, tasks: str | Sequence[str] = (), *, root: Root = None
) -> list[StatusRow]:
    """Done / failed / corrupt / missing instances per method and task (default: every
    method with results, on the tasks where it has results)."""
    from .run.status import study_status

    return study_status(workspace(root), _names(method) + _names(tasks))


# ---- running -------------------------------------------------------------------------


def _job(j, **extra) -> dict:
    return {"method": j.method, "task": j.ref.full_name, "instance": j.instance, **extra}


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What ``run`` would do: the jobs to run, the others by why they are skipped, and an
    estimate of CPU and wall time (:mod:`delve_bench.run.estimate`)."""

    methods: list[str]
    tasks: list[str]
    budget_mode: str
    time_scale: float
    n_jobs: int  # jobs at a time (--jobs)
    todo: list[Job]
    skipped: dict[str, list[Job]]  # reason ('done', 'failed', ...) -> jobs not run
    estimate: Estimate
    #: the jobs in ``todo`` that redo a stale result (docs/provenance.md), with the
    #: fingerprint fields (or hard limits, for a failure) that changed
    stale: dict[Job, list[str]] = field(default_factory=dict)
    options: RunOptions | None = None  # how the jobs run (budget, limits, force)

    def __repr__(self) -> str:
        from .report.plaintext import format_plan

        return format_plan(self).rstrip("\n")

    def _repr_html_(self) -> str:
        from .report.notebook import plan_html

        return plan_html(self)

    def to_dict(self) -> dict:
        return {
            "methods": self.methods,
            "tasks": self.tasks,
            "budget_mode": self.budget_mode,
            "time_scale": self.time_scale,
            "n_jobs": self.n_jobs,
            "todo": [_job(j) for j in self.todo],
            "skipped": {k: [_job(j) for j in v] for k, v in self.skipped.items()},
            "stale": [_job(j, fields=f) for j, f in self.stale.items()],
            "estimate": dataclasses.asdict(self.estimate),
        }


def plan(
    methods: str | Sequence[str],
    tasks: str | Sequence[str] = (),
    *,
    root: Root = None,
    study: str | None = None,
    instances: Iterable[int] | None = None,
    budget_mode: str | None = None,
    time_scale: float | None = None,
    jobs: int = 1,
    force: bool = False,
    retry_failed: bool = False,
    hard_limit: float | None = None,
    memory_limit: int | None = None,
    blas_threads: int = 1,
) -> Plan:
    """The jobs ``run`` would run and skip, with the time estimate; runs nothing.

    ``study``: run on exactly that study's tasks (``tasks``: only these of them) and
    instances, with its budget settings (``delve run METHOD --study STUDY``); then
    ``budget_mode`` and ``time_scale`` must be left unset. Default budget: cpu mode.

    A finished result made under other settings (its fingerprint differs,
    docs/provenance.md) is stale and planned again. Unknown methods, tasks or instances,
    missing data and bad index files raise DelveError here. ``blas_threads``: BLAS and
    OpenMP threads of each job (``--blas-threads``; parallelism comes from ``jobs``)."""
    from .run import RunOptions, plan_jobs
    from .run.estimate import estimate

    ws = workspace(root)
    ms = _names(methods)
    if not ms:
        raise DelveError("name at least one method, e.g. `delve run lin-1 kin-8nm/std.256`")
    if study is not None:
        from .study.beside import study_settings

        if budget_mode is not None or time_scale is not None:
            raise DelveError(f"study {study} sets the budget mode and time scale; leave them out")
        s = study_settings(ws, study, ms, _names(tasks))
        refs, budget_mode, time_scale = s.refs, s.budget_mode, s.time_scale
        hard_limit = s.hard_limit if hard_limit is None else hard_limit
    else:
        refs = task_refs(ws, tasks)
    if not refs:
        raise DelveError("name at least one task, e.g. `delve run lin-1 kin-8nm/std.256`")
    budget_mode = budget_mode or DEFAULT_BUDGET_MODE
    ts = DEFAULT_TIME_SCALE if time_scale is None else float(time_scale)
    if budget_mode not in BUDGET_MODES:
        raise DelveError(f"budget mode must be {' or '.join(BUDGET_MODES)}, not {budget_mode!r}")
    if isinstance(blas_threads, bool) or not isinstance(blas_threads, int) or blas_threads < 1:
        raise DelveError(f"blas_threads must be a whole number >= 1, not {blas_threads!r}")
    options = RunOptions(
        mode=budget_mode,
        time_scale=ts,
        force=force,
        hard_limit=hard_limit,
        memory_limit=memory_limit,
        blas_threads=blas_threads,
    )
    pl = plan_jobs(
        ws, ms, refs, set(instances) if instances is not None else None, options, retry_failed
    )
    todo, skipped = pl.todo, {"done": pl.done, "failed": pl.failed}
    est = estimate(ws, todo, {r: r.size for r in refs}, budget_mode, ts, jobs)
    return Plan(
        methods=ms,
        tasks=[r.full_name for r in refs],
        budget_mode=budget_mode,
        time_scale=ts,
        n_jobs=jobs,
        todo=todo,
        skipped=skipped,
        estimate=est,
        stale=pl.stale,
        options=options,
    )


@dataclass(frozen=True, kw_only=True)
class RunSummary:
    """What a run did. ``ok``: no job of this run failed or was interrupted (instances that
    failed earlier are skipped and listed, as ``delve run`` does, but are not a failure)."""

    ran: int
    skipped: int  # finished before
    failed: list[dict] = field(default_factory=list)  # {method, task, instance, error}
    failed_earlier: list[dict] = field(default_factory=list)  # skipped; retry_failed reruns
    interrupted: list[dict] = field(default_factory=list)  # killed from outside; rerun redoes
    busy: int = 0  # locked by another `delve run`
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    plan: Plan | None = None

    @property
    def ok(self) -> bool:
        return not (self.failed or self.interrupted)

    def __repr__(self) -> str:
        from .report.plaintext import format_run_summary

        return "RunSummary: " + format_run_summary(self).rstrip("\n")

    def _repr_html_(self) -> str:
        from .report.notebook import run_summary_html

        return run_summary_html(self)

    def to_dict(self) -> dict:
        d = {k: v for k, v in dataclasses.asdict(self).items() if k != "plan"}
        d["ok"] = self.ok
        d["estimate"] = dataclasses.asdict(self.plan.estimate) if self.plan else None
        return d


def execute(
    p: Plan,
    *,
    root: Root = None,
    progress: bool = False,
    hard_limit: float | None = None,
    dask: str | None = None,
    force: bool = False,
) -> RunSummary:
    """Run a :func:`plan`'s jobs (``progress``: a progress bar on stderr).

    Ctrl-C raises :class:`~delve_bench.run.RunInterrupted` after the workers stopped; its
    ``summary`` is the :class:`RunSummary` of the jobs that finished."""
    import time

    from .run import RunInterrupted, RunOptions, run_jobs

    ws = workspace(root)
    _check_writable(ws, p.todo)
    t0 = time.perf_counter()
    options = p.options or RunOptions(
        mode=cast(BudgetMode, p.budget_mode),  # checked by plan
        time_scale=p.time_scale,
    )
    options = dataclasses.replace(
        options,
        force=force or options.force,
        hard_limit=options.hard_limit if hard_limit is None else hard_limit,
    )
    try:
        outcomes = run_jobs(ws, p.todo, options, p.n_jobs, progress=progress, dask=dask)
    except RunInterrupted as e:  # Ctrl-C: the summary of what finished rides along
        e.summary = _summary(e.outcomes, p, time.perf_counter() - t0)
        raise
    return _summary(outcomes, p, time.perf_counter() - t0)


def _check_writable(ws: WorkspaceDirs, jobs) -> None:
    """Every folder the jobs write to takes a file, checked before any job starts."""
    from .run.store import result_dir
    from .workspace import ensure_writable

    dirs = {result_dir(ws, j.method, j.ref, j.instance) for j in jobs}
    for d in sorted({d.parent for d in dirs}) + sorted(d for d in dirs if d.is_dir()):
        ensure_writable(d)


def _summary(outcomes: list, p: Plan, wall: float) -> RunSummary:
    return RunSummary(
        ran=sum(o.status == "ok" for o in outcomes),
        # a job another run finished meanwhile is skipped by its worker: counted here, so
        # ran + skipped + failed + interrupted + busy is every job of the plan
        skipped=len(p.skipped.get("done", [])) + sum(o.status == "skipped" for o in outcomes),
        failed=[_job(o.job, error=o.error) for o in outcomes if o.status == "failed"],
        failed_earlier=[_job(j) for j in p.skipped.get("failed", [])],
        interrupted=[_job(o.job, error=o.error) for o in outcomes if o.status == "interrupted"],
        busy=sum(o.status == "locked" for o in outcomes),
        cpu_seconds=float(sum(o.cpu or 0.0 for o in outcomes)),
        wall_seconds=wall,
        plan=p,
    )


def run(
    methods: str | Sequence[str],
    tasks: str | Sequence[str] = (),
    *,
    root: Root = None,
    study: str | None = None,
    instances: Iterable[int] | None = None,
    budget_mode: str | None = None,
    time_scale: float | None = None,
    jobs: int = 1,
    dask: str | None = None,
    hard_limit: float | None = None,
    force: bool = False,
    retry_failed: bool = False,
    progress: bool = False,
    memory_limit: int | None = None,
    blas_threads: int = 1,
) -> RunSummary:
    """Run ``methods`` on every missing instance of ``tasks`` (``delve run``), or of a
    ``study``'s tasks with its budget settings (see :func:`plan`).

    Failed instances are recorded and reported in the summary (``summary.ok``), not raised.
    Each job runs with ``blas_threads`` BLAS and OpenMP threads (default one).
    """
    p = plan(
        methods,
        tasks,
        root=root,
        study=study,
        instances=instances,
        budget_mode=budget_mode,
        time_scale=time_scale,
        jobs=jobs,
        force=force,
        retry_failed=retry_failed,
        hard_limit=hard_limit,
        memory_limit=memory_limit,
        blas_threads=blas_threads,
    )
    return execute(p, root=root, progress=progress, hard_limit=hard_limit, dask=dask, force=force)


# ---- results -------------------------------------------------------------------------


def losses(method: str, task: str, *, root: Root = None) -> pd.DataFrame:
    """Per-case losses of ``method`` on ``task`` (or several tasks): one row per finished
    instance and test case, columns ``method, task, instance, case, S, A, L`` (L is NaN
    where the method has no predictive density). Cases are DELVE case numbers (0-based
    rows of the dataset), in test-set order."""
    import numpy as np
    import pandas as pd

    from .methods.registry import method_spec
    from .run.store import read_task_results
    from .stats.summary import layout_of

    ws = workspace(root)
    method_spec(ws, method)
    frames = []
    for ref in task_refs(ws, task):
        results, _ = read_task_results(ws, method, ref, layout_of(ws, ref))
        for r in results:
            n = len(r.cases)
            nan = np.full(n, np.nan)
            frames.append(
                pd.DataFrame(
                    {
                        "method": method,
                        "task": ref.full_name,
                        "instance": np.full(n, r.instance),
                        "case": r.cases,
                        **{
                            k: nan if r.losses[k] is None else r.losses[k]
                            for k in REGRESSION_LOSSES
                        },
                    }
                )
            )
    if not frames:
        raise DelveError(
            f"no finished results of {method} on {task}; run `delve run {method} {task}`"
        )
    return pd.concat(frames, ignore_index=True)


def stats(
    method: str, task: str | TaskRef, loss: str | None = None, *, root: Root = None
) -> StatsResult:
    """``delve stats``: estimated expected loss of ``method`` on one task, its SE and
    SD components, raw and standardised."""
    from .methods.registry import method_spec
    from .stats.summary import task_summary

    ws = workspace(root)
    method_spec(ws, method)
    return task_summary(ws, method, _one_ref(ws, task), _loss(loss))


def compare(
    a: str,
    b: str,
    task: str | TaskRef,
    loss: str | None = None,
    *,
    bayes: bool = False,
    root: Root = None,
) -> ComparisonResult:
    """``delve compare``: the paired comparison A - B on one task (t-test, hierarchical
    design; Lindman's quasi-F, 2-way design). ``bayes``: also the posterior mass on the
    other side of 0 (eq. 2.16; on a 2-way task its extension, described in ``bayes_note``)."""
    from .methods.registry import method_spec
    from .stats.summary import task_comparison

    ws = workspace(root)
    method_spec(ws, a)
    method_spec(ws, b)
    return task_comparison(ws, a, b, _one_ref(ws, task), _loss(loss), bayes)


def posterior_plot(
    a: str, b: str, task: str, loss: str | None = None, *, root: Root = None
) -> list[Path]:
    """Draw the posterior density of A - B on one task (thesis Fig. 2.3) into
    ``results/plots/posterior-A-vs-B-<task>-<loss>.{png,svg}``; returns the files."""
    from .report.posterior_plot import write_posterior_plot
    from .stats.bayes import posterior
    from .stats.summary import paired_losses

    ws = workspace(root)
    ref = _one_ref(ws, task)
    pl = paired_losses(ws, a, b, ref, _loss(loss))
    post = posterior(pl.difference())
    title = f"{a} - {b} on {ref.full_name}, {pl.design} design ({len(pl.used)} instances)"
    stem = (
        ws.results
        / "plots"
        / f"posterior-{a}-vs-{b}-{ref.dataset}-{ref.prototask}-{ref.name}-{pl.loss}"
    )
    return write_posterior_plot(post, pl.st.scale, title, pl.loss, stem)


def shared_tasks(ws: WorkspaceDirs, a: str, b: str) -> list[TaskRef]:
    """Tasks on which both methods have every instance complete."""
    from .run.status import study_status

    complete = [
        {
            r.task
            for r in study_status(ws, [m])
            if r.done and not (r.failed or r.missing or r.corrupt)
        }
        for m in (a, b)
    ]
    return sorted(task_refs(ws, sorted(complete[0] & complete[1])))


def comparisons(
    a: str,
    b: str,
    tasks: str | Sequence[str] | None = None,
    loss: str | None = None,
    *,
    bayes: bool = False,
    root: Root = None,
    skipped: list[str] | None = None,
) -> list[ComparisonResult]:
    """:func:`compare` on each task (default: every task where both have all instances).

    ``skipped``: a list to receive one line per named task that cannot be compared (e.g.
    one method has no results there), instead of raising, as long as one task can."""
    from .methods.registry import method_spec
    from .stats.summary import task_comparison

    ws = workspace(root)
    method_spec(ws, a)
    method_spec(ws, b)
    refs = task_refs(ws, tasks) if tasks else shared_tasks(ws, a, b)
    if not refs:
        hint = (
            "name the tasks to see what is missing"
            if ws.reference
            else "name the tasks to see what is missing, or add --with STUDY to read a "
            "study's committed results (`delve study status NAME` lists them)"
        )
        raise DelveError(f"{a} and {b} have no task with complete results in common; {hint}")
    if skipped is None or len(refs) == 1:
        return [task_comparison(ws, a, b, r, _loss(loss), bayes) for r in refs]
    out, errors = [], []
    for r in refs:
        try:
            out.append(task_comparison(ws, a, b, r, _loss(loss), bayes))
        except DelveError as e:
            errors.append(e)
    if not out:
        raise errors[0]
    skipped += [str(e) for e in errors]
    return out


RESULT_COLUMNS = [
    "method",
    "task",
    "loss",
    "design",
    "train_size",
    "status",
    "instances",
    "task_instances",
    "mean",
    "se",
    "standardized_mean",
    "standardized_se",
]


def results(
    methods: str | Sequence[str] | None = None,
    tasks: str | Sequence[str] | None = None,
    loss: str | Sequence[str] | None = None,
    *,
    root: Root = None,
) -> pd.DataFrame:
    """Estimated expected losses with SEs, one row per method, task and loss.

    Defaults: every method with results, every task where any of them has results, each
    task's first loss (S, or Z on classification tasks); a task lacking a loss asked for
    has no row for it.
    Columns (``RESULT_COLUMNS``): raw ``mean``/``se`` and their standardised values;
    ``status`` says why a row has no numbers (``not run``, ``too few`` instances,
    ``no loss``) or whether some instances are absent (``partial``); a partial row uses
    the instances it has, as ``delve report`` does."""
    import pandas as pd

    from .report.collect import method_cell, result_tasks, select_methods
    from .stats.summary import default_loss, layout_of, task_standardizer

    ws = workspace(root)
    ms = select_methods(ws, _names(methods) or None)
    refs = task_refs(ws, tasks) if tasks else result_tasks(ws, ms)
    rows = []
    for ref in refs:
        layout = layout_of(ws, ref)
        wanted = [_loss(x) for x in _names(loss)] or [default_loss(layout)]
        for lo in [x for x in wanted if x in layout.proto.losses]:
            st = task_standardizer(ws, layout, lo)
            for m in ms:
                c = method_cell(ws, m, ref, layout, lo, st)
                s = c.summary or {}
                rows.append(
                    [
                        m,
                        ref.full_name,
                        lo,
                        layout.design,
                        ref.size,
                        c.status,
                        len(c.used),
                        c.task_instances,
                        s.get("mean"),
                        s.get("se"),
                        c.mean,
                        c.se,
                    ]
                )
    df = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    for col in ("mean", "se", "standardized_mean", "standardized_se"):
        df[col] = df[col].astype(float)
    return df


def report(
    names: str | Sequence[str] | None = None,
    *,
    methods: str | Sequence[str] | None = None,
    losses: str | Sequence[str] | None = None,
    out: str | Path | None = None,
    plot: bool = False,
    correction: str = "holm",
    posthoc: str = "nemenyi",
    unit: str = "prototask",
    root: Root = None,
) -> ReportFiles:
    """``delve report``: tables (md, csv, tex), DELVE diagrams (``plot``) and index.html
    for the prototasks or tasks ``names`` (default: every task with results), returned
    with absolute paths (in a notebook: links and the plots inline); ``losses``
    None: S, and Z on classification tasks. ``correction`` (holm, bh), ``posthoc``
    (nemenyi, holm) and ``unit`` (prototask, task) set the rankings' tests."""
    from .report import write_report

    ws = workspace(root)
    return write_report(
        ws,
        _names(names),
        _names(methods) or None,
        tuple(x for x in _names(losses) if _loss(x)) or None,
        Path(out) if out is not None else None,
        plot,
        correction=correction,
        posthoc=posthoc,
        unit=unit,
    ).absolute()
