"""Running a study and telling how far it is: every job through the ordinary runner
(:func:`delve_bench.run.plan_jobs` / :func:`~delve_bench.run.run_jobs`), so provenance,
hard limits, locks and resumption are those of ``delve run``; snapshots ``METHOD@F`` are
folded into the runs of their method."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..methods.registry import fraction_name, method_spec
from ..run import plan_jobs, run_jobs
from ..run.job import Fingerprints, Job, Outcome, RunOptions, fingerprints, instance_fields
from ..run.packed import packed_metas
from ..run.provenance import describe_difference
from ..run.runner import RunInterrupted, outdated_fields
from ..run.store import instance_state, read_meta, task_dir
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs
from .spec import MethodPlan, Study


@dataclass
class Progress:
    """Instances of one result name (method or snapshot) by state, and CPU estimates.
    ``stale``: recorded (in the working store or packed) under another fingerprint than
    the study's settings give now; ``study run`` redoes them like missing ones."""

    name: str
    plan: MethodPlan
    done: int = 0
    stale: int = 0
    failed: int = 0
    missing: int = 0
    cpu_done: float = 0.0  # measured CPU seconds of the finished instances
    cpu_left: float = 0.0  # estimated CPU seconds of the missing and stale ones
    unknown: int = 0  # missing or stale instances with no estimate
    failures: list[str] = field(default_factory=list)
    stale_reasons: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.done + self.stale + self.failed + self.missing

    def to_dict(self) -> dict:
        """The ``--json`` record of ``delve study status`` (docs/json.md)."""
        return {
            "result": self.name,
            "done": self.done,
            "stale": self.stale,
            "failed": self.failed,
            "missing": self.missing,
            "cpu_done_seconds": round(self.cpu_done, 3),
            "cpu_left_seconds": round(self.cpu_left, 3),
            "missing_without_estimate": self.unknown,
            "stale_reasons": self.stale_reasons,
        }


@dataclass(frozen=True, kw_only=True)
class StudyStatus:
    """``delve study status``: the progress of every result of a study.

    Attributes
    ----------
    study : str
        The study's name.
    results : Path
        Its folder, relative to the workspace.
    rows : tuple of Progress
        One per method and snapshot, in the study file's order.
    committed_bytes : int
        Size of its committed files (losses, meta, report).
    cores : int
        CPU cores of this machine (jobs are single-threaded: ``--jobs`` up to this many
        divide the wall time).
    """

    study: str
    results: Path
    rows: tuple[Progress, ...]
    committed_bytes: int
    cores: int

    @property
    def done(self) -> int:
        return sum(r.done for r in self.rows)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.rows)

    @property
    def cpu_left(self) -> float:
        """Estimated CPU seconds still needed."""
        return sum(r.cpu_left for r in self.rows)

    @property
    def unknown(self) -> int:
        """Missing or stale instances with no estimate."""
        return sum(r.unknown for r in self.rows)

    def __repr__(self) -> str:
        from ..report.commands import format_study_status

        return format_study_status(self).rstrip("\n")


@dataclass(frozen=True, kw_only=True)
class StudyRunSummary:
    """``delve study run``: jobs that ran, the failures (label, error), their CPU time."""

    study: str
    ran: int
    failed: tuple[tuple[str, str], ...]
    cpu_seconds: float

    @property
    def ok(self) -> bool:
        return not self.failed

    @classmethod
    def of(cls, study: str, outcomes: Sequence[Outcome]) -> StudyRunSummary:
        return cls(
            study=study,
            ran=sum(o.status == "ok" for o in outcomes),
            failed=tuple((o.job.label, o.error or "") for o in outcomes if o.status == "failed"),
            cpu_seconds=float(sum(o.cpu or 0 for o in outcomes)),
        )

    def __repr__(self) -> str:
        from ..report.commands import format_study_run

        return format_study_run(self).rstrip("\n")


