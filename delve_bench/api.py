"""The Python API: everything the ``delve`` command does, as functions for scripts and
notebooks (docs/api.md). The command parses its arguments, calls these functions and
prints their results with the shared formatters of :mod:`delve_bench.report`.

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
    ws.study_status("thesis")                     # as `delve study status thesis` prints it

Every function takes ``root=``: a directory, a :class:`Workspace`, or None for
``DELVE_ROOT`` or the current directory. Errors a user can fix raise
:class:`~delve_bench.errors.DelveError` with a one-line message. Module-level names are
never also subpackage names (``run_methods``, not ``run``); the older names still work.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union, cast

from . import _API
from .defaults import (
    ALL_LOSSES,
    ALPHA,
    BUDGET_MODES,
    DEFAULT_BUDGET_MODE,
    DEFAULT_LOSSES,
    DEFAULT_TIME_SCALE,
    BudgetMode,
)
from .errors import DelveError
from .records import DatasetInfo, MethodInfo, TaskInfo
from .stats.results import ComparisonResult, StatsResult
from .workspace import WorkspaceDirs

if TYPE_CHECKING:
    import pandas as pd

    from .analysis.advice import PowerAnalysis
    from .analysis.gate import CheckResult
    from .data.fetch import Fetched
    from .report import ReportFiles
    from .run.estimate import Estimate
    from .run.job import Job, RunOptions
    from .run.status import StatusRow
    from .stats.selftest import SelftestResult
    from .study.beside import Unpacked
    from .study.report import ReportCheck, StudyReport
    from .study.run import StudyRunSummary, StudyStatus
    from .study.spec import MethodPlan
    from .study.verify import Verification
    from .tasks.instances import Generated
    from .tasks.names import TaskRef

#: the result types of the functions below that live in the layers under the API: they
#: are imported on first use (the gate and the power analysis load scipy)
_RESULT_TYPES = {
    "CheckResult": "delve_bench.analysis.gate",
    "Fetched": "delve_bench.data.fetch",
    "Generated": "delve_bench.tasks.instances",
    "PowerAnalysis": "delve_bench.analysis.advice",
    "ReportCheck": "delve_bench.study.report",
    "SelftestResult": "delve_bench.stats.selftest",
    "StudyReport": "delve_bench.study.report",
    "StudyRunSummary": "delve_bench.study.run",
    "StudyStatus": "delve_bench.study.run",
    "Unpacked": "delve_bench.study.beside",
    "Verification": "delve_bench.study.verify",
}


def __getattr__(name: str):
    if name in _RESULT_TYPES:
        import importlib

        return getattr(importlib.import_module(_RESULT_TYPES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_API)  # listed in the package, where reading them imports nothing


class Workspace:
    """A workspace (``datasets/``, ``tasks/``, ``methods/``, ``results/``) with the API
    as methods, named for the commands: ``Workspace(path).losses(...)`` is
    ``loss_table(..., root=path)``, ``.run`` is :func:`run_methods`, ``.stats``
    :func:`task_stats`, ``.report`` :func:`make_report`, ``.datasets`` / ``.tasks`` /
    ``.methods`` the listings, ``.check`` :func:`check_results`, ``.power``
    :func:`comparison_power`, ``.selftest`` :func:`run_selftest`, ``.fetch``
    :func:`fetch_datasets`, and ``.study_run`` ... ``.study_unpack`` the study functions.

    Parameters
    ----------
    root : str, PathLike or WorkspaceDirs, optional
        The directory (default: ``DELVE_ROOT`` or the current directory); ``~`` is the
        home directory and the path is made absolute.

    Attributes
    ----------
    core : WorkspaceDirs
        Where its specs and results are, as the layers below the API take it.
    """

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
        return list_datasets(root=self)

    def tasks(self, names: str | Sequence[str] | None = None) -> list[TaskInfo]:
        return list_tasks(names, root=self)

    def methods(self) -> list[MethodInfo]:
        return list_methods(root=self)

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
        return run_methods(methods, tasks, root=self, **options)

    def losses(self, method: str, task: str) -> pd.DataFrame:
        return loss_table(method, task, root=self)

    def stats(self, method: str, task: str, loss: str | None = None) -> StatsResult:
        return task_stats(method, task, loss, root=self)

    def results(
        self, methods=None, tasks=None, loss: str | Sequence[str] | None = None
    ) -> pd.DataFrame:
        return results(methods, tasks, loss, root=self)

    def compare(self, a: str, b: str, task: str, loss: str | None = None, **kw) -> ComparisonResult:
        return compare(a, b, task, loss, root=self, **kw)

    def comparisons(self, a: str, b: str, tasks=None, loss: str | None = None, **kw) -> list:
        return comparisons(a, b, tasks, loss, root=self, **kw)

    def report(self, names=None, **options) -> ReportFiles:
        return make_report(names, root=self, **options)

    def check(self, baseline=None, names: Sequence[str] = (), **options) -> CheckResult:
        return check_results(baseline, names, root=self, **options)

    def power(self, a: str, b: str, task: str, loss: str = "S", **options) -> PowerAnalysis:
        return comparison_power(a, b, task, loss, root=self, **options)

    def selftest(self, **options) -> SelftestResult:
        return run_selftest(root=self, **options)

    def fetch(self, names: str | Sequence[str], **options) -> list[Fetched]:
        return fetch_datasets(names, root=self, **options)

    def gen(self, prototasks: str | Sequence[str] = (), **options) -> list[Generated]:
        return generate_splits(prototasks, root=self, **options)

    def study_run(self, name: str, **options) -> StudyRunSummary:
        return study_run(name, root=self, **options)

    def study_status(self, name: str) -> StudyStatus:
        return study_status(name, root=self)

    def study_report(self, name: str) -> StudyReport:
        return study_report(name, root=self)

    def study_report_check(self, name: str) -> ReportCheck:
        return study_report_check(name, root=self)

    def study_leaderboard(self, names: str | Sequence[str], **options):
        return study_leaderboard(names, root=self, **options)

    def study_verify(self, name: str, **options) -> Verification:
        return study_verify(name, root=self, **options)

    def study_unpack(self, name: str) -> Unpacked:
        return study_unpack(name, root=self)


Root = Union[str, "os.PathLike[str]", Workspace, WorkspaceDirs, None]


def workspace_dirs(root: Root = None) -> WorkspaceDirs:
    """The directories of the workspace at ``root``, as the layers below the API take them.

    Parameters
    ----------
    root : str, PathLike, Workspace or WorkspaceDirs, optional
        None: ``DELVE_ROOT``, else the current directory.

    Returns
    -------
    WorkspaceDirs
    """
    if isinstance(root, Workspace):
        return root.core
    if isinstance(root, WorkspaceDirs):
        return root
    return WorkspaceDirs.from_env(root)


def _names(x: str | Iterable[str] | None) -> list[str]:
    if x is None:
        return []
    return [x] if isinstance(x, str) else list(x)


def _task_refs(ws: WorkspaceDirs, names) -> list[TaskRef]:
    """Task names (shorthands, globs) or TaskRefs to a duplicate-free list of TaskRefs."""
    from .tasks.names import TaskRef, resolve_tasks

    items = [names] if isinstance(names, str | TaskRef) else list(names)
    refs = [n for n in items if isinstance(n, TaskRef)]
    refs += resolve_tasks(ws, [n for n in items if not isinstance(n, TaskRef)])
    return list(dict.fromkeys(refs))


def _one_ref(ws: WorkspaceDirs, task) -> TaskRef:
    refs = _task_refs(ws, task)
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


def list_datasets(*, root: Root = None) -> list[DatasetInfo]:
    """``delve datasets``: every dataset of the workspace (built-in ones included). A spec
    that cannot be read is listed with its ``error``; it does not hide the others.

    Returns
    -------
    list of DatasetInfo
        Name, cases, attributes, prototasks, whether generated, the data file found or
        the command that fetches it.
    """
    from .data import dataset_names, dataset_spec
    from .data.load import find_file
    from .tasks.spec import prototask_names

    ws = workspace_dirs(root)
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


def list_tasks(names: str | Sequence[str] | None = None, *, root: Root = None) -> list[TaskInfo]:
    """``delve tasks``: the tasks of ``names``, with their design and instances.

    Parameters
    ----------
    names : str or sequence of str, optional
        Datasets, prototasks, tasks or globs; default: all, where a dataset whose specs
        cannot be read is one entry with its ``error``.

    Returns
    -------
    list of TaskInfo
        Per task: design, number of instances, training and test-set sizes, losses and
        where its instances come from.
    """
    from .analysis.task import layout_of
    from .data import dataset_names

    ws = workspace_dirs(root)
    out = []
    if names:
        refs = _task_refs(ws, _names(names))
    else:
        refs = []
        for ds in dataset_names(ws):
            try:
                refs += _task_refs(ws, ds)
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


def list_methods(*, root: Root = None) -> list[MethodInfo]:
    """``delve methods``: every named method (workspace YAML, built-in YAML, entry points).
    A spec that cannot be read is listed with its ``error``; it does not hide the others.

    Returns
    -------
    list of MethodInfo
        Name, losses served, budget rule, plugin, parameters, description.
    """
    from .methods.registry import method_names, method_spec

    ws = workspace_dirs(root)
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
    """``delve methods NAME``: one method (a one-line error with close names when unknown).

    Parameters
    ----------
    name : str
        A method name, or ``METHOD@F`` (F of its budget).

    Returns
    -------
    MethodInfo
    """
    from .methods.registry import method_spec

    return _method_info(method_spec(workspace_dirs(root), name))


def status(
    method: str | None = None, tasks: str | Sequence[str] = (), *, root: Root = None
) -> list[StatusRow]:
    """``delve status``: done / failed / corrupt / missing instances per method and task.

    Parameters
    ----------
    method : str, optional
        One method; default: every method with results. (A task name here counts as one
        of ``tasks``.)
    tasks : str or sequence of str
        Tasks, shorthands or globs; default: the tasks where the method has results.

    Returns
    -------
    list of StatusRow
        Per method and task: the instance numbers by state and the recorded errors.
    """
    from .run.status import result_status

    return result_status(workspace_dirs(root), _names(method) + _names(tasks))


# ---- running -------------------------------------------------------------------------


def _job(j, **extra) -> dict:
    return {"method": j.method, "task": j.ref.full_name, "instance": j.instance, **extra}


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What ``run`` would do: the jobs to run, the others by why they are skipped, and an
    estimate of CPU and wall time (:mod:`delve_bench.run.estimate`).

    Attributes
    ----------
    methods : list of str, length (methods,)
        The methods asked for.
    tasks : list of str, length (tasks,)
        The tasks' full names.
    budget_mode : {'cpu', 'work'}
    time_scale : float
        The factor on the 1996 CPU budgets (cpu mode).
    n_jobs : int
        Jobs at a time (``--jobs``).
    todo : list of Job, length (jobs to run,)
        One job per method, task and instance, in the order they run.
    skipped : dict of str to list of Job
        The jobs not run, by why (``done``, ``failed``, ...).
    estimate : Estimate
        CPU and wall time of ``todo``.
    stale : dict of Job to list of str
        The jobs in ``todo`` that redo a stale result (docs/provenance.md), with the
        fingerprint fields (or hard limits, for a failure) that changed.
    options : RunOptions or None
        How the jobs run (budget, limits, force).
    """

    methods: list[str]
    tasks: list[str]
    budget_mode: str
    time_scale: float
    n_jobs: int
    todo: list[Job]
    skipped: dict[str, list[Job]]
    estimate: Estimate
    stale: dict[Job, list[str]] = field(default_factory=dict)
    options: RunOptions | None = None

    def __repr__(self) -> str:
        from .report.plaintext import format_plan

        return format_plan(self).rstrip("\n")

    def _repr_html_(self) -> str:
        from .report.notebook import plan_html

        return plan_html(self)

    def to_dict(self) -> dict:
        """The ``--json`` record of ``delve run --dry-run`` (docs/json.md)."""
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
    """``delve run --dry-run``: the jobs :func:`run_methods` would run and skip, with the
    time estimate; runs nothing.

    A finished result made under other settings (its fingerprint differs,
    docs/provenance.md) is stale and planned again. Unknown methods, tasks or instances,
    missing data and bad index files raise DelveError here.

    Parameters
    ----------
    methods : str or sequence of str
        Method names (``METHOD@F`` for F of a method's budget).
    tasks : str or sequence of str
        Tasks, prototasks, datasets or globs.
    study : str, optional
        Run on exactly that study's tasks (``tasks``: only these of them) and instances,
        with its budget settings (``delve run METHOD --study STUDY``); then
        ``budget_mode`` and ``time_scale`` must be left unset.
    instances : iterable of int, optional
        Only these instance numbers (with ``study``: these among the study's instances
        at each task's size).
    budget_mode : {"cpu", "work"}, optional
        Default ``cpu``, as ``delve run``.
    time_scale : float, optional
        Multiplies the 1996-machine CPU budgets (default 0.05).
    jobs : int
        Jobs at a time (one BLAS thread each).
    force, retry_failed : bool
        Redo finished instances; rerun those recorded as failed.
    hard_limit : float, optional
        CPU seconds after which a job is killed (default: from its budget).
    memory_limit : int, optional
        Bytes of data memory per job.
    blas_threads : int
        BLAS and OpenMP threads of each job (``--blas-threads``).

    Returns
    -------
    Plan
        ``todo`` jobs, ``skipped`` jobs by reason, ``stale`` reruns and the ``estimate``.
    """
    from .run import RunOptions, plan_jobs
    from .run.estimate import estimate

    ws = workspace_dirs(root)
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
        asked = set(instances) if instances is not None else None

        def wanted(ref: TaskRef) -> set[int] | None:
            """The study's instances at the task's size, and of them those asked for."""
            sel = s.instances_at(ref)
            if sel is None:
                return asked
            return sel if asked is None else sel & asked

        chosen: set[int] | Callable[[TaskRef], set[int] | None] | None = wanted
    else:
        refs = _task_refs(ws, tasks)
        chosen = set(instances) if instances is not None else None
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
    pl = plan_jobs(ws, ms, refs, chosen, options, retry_failed)
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
    """What a run did.

    Attributes
    ----------
    ran : int
        Jobs run.
    skipped : int
        Jobs finished before.
    failed : list of dict, length (failed jobs,)
        ``{method, task, instance, error}`` of each job of this run that failed.
    failed_earlier : list of dict
        Jobs that failed in an earlier run, skipped (``retry_failed`` reruns them).
    interrupted : list of dict
        Jobs killed from outside (a rerun redoes them).
    busy : int
        Jobs locked by another ``delve run``.
    cpu_seconds, wall_seconds : float
        CPU time of the jobs and wall time of the run.
    plan : Plan or None
        The plan it carried out.
    """

    ran: int
    skipped: int
    failed: list[dict] = field(default_factory=list)
    failed_earlier: list[dict] = field(default_factory=list)
    interrupted: list[dict] = field(default_factory=list)
    busy: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    plan: Plan | None = None

    @property
    def ok(self) -> bool:
        """No job of this run failed or was interrupted (instances that failed earlier are
        skipped and listed, as ``delve run`` does, but are not a failure)."""
        return not (self.failed or self.interrupted)

    def __repr__(self) -> str:
        from .report.plaintext import format_run_summary

        return "RunSummary: " + format_run_summary(self).rstrip("\n")

    def _repr_html_(self) -> str:
        from .report.notebook import run_summary_html

        return run_summary_html(self)

    def to_dict(self) -> dict:
        """The ``--json`` record of ``delve run`` (docs/json.md): the fields but ``plan``,
        ``ok``, and the plan's estimate."""
        d = {k: v for k, v in dataclasses.asdict(self).items() if k != "plan"}
        d["ok"] = self.ok
        d["estimate"] = dataclasses.asdict(self.plan.estimate) if self.plan else None
        return d


def execute_plan(
    p: Plan,
    *,
    root: Root = None,
    progress: bool = False,
    hard_limit: float | None = None,
    dask: str | None = None,
    force: bool = False,
) -> RunSummary:
    """Run the jobs of a :func:`plan` made earlier.

    Ctrl-C raises :class:`~delve_bench.run.RunInterrupted` after the workers stopped; its
    ``summary`` is the :class:`RunSummary` of the jobs that finished.

    Parameters
    ----------
    p : Plan
        What to run.
    progress : bool
        A progress bar on stderr.
    hard_limit : float, optional
        Overrides the plan's hard limit (CPU seconds).
    dask : str, optional
        A Dask scheduler address, or ``local[:N]`` to start a LocalCluster.
    force : bool
        Redo finished instances.

    Returns
    -------
    RunSummary
    """
    import time

    from .run import RunInterrupted, RunOptions, run_jobs

    ws = workspace_dirs(root)
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
    from .run.store import task_dir
    from .workspace import ensure_writable

    by_task: dict[tuple, set[int]] = {}
    for j in jobs:
        by_task.setdefault((j.method, j.ref), set()).add(j.instance)
    if not by_task:
        return
    tdirs = {key: task_dir(ws, *key) for key in by_task}
    existing = [tdirs[k] / str(i) for k, ii in by_task.items() for i in ii]
    ensure_writable(ws.results)  # one real file: a store that takes none fails here
    for d in sorted(set(tdirs.values())) + sorted(d for d in existing if d.is_dir()):
        ensure_writable(d, probe=False)


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