@dataclass
class _States:
    """What :func:`_states` reads once per study: packed metas (one pass over each file),
    hard limits, the task fields of each instance (shared by every method on its task)
    and the fingerprint maker of each (result name, task, plan) -- whose method, budget
    and prototask fields are the same for every instance, so they are computed once."""

    packed: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)
    tasks: dict[TaskRef, Fingerprints] = field(default_factory=dict)
    fingerprints: dict[tuple, Fingerprints] = field(default_factory=dict)


def _states(
    study_dir: Path,
    sws: WorkspaceDirs,
    plan: MethodPlan,
    name: str,
    ref: TaskRef,
    indices: Sequence[int],
    cache: _States,
) -> list[tuple[str, dict, str]]:
    """(state, meta, why stale) of the results of ``name`` on instances ``indices`` of task
    ``ref``: from the working store, else from the packed files. ``stale``: an ``ok`` or
    ``failed`` result that ``delve run`` with the plan's options would redo
    (:func:`~delve_bench.run.runner.outdated_fields`). Per task, not per instance: the
    working store is looked into only where it has the task's folder, and the packed
    metas and the fingerprint fields are read once."""
    options = plan.options(ref)
    stored = task_dir(sws, name, ref)
    in_store = stored.is_dir()  # a committed study has no working store: no stat per instance
    key = (name, ref.dataset, ref.prototask)
    fkey = (name, ref, plan.name)
    limits = cache.limits.setdefault(plan.name, {})
    out: list[tuple[str, dict, str]] = []
    for i in indices:
        st = "missing"
        if in_store:
            d = stored / str(i)
            st = instance_state(d)
        meta: dict | None
        if st in ("ok", "failed"):
            meta = read_meta(d) or {}
        else:
            if key not in cache.packed:
                cache.packed[key] = packed_metas(study_dir, name, ref.dataset, ref.prototask)
            meta = cache.packed[key].get((ref.size, i))
            if meta is None:
                out.append(("missing", {}, ""))
                continue
            st = "ok" if meta.get("status") == "ok" else "failed"
        if fkey not in cache.fingerprints:
            if ref not in cache.tasks:
                cache.tasks[ref] = functools.cache(instance_fields(sws, ref))
            cache.fingerprints[fkey] = fingerprints(sws, name, ref, options, task=cache.tasks[ref])
        now = cache.fingerprints[fkey](i)
        fields = outdated_fields(sws, Job(name, ref, i), options, st, meta, limits, now)
        if not fields:
            out.append((st, meta, ""))
        elif any(f.endswith("hard_limit_s") for f in fields):
            out.append(("stale", meta, "failed under other hard limits"))
        else:
            out.append(("stale", meta, describe_difference(meta.get("fingerprint"), now, fields)))
    return out


def estimate(
    plan: MethodPlan, spec, n: int, measured: dict[int, list[float]], time_scale: float
) -> float | None:
    """CPU seconds one instance with ``n`` training cases will take at ``time_scale``
    (``measured``: CPU seconds at that time scale, by size): the mean measured at this
    size; else a cpu-mode budget (anytime and budget-filling methods use it all); else the
    measurements at other sizes and the study's ``cpu_estimate`` at the sizes not yet
    measured, interpolated log-log (extrapolated with the nearest slope, cubic beyond one
    point). The study's values stand where nothing is measured: a slope fitted to the
    first two sizes alone can be wild (a search that stops at once on one size and runs
    on the next gives n^6)."""
    if measured.get(n):
        return sum(measured[n]) / len(measured[n])
    if plan.budget_mode == "cpu":
        b = spec.make_budget(n, "cpu", time_scale)
        if b.cpu_seconds:
            return b.cpu_seconds
    pts = dict(plan.cpu_estimate) | {k: sum(v) / len(v) for k, v in measured.items() if v}
    if not pts:
        return None
    xs = sorted(pts)
    if len(xs) == 1:
        return pts[xs[0]] * (n / xs[0]) ** 3
    lo = max([x for x in xs if x <= n] or [xs[0]])
    hi = min([x for x in xs if x >= n] or [xs[-1]])
    if lo == hi:
        lo, hi = (xs[0], xs[1]) if n < xs[0] else (xs[-2], xs[-1])
    slope = math.log(pts[hi] / pts[lo]) / math.log(hi / lo)
    return pts[lo] * (n / lo) ** slope