def run_methods(
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
    """``delve run``: run ``methods`` on every missing instance of ``tasks``, or of a
    ``study``'s tasks with its budget settings; the options are :func:`plan`'s, and
    ``dask``, ``hard_limit`` and ``progress`` are :func:`execute_plan`'s.

    Failed instances are recorded and reported in the summary (``summary.ok``), not
    raised. Each job runs with ``blas_threads`` BLAS and OpenMP threads (default one).

    Returns
    -------
    RunSummary
        Jobs run, skipped, failed (each with its error), interrupted, busy elsewhere; CPU
        and wall seconds; the plan.
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
    return execute_plan(
        p, root=root, progress=progress, hard_limit=hard_limit, dask=dask, force=force
    )


# ---- results -------------------------------------------------------------------------


def loss_table(method: str, task: str, *, root: Root = None) -> pd.DataFrame:
    """Per-case losses of ``method`` on ``task`` (or several tasks).

    Parameters
    ----------
    method : str
        A method name.
    task : str
        A task, or a name that means several (their rows are stacked).

    Returns
    -------
    pandas.DataFrame of shape (instances x test cases, 4 + 3)
        One row per finished instance and test case: ``method, task, instance, case`` and
        the task's losses, ``S, A, L`` (``Z, Q, L`` on a classification task; L is NaN
        where the method has no predictive density). Cases are DELVE case numbers (0-based
        rows of the dataset), in test-set order.
    """
    import numpy as np
    import pandas as pd

    from .analysis.task import layout_of
    from .methods.registry import method_spec
    from .run.store import read_task_results

    ws = workspace_dirs(root)
    method_spec(ws, method)
    frames = []
    for ref in _task_refs(ws, task):
        layout = layout_of(ws, ref)
        results, _ = read_task_results(ws, method, ref, layout)
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
                            for k in layout.proto.losses
                        },
                    }
                )
            )
    if not frames:
        raise DelveError(
            f"no finished results of {method} on {task}; run `delve run {method} {task}`"
        )
    return pd.concat(frames, ignore_index=True)


def task_stats(
    method: str, task: str | TaskRef, loss: str | None = None, *, root: Root = None
) -> StatsResult:
    """``delve stats``: the estimated expected loss of ``method`` on one task, its SE and
    SD components, raw and standardised.

    Parameters
    ----------
    method : str
    task : str or TaskRef
        One task.
    loss : str, optional
        Default: the task's first loss (S, or Z on a classification task).

    Returns
    -------
    StatsResult
        The fields of ``delve stats --json``.
    """
    from .analysis.task import task_summary
    from .methods.registry import method_spec

    ws = workspace_dirs(root)
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
    design; Lindman's quasi-F, 2-way design; the corrected resampled t-test for published
    realisations).

    Parameters
    ----------
    a, b : str
        The methods (A - B).
    task : str or TaskRef
        One task.
    loss : str, optional
        Default: the task's first loss.
    bayes : bool
        Also the posterior mass on the other side of 0 (eq. 2.16; on a 2-way task its
        extension, described in ``bayes_note``).

    Returns
    -------
    ComparisonResult
        The fields of ``delve compare --json``.
    """
    from .analysis.task import task_comparison
    from .methods.registry import method_spec

    ws = workspace_dirs(root)
    method_spec(ws, a)
    method_spec(ws, b)
    return task_comparison(ws, a, b, _one_ref(ws, task), _loss(loss), bayes)