def study_progress(ws: WorkspaceDirs, study: Study) -> list[Progress]:
    """Per method and snapshot: done, failed and missing instances, measured CPU and an
    estimate of the CPU still needed (snapshots cost nothing when their method runs)."""
    sws = study.workspace(ws)
    study_dir = ws.root / study.results
    cache = _States()
    rows = []
    layouts: dict = {}  # each task's index files are read and checked once
    for plan in study.methods:
        spec = method_spec(ws, plan.name)
        refs = study.method_refs(ws, plan)
        for name in [plan.name, *plan.snapshot_names]:
            pr = Progress(name, plan)
            # CPU seconds by time scale and size: a task's own time scale sets its budget
            measured: dict[float, dict[int, list[float]]] = {}
            missing_sizes: list[tuple[float, int]] = []
            for ref in refs:
                if ref not in layouts:
                    proto = prototask_spec(ws, ref.dataset, ref.prototask)
                    layouts[ref] = task_layout(ws, proto, ref.size)
                layout = layouts[ref]
                selected = plan.selected(ref, [i.index for i in layout.instances])
                states = _states(study_dir, sws, plan, name, ref, selected, cache)
                n_train = {inst.index: len(inst.train) for inst in layout.instances}
                scale = plan.time_scale_at(ref)
                for i, (st, meta, why) in zip(selected, states, strict=True):
                    if st == "stale":
                        pr.stale += 1
                        pr.stale_reasons.append(f"{ref.full_name} #{i}: {why}")
                        missing_sizes.append((scale, n_train[i]))
                    elif st == "ok":
                        pr.done += 1
                        cpu = float(meta.get("cpu_seconds") or 0.0)
                        pr.cpu_done += cpu
                        measured.setdefault(scale, {}).setdefault(n_train[i], []).append(cpu)
                    elif st == "failed":
                        pr.failed += 1
                        pr.failures.append(f"{ref.full_name} #{i}: {meta.get('error', '?')}")
                    else:
                        pr.missing += 1
                        missing_sizes.append((scale, n_train[i]))
            if name == plan.name:
                for scale, n in missing_sizes:
                    e = estimate(plan, spec, n, measured.get(scale, {}), scale)
                    if e is None:
                        pr.unknown += 1
                    else:
                        pr.cpu_left += e
            rows.append(pr)
    # a snapshot whose method instance is missing is made by that run: no extra cost; one
    # whose method is done needs a run of its own with F of the budget
    by_name = {r.name: r for r in rows}
    for plan in study.methods:
        main = by_name[plan.name]
        for f, sname in zip(plan.snapshots, plan.snapshot_names, strict=True):
            s = by_name[sname]
            extra = max(0, s.missing + s.stale - main.missing - main.stale)
            if extra and main.done:
                s.cpu_left = extra * f * main.cpu_done / main.done
    return rows


def study_status(ws: WorkspaceDirs, study: Study) -> StudyStatus:
    """:func:`study_progress` with the totals and the size of the committed files."""
    import os

    base = ws.root / study.results
    size = sum(
        p.stat().st_size
        for sub in ("losses", "meta", "report")
        for p in (base / sub).rglob("*")
        if p.is_file()
    )
    return StudyStatus(
        study=study.name,
        results=study.results,
        rows=tuple(study_progress(ws, study)),
        committed_bytes=size,
        cores=os.cpu_count() or 1,
    )


def study_jobs(
    ws: WorkspaceDirs,
    study: Study,
    retry_failed: bool = False,
    methods: Sequence[str] = (),
    tasks: Sequence[str] = (),
) -> list[tuple[MethodPlan, RunOptions, list[Job]]]:
    """The jobs still to run, grouped by method plan and the runner's options (the plan's
    budget mode and a time scale, which may differ by task); ``methods``: only these of
    the study's methods, ``tasks``: only these of its tasks (default: all)."""
    sws = study.workspace(ws)
    study_dir = ws.root / study.results
    out = []
    cache = _States()
    for plan in study.only(methods):
        by_options: dict[RunOptions, list[TaskRef]] = {}
        for ref in study.method_refs(ws, plan, tasks):
            by_options.setdefault(plan.options(ref), []).append(ref)
        for options, refs in by_options.items():
            todo = _todo(sws, study_dir, plan, refs, options, retry_failed, cache)
            out.append((plan, options, todo))
    return out


def _todo(
    sws: WorkspaceDirs,
    study_dir: Path,
    plan: MethodPlan,
    refs: list[TaskRef],
    options: RunOptions,
    retry_failed: bool,
    cache: _States,
) -> list[Job]:
    """The jobs of ``plan`` on ``refs`` (all run with ``options``) still to run."""
    todo = plan_jobs(
        sws,
        [plan.name, *plan.snapshot_names],
        refs,
        instances=plan.instances_at,  # the study's instances at each task's size
        options=options,  # results made under other settings are stale: redone
        retry_failed=retry_failed,
    ).todo
    # results that are packed (committed) but not in the working store count as done,
    # unless they are stale (made under other settings: redone, as `delve run` does)
    keep = []
    for j in todo:
        ((st, _, _),) = _states(study_dir, sws, plan, j.method, j.ref, [j.instance], cache)
        if st in ("missing", "stale") or (st == "failed" and retry_failed):
            keep.append(j)
            continue
        for f in j.snapshots:  # the method is packed, a snapshot is not: a short run
            name = fraction_name(j.method, f)
            ((st, _, _),) = _states(study_dir, sws, plan, name, j.ref, [j.instance], cache)
            if st in ("missing", "stale"):
                keep.append(Job(name, j.ref, j.instance))
    return keep


def run_study(
    ws: WorkspaceDirs,
    study: Study,
    n_jobs: int = 1,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool = True,
    on_group: Callable[[MethodPlan, RunOptions, int], None] | None = None,
    methods: Sequence[str] = (),
    tasks: Sequence[str] = (),
) -> list[Outcome]:
    """Run (or resume) every missing job of the study (``methods``: only these of its
    methods, ``tasks``: only these of its tasks), method by method in the order of the
    study file, and pack the results after each method (all of its tasks: what is packed
    already stays). Returns the runner's outcomes.

    Raises :class:`~delve_bench.run.runner.RunInterrupted` when stopped (Ctrl-C, SIGTERM),
    after packing the finished instances of the method that was running: its ``outcomes``
    are every job finished in this run, its ``packed`` the method and the files written."""
    sws = study.workspace(ws)
    study_dir = ws.root / study.results
    groups = study_jobs(ws, study, retry_failed, methods, tasks)
    from .pack import pack  # pandas and pyarrow: only a run packs

    def pack_method(plan: MethodPlan) -> list[Path]:
        names = [plan.name, *plan.snapshot_names]
        return pack(study_dir, names, study.method_refs(ws, plan), study.losses_for)

    outcomes: list[Outcome] = []
    for k, (plan, options, jobs) in enumerate(groups):
        if on_group is not None:
            on_group(plan, options, len(jobs))
        if jobs:
            try:
                outcomes += run_jobs(sws, jobs, options, n_jobs, progress=progress, dask=dask)
            except RunInterrupted as e:
                # Ctrl-C, or SIGTERM at a batch system's (or a session's) time limit: the
                # method's finished instances are packed as a complete run packs them, so
                # what a machine that is wiped afterwards would lose can be committed now
                e.outcomes = outcomes + e.outcomes
                e.packed = (plan.name, pack_method(plan))
                raise
        if k + 1 == len(groups) or groups[k + 1][0] is not plan:  # the method's last group
            pack_method(plan)
    return outcomes