def posterior_plot(
    a: str, b: str, task: str, loss: str | None = None, *, root: Root = None
) -> list[Path]:
    """Draw the posterior density of A - B on one task (thesis Fig. 2.3).

    Returns
    -------
    list of Path
        ``results/plots/posterior-A-vs-B-<task>-<loss>.{png,svg}``.
    """
    from .analysis.task import paired_losses
    from .report.posterior_plot import write_posterior_plot
    from .stats.bayes import posterior

    ws = workspace_dirs(root)
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


def _shared_tasks(ws: WorkspaceDirs, a: str, b: str, layouts: dict | None = None) -> list[TaskRef]:
    """Tasks on which both methods have every instance complete. ``layouts``: filled with
    the tasks' layouts (read once for both methods, and for the comparisons after)."""
    from .run.status import result_status

    layouts = {} if layouts is None else layouts
    complete = [
        {
            r.task
            for r in result_status(ws, [m], layouts)
            if r.done and not (r.failed or r.missing or r.corrupt)
        }
        for m in (a, b)
    ]
    return sorted(_task_refs(ws, sorted(complete[0] & complete[1])))


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
    """:func:`compare` on each task.

    Parameters
    ----------
    a, b : str
        The methods (A - B).
    tasks : str or sequence of str, optional
        Default: every task where both have all instances.
    loss : str, optional
        Default: each task's first loss.
    bayes : bool
        As for :func:`compare`.
    skipped : list of str, optional
        Receives one line per named task that cannot be compared (e.g. one method has no
        results there), instead of raising, as long as one task can.

    Returns
    -------
    list of ComparisonResult
        One per task, in task order.
    """
    from .run.store import one_reading

    # finding the shared tasks reads every instance's state; comparing reads them again
    with one_reading():
        return _comparisons(a, b, tasks, loss, bayes, workspace_dirs(root), skipped)


def _comparisons(a, b, tasks, loss, bayes, ws: WorkspaceDirs, skipped) -> list[ComparisonResult]:
    from .analysis.task import task_comparison
    from .methods.registry import method_spec

    method_spec(ws, a)
    method_spec(ws, b)
    layouts: dict = {}
    refs = _task_refs(ws, tasks) if tasks else _shared_tasks(ws, a, b, layouts)
    if not refs:
        hint = (
            "name the tasks to see what is missing"
            if ws.reference
            else "name the tasks to see what is missing, or add --with STUDY to read a "
            "study's committed results (`delve study status NAME` lists them)"
        )
        raise DelveError(f"{a} and {b} have no task with complete results in common; {hint}")
    if skipped is None or len(refs) == 1:
        return [task_comparison(ws, a, b, r, _loss(loss), bayes, layouts.get(r)) for r in refs]
    out, errors = [], []
    for r in refs:
        try:
            out.append(task_comparison(ws, a, b, r, _loss(loss), bayes, layouts.get(r)))
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

    Parameters
    ----------
    methods : str or sequence of str, optional
        Default: every method with results.
    tasks : str or sequence of str, optional
        Default: every task where any of them has results.
    loss : str or sequence of str, optional
        Default: each task's first loss (S, or Z on classification tasks); a task lacking
        a loss asked for has no row for it.

    Returns
    -------
    pandas.DataFrame of shape (methods x tasks x losses, 12)
        Columns ``RESULT_COLUMNS``: raw ``mean``/``se`` and their standardised values;
        ``status`` says why a row has no numbers (``not run``, ``too few`` instances,
        ``no loss``) or whether some instances are absent (``partial``); a partial row
        uses the instances it has, as ``delve report`` does.
    """
    import pandas as pd

    from .analysis.collect import method_cell, result_tasks, select_methods
    from .analysis.task import default_loss, layout_of, task_standardizer

    ws = workspace_dirs(root)
    ms = select_methods(ws, _names(methods) or None)
    refs = _task_refs(ws, tasks) if tasks else result_tasks(ws, ms)
    rows = []
    for ref in refs:
        layout = layout_of(ws, ref)
        wanted = [_loss(x) for x in _names(loss)] or [default_loss(layout)]
        for lo in [x for x in wanted if x in layout.proto.losses]:
            st = task_standardizer(ws, layout, lo)
            for m in ms:
                c = method_cell(ws, m, ref, layout, lo, st)
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
                        c.summary.mean if c.summary else None,
                        c.summary.se if c.summary else None,
                        c.mean,
                        c.se,
                    ]
                )
    df = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    for col in ("mean", "se", "standardized_mean", "standardized_se"):
        df[col] = df[col].astype(float)
    return df


def make_report(
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
    """``delve report``: tables (md, csv, tex), DELVE diagrams and index.html.

    Parameters
    ----------
    names : str or sequence of str, optional
        Prototasks or tasks; default: every task with results.
    methods : str or sequence of str, optional
        Default: every method with results.
    losses : str or sequence of str, optional
        Default: S, and Z on classification tasks.
    out : str or Path, optional
        Output folder (default: the result store).
    plot : bool
        Also the DELVE diagrams and the critical-difference diagram.
    correction : {"holm", "bh"}
        Multiple-test correction of the rankings' per-task tests.
    posthoc : {"nemenyi", "holm", "wilcoxon"}
        The post-hoc test after Friedman's.
    unit : {"prototask", "task"}
        The independent unit of the rankings.

    Returns
    -------
    ReportFiles
        Tables, plots and index as absolute paths (in a notebook: links, plots inline),
        and the warnings.
    """
    from .report import write_report

    ws = workspace_dirs(root)
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


# ---- the regression gate, power, the self-test, data ---------------------------------


def check_results(
    baseline: str | Path | None = None,
    names: Sequence[str] = (),
    *,
    losses: Sequence[str] = (),
    margin: float = 0.01,
    alpha: float = ALPHA,
    with_study: str | None = None,
    accept_changed: Sequence[str] = (),
    root: Root = None,
) -> CheckResult:
    """``delve check``: the regression gate. Compare the workspace's results with those
    in ``baseline`` (a workspace or its results directory), or with study ``with_study``'s
    committed results, task by task with the design's paired test of current - baseline.

    Parameters
    ----------
    baseline : str or Path, optional
        The baseline workspace or results folder; give it or ``with_study``, not both
        (with ``with_study``, a ``baseline`` that is not a folder is the first of
        ``names``).
    names : sequence of str
        Methods and tasks (shorthands, globs) to check; default: everything in the baseline
        (with ``with_study``: the study's methods that the workspace has results of).
    losses : sequence of str
        Losses to check, each on the tasks that have it; default S and Z.
    margin : float
        Tolerated worsening: a fraction of the baseline's expected loss (S, A, Z, Q), nats
        (L).
    alpha : float
        Level of the Holm-adjusted tests.
    with_study : str, optional
        A study whose committed results are the baseline.
    accept_changed : sequence of str
        Methods whose spec changed on purpose since the baseline: judged on their losses.

    Returns
    -------
    CheckResult
        One row per method, task and loss; ``failed`` says whether the gate fails.
    """
    from .analysis.collect import result_methods
    from .analysis.gate import baseline_tree, check, check_margin
    from .methods.registry import method_names

    ws = workspace_dirs(root)
    margin = check_margin(margin)
    if with_study is not None and baseline is not None and not Path(baseline).is_dir():
        # with a study the study is the baseline: a first name that is no folder is a
        # METHOD or TASK (`delve check --with STUDY METHOD TASK`)
        baseline, names = None, (str(baseline), *names)
    if (baseline is None) == (with_study is None):
        raise DelveError("give a BASELINE_ROOT or --with STUDY (one of them)")
    if with_study:
        from .study.beside import study_baseline

        base = study_baseline(ws, with_study)
    else:
        assert baseline is not None
        base = baseline_tree(ws, baseline)
    known = set(result_methods(base)) | set(result_methods(ws))
    try:
        known |= set(method_names(ws))
    except Exception:  # a broken method YAML must not stop the gate from naming methods
        pass
    methods = [n for n in names if n in known]
    tasks = [n for n in names if n not in known]
    refs = _task_refs(ws, tasks) if tasks else None
    if with_study and not methods:
        methods = [m for m in result_methods(ws) if m in set(result_methods(base))]
        if not methods:
            raise DelveError(
                f"no results here of a method of study {with_study}; run one first, e.g. "
                f"`delve run {result_methods(base)[0]} --study {with_study}`"
            )
    wanted = tuple(x for x in _names(losses) if _loss(x)) or DEFAULT_LOSSES
    return check(ws, base, methods or None, refs, wanted, alpha, margin, tuple(accept_changed))


def comparison_power(
    a: str,
    b: str,
    task: str | TaskRef,
    loss: str = "S",
    *,
    delta: float | str | None = None,
    alpha: float = ALPHA,
    target: float = 0.8,
    root: Root = None,
) -> PowerAnalysis:
    """``delve power``: the power of the comparison A - B on one task to detect a
    difference, and the instances and test cases that would give ``target`` power within
    the prototask's cases.

    Parameters
    ----------
    a, b : str
        The methods compared (A - B).
    task : str or TaskRef
        One task.
    loss : str
        The loss (default S).
    delta : float or str, optional
        The difference to detect: standardised (as ``compare`` gives it), or ``"N%"`` of
        B's expected loss; default: the observed difference.
    alpha, target : float
        The test's level and the power to plan for.

    Returns
    -------
    PowerAnalysis
        The variance components, the power of this design, and the designs for ``target``.
    """
    from .analysis.advice import power_analysis
    from .methods.registry import method_spec

    ws = workspace_dirs(root)
    method_spec(ws, a)
    method_spec(ws, b)
    ref = _one_ref(ws, task)
    text = None if delta is None else str(delta)
    return power_analysis(ws, a, b, ref, _loss(loss) or "S", text, alpha, target)


#: simulated studies per setting of the full self-test (the quick one has its own)
SELFTEST_STUDIES = 5000


def run_selftest(
    *,
    quick: bool = False,
    seed: int = 0,
    studies: int | None = None,
    plots: bool = True,
    out: str | Path | None = None,
    root: Root = None,
) -> SelftestResult:
    """``delve selftest``: simulate losses with no true difference for both designs, the
    type-I error rate of each test, and recompute the golden numbers of the thesis and of
    DELVE's mstats.

    Parameters
    ----------
    quick : bool
        The headline cases only (seconds).
    seed : int
        The simulation's seed.
    studies : int, optional
        Simulated studies per setting; default 5000 (quick: 10000 for the t-test, 2000
        otherwise).
    plots : bool
        Draw the p-value histograms (thesis Figs. 2.5, 2.6) into ``out`` (default
        ``results/plots``).

    Returns
    -------
    SelftestResult
        The rates per setting and test, the golden numbers, ``passed`` and the ``plots``.
    """
    from .stats.selftest import selftest

    res = selftest(quick=quick, seed=seed, studies=studies or (None if quick else SELFTEST_STUDIES))
    if not plots:
        return res
    from .report.nullplots import write_null_histograms

    target = Path(out) if out is not None else workspace_dirs(root).results / "plots"
    written = write_null_histograms(res, target)
    return dataclasses.replace(res, plots=tuple(str(p) for p in written))


def fetch_datasets(
    names: str | Sequence[str],
    *,
    on_fetched: Callable[[Fetched], None] | None = None,
    root: Root = None,
) -> list[Fetched]:
    """``delve fetch``: download the datasets ``names`` into the user cache and verify
    their sha256; a verified copy already present is left alone. Every name is checked
    before anything is downloaded.

    Parameters
    ----------
    names : str or sequence of str
        Dataset names.
    on_fetched : callable, optional
        Called with each dataset's :class:`~delve_bench.data.fetch.Fetched` as soon as it is
        done (a download can take a while).

    Returns
    -------
    list of Fetched
        Per dataset: ``generated``, ``verified``, ``unverifiable`` (no sha256 in its spec)
        or ``fetched``, and the file.
    """
    from .data import dataset_spec
    from .data.fetch import fetch_missing

    ws = workspace_dirs(root)
    specs = [dataset_spec(ws, n) for n in _names(names)]  # every name known first
    out = []
    for spec in specs:
        f = fetch_missing(spec)
        if on_fetched is not None:
            on_fetched(f)
        out.append(f)
    return out


def generate_splits(
    prototasks: str | Sequence[str] = (),
    *,
    check: bool = False,
    on_done: Callable[[Generated], None] | None = None,
    root: Root = None,
) -> list[Generated]:
    """``delve gen``: make Random-order and the index files of every task of
    ``prototasks`` (``dataset`` or ``dataset/prototask``; default: all), or with ``check``
    only verify them.

    Parameters
    ----------
    prototasks : str or sequence of str
        Datasets (each of its prototasks) or ``dataset/prototask`` names.
    check : bool
        Write nothing; an existing file that differs from what its seed gives is an error.
    on_done : callable, optional
        Called with each prototask's result as soon as it is done.

    Returns
    -------
    list of Generated
        Per prototask: its task layouts and the files written and removed.
    """
    from .data import dataset_names
    from .tasks.instances import generate
    from .tasks.spec import prototask_names, prototask_spec

    ws = workspace_dirs(root)
    targets = []
    for name in _names(prototasks) or dataset_names(ws):
        ds, _, pt = name.strip("/").partition("/")
        for p in [pt] if pt else prototask_names(ws, ds):
            targets.append(prototask_spec(ws, ds, p))
    out = []
    for proto in targets:
        done = generate(ws, proto, check_only=check)
        if on_done is not None:
            on_done(done)
        out.append(done)
    return out


# ---- studies --------------------------------------------------------------------------


def study_run(
    name: str,
    *,
    methods: Sequence[str] = (),
    tasks: Sequence[str] = (),
    jobs: int = 1,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool = False,
    on_group: Callable[[MethodPlan, RunOptions, int], None] | None = None,
    root: Root = None,
) -> StudyRunSummary:
    """``delve study run``: run or resume every missing job of study ``name`` (only
    ``methods`` of it, when given), method by method, packing the results after each.

    Parameters
    ----------
    name : str
        The study (``studies/<name>.yaml``) or the path of a study file.
    methods : sequence of str
        Only these of its methods (and their snapshots); default: all.
    tasks : sequence of str
        Only these of its tasks (names or patterns, e.g. ``"kin-8nm"``); default: all.
    jobs, dask :
        Jobs at a time, or a Dask scheduler (``local[:N]`` starts one).
    on_group : callable, optional
        Called before each group of jobs runs, with the method's plan, the runner's
        options (the group's time scale: a study may set one per task) and the number
        of jobs.

    Returns
    -------
    StudyRunSummary
        Jobs run, the failures and their CPU time.

    Raises
    ------
    RunInterrupted
        On Ctrl-C or SIGTERM, once the running method's finished instances are packed:
        ``summary`` is the StudyRunSummary of what finished, ``packed`` the method and
        the committed files written.
    """
    from .run import RunInterrupted
    from .study.run import StudyRunSummary, run_study
    from .study.spec import load_study

    ws = workspace_dirs(root)
    st = load_study(ws, name)
    try:
        outcomes = run_study(
            ws,
            st,
            jobs,
            dask,
            retry_failed,
            progress=progress,
            on_group=on_group,
            methods=methods,
            tasks=tasks,
        )
    except RunInterrupted as e:  # stopped: what finished (and was packed) rides along
        e.summary = StudyRunSummary.of(st.name, e.outcomes)
        raise
    return StudyRunSummary.of(st.name, outcomes)


def study_status(name: str, *, root: Root = None) -> StudyStatus:
    """``delve study status``: per method and snapshot of study ``name``, the instances
    done, stale, failed and missing, the CPU used and an estimate of the CPU left.

    Returns
    -------
    StudyStatus
        ``rows`` (one :class:`~delve_bench.study.run.Progress` per result), the totals and
        the size of the committed files.
    """
    from .study.run import study_status as status_of
    from .study.spec import load_study

    ws = workspace_dirs(root)
    return status_of(ws, load_study(ws, name))


def study_report(name: str, *, root: Root = None) -> StudyReport:
    """``delve study report``: pack new results, then write the tables and figures of
    study ``name`` into ``results/<study>/report/``.

    Returns
    -------
    StudyReport
        The folder, the files written (relative to it) and the warnings.
    """
    from .study.report import write_study_report
    from .study.spec import load_study

    ws = workspace_dirs(root)
    return write_study_report(ws, load_study(ws, name))


def study_report_check(name: str, *, root: Root = None) -> ReportCheck:
    """``delve study report --check``: regenerate study ``name``'s report from its
    committed results into a temporary folder and compare it with the committed one.

    Returns
    -------
    ReportCheck
        The files that differ, are missing or are no longer made (``identical``: none).
    """
    from .study.report import ReportCheck, check_study_report
    from .study.spec import load_study

    ws = workspace_dirs(root)
    st = load_study(ws, name)
    return ReportCheck(what=f"study {st.name}", differs=tuple(check_study_report(ws, st)))


def study_leaderboard(
    names: str | Sequence[str],
    *,
    out: str | Path | None = None,
    check: bool = False,
    root: Root = None,
) -> StudyReport | ReportCheck:
    """``delve study leaderboard``: every method of studies ``names`` on the tasks they
    all share, ranked from their committed results.

    Parameters
    ----------
    names : str or sequence of str
        The studies (``studies/<name>.yaml``); a name given twice counts once.
    out : str or Path, optional
        The folder, relative to the workspace (default ``results/leaderboard``).
    check : bool, default False
        Regenerate into a temporary folder and compare with ``out`` instead of writing.
    root : str, PathLike, Workspace or WorkspaceDirs, optional
        The workspace (default: ``DELVE_ROOT`` or the current directory).

    Returns
    -------
    StudyReport or ReportCheck
        The files written, or (``check``) the files that differ from ``out``.
    """
    from .study.leaderboard import DEFAULT_OUT, check_leaderboard, write_leaderboard
    from .study.report import ReportCheck
    from .study.spec import load_study

    ws = workspace_dirs(root)
    studies = [load_study(ws, n) for n in dict.fromkeys(_names(names))]
    folder = Path(out) if out is not None else DEFAULT_OUT
    if check:
        what = f"leaderboard of {', '.join(s.name for s in studies)}"
        return ReportCheck(what=what, differs=tuple(check_leaderboard(ws, studies, folder)))
    return write_leaderboard(ws, studies, folder)


def study_verify(
    name: str,
    *,
    alpha: float = 0.01,
    margin: float = 0.2,
    progress: Callable[[str], None] | None = None,
    root: Root = None,
) -> Verification:
    """``delve study verify``: the CI checks of study ``name``: committed losses match
    their recorded sha256, the report regenerates byte-identically, sample reruns
    reproduce the committed losses.

    Parameters
    ----------
    alpha : float
        Level of the rerun test of the methods with a CPU budget.
    margin : float
        Such a rerun fails only when significantly worse than the committed loss times
        1 + ``margin``.
    progress : callable, optional
        Called with a line before each step.

    Returns
    -------
    Verification
        Every check; ``ok`` when none failed.
    """
    from .study.spec import load_study
    from .study.verify import Verification, verify_study

    ws = workspace_dirs(root)
    st = load_study(ws, name)
    checks = verify_study(ws, st, alpha, margin, progress=progress)
    return Verification(study=st.name, checks=tuple(checks))


def study_unpack(name: str, *, root: Root = None) -> Unpacked:
    """``delve study unpack``: write the committed results of study ``name`` in the
    ordinary layout into ``results/<study>/runs`` (the analyses read them in place with
    ``--with``; this is for tools that read result folders).

    Returns
    -------
    Unpacked
        How many instances were written, from where, to where.
    """
    from .study.beside import unpack_study
    from .study.spec import load_study

    ws = workspace_dirs(root)
    return unpack_study(ws, load_study(ws, name))


# ---- the names these functions had before 0.2 (docs/api.md, "Older names") ----------
# each is the function above, under the name that is also a subpackage of delve_bench

datasets = list_datasets
tasks = list_tasks
methods = list_methods
run = run_methods
execute = execute_plan
losses = loss_table
stats = task_stats
report = make_report
