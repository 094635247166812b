"""How long a run will take, before it starts (``delve run --dry-run``).

Each job's CPU seconds come from

* ``budget``: in ``cpu`` mode, the method's budget rule for the job's training-set size
  (1996-machine seconds x ``--time-scale``); where earlier cpu-mode runs of the method at
  that size, made with at least this budget, finished sooner (a method that converges
  before its budget is used up), their median instead (``recorded``);
* ``recorded``: otherwise (``work`` mode, or a method without a CPU budget) the median CPU
  seconds that earlier finished runs of the method at the same training-set size recorded
  in their meta.json (same task first, then any task with that size, in the same budget
  mode when there are such runs);
* ``scaled``: recorded runs at other sizes only: a power law ``c n^k`` fitted through
  the per-size medians (``k = 1`` from a single size);
* ``unknown``: no budget and no earlier run. Such jobs count as 0 s and are reported.

Wall time replays the executor: jobs start in plan order on ``min(--jobs, CPUs)`` workers,
each job on the first free worker (jobs run one BLAS thread each, so wall ~ CPU per job).
"""

from __future__ import annotations

import heapq
import math
import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ..methods.registry import method_spec
from ..workspace import WorkspaceDirs
from .job import Job
from .store import read_meta


@dataclass(frozen=True, kw_only=True)
class MethodEstimate:
    """The jobs of one method: count, CPU and wall seconds, and where the numbers come from."""

    method: str
    jobs: int
    cpu_seconds: float
    wall_seconds: float
    unknown_jobs: int  # jobs with no estimate (counted as 0 s)
    sources: dict[str, int]  # source -> number of jobs ('budget', 'recorded', 'scaled', 'unknown')
    basis: str  # one line: how the numbers were obtained


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """CPU and wall time of a plan's jobs, per method and in total."""

    mode: str
    time_scale: float
    n_jobs: int  # --jobs asked for
    workers: int  # jobs really at a time: min(--jobs, CPUs)
    methods: list[MethodEstimate] = field(default_factory=list)
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    unknown_jobs: int = 0

    @property
    def complete(self) -> bool:
        """True when every job has an estimate."""
        return self.unknown_jobs == 0

    @property
    def text(self) -> str:
        """The estimate in words: ``about 51 min CPU, 26 min wall on 2 workers (cpu budget
        mode, time scale 0.05)``."""
        scale = f", time scale {self.time_scale:g}" if self.mode == "cpu" else ""
        more = f"; {self.unknown_jobs} jobs without an estimate" if self.unknown_jobs else ""
        return (
            f"about {duration(self.cpu_seconds)} CPU, {duration(self.wall_seconds)} wall on "
            f"{self.workers} worker{'s' if self.workers != 1 else ''} "
            f"({self.mode} budget mode{scale}){more}"
        )

    def __repr__(self) -> str:
        return f"Estimate: {self.text}"

    def _repr_html_(self) -> str:
        from .._html import html_table, paragraph

        rows = [
            (m.method, m.jobs, duration(m.cpu_seconds), duration(m.wall_seconds), m.basis)
            for m in self.methods
        ]
        head = ("method", "jobs", "CPU", "wall", "from")
        return paragraph(f"Estimate: {self.text}") + html_table(head, rows)


@dataclass(frozen=True)
class _Record:
    task: str
    n: int
    mode: str
    cpu: float
    budget_cpu: float | None  # the CPU budget the run had (cpu mode)


def _history(ws: WorkspaceDirs, method: str) -> list[_Record]:
    """CPU seconds of every finished instance of ``method`` recorded in its meta.json."""
    out = []
    for p in (ws.results / method).glob("*/*/std.*/*/meta.json"):
        # the one safe reader: a FIFO or /dev/zero in a meta.json's place is skipped, not
        # waited on or read into memory
        meta = read_meta(p.parent)
        if meta is None or meta.get("status") != "ok":
            continue
        cpu, n = meta.get("cpu_seconds"), meta.get("n_train")
        if not isinstance(cpu, int | float) or not isinstance(n, int) or n <= 0:
            continue
        raw = meta.get("budget")
        budget: dict = raw if isinstance(raw, dict) else {}
        b = budget.get("cpu_seconds")
        out.append(
            _Record(
                str(meta.get("task", "")),
                n,
                str(budget.get("mode", "")),
                float(cpu),
                float(b) if isinstance(b, int | float) else None,
            )
        )
    return out


def _from_history(recs: list[_Record], task: str, n: int, mode: str) -> tuple[float, str] | None:
    """(seconds, 'recorded' | 'scaled') from earlier runs, or None when there are none."""
    if not recs:
        return None
    same_mode = [r for r in recs if r.mode == mode]
    recs = same_mode or recs
    for pool in ([r for r in recs if r.task == task and r.n == n], [r for r in recs if r.n == n]):
        if pool:
            return float(np.median([r.cpu for r in pool])), "recorded"
    by_n: dict[int, list[float]] = defaultdict(list)
    for r in recs:
        by_n[r.n].append(r.cpu)
    sizes = sorted(by_n)
    med = np.array([max(float(np.median(by_n[s])), 1e-6) for s in sizes])
    if len(sizes) == 1:
        return float(med[0] * n / sizes[0]), "scaled"
    k, c = np.polyfit(np.log(sizes), np.log(med), 1)
    return float(math.exp(c) * n**k), "scaled"


def job_cpu(
    ws: WorkspaceDirs,
    job: Job,
    n_train: int,
    mode: str,
    time_scale: float,
    history: list[_Record],
) -> tuple[float | None, str]:
    """Estimated CPU seconds of one job and the source of the number."""
    if mode == "cpu":
        b = method_spec(ws, job.method).make_budget(n_train, "cpu", time_scale).cpu_seconds
        if b:
            # runs that had at least this budget and used less of it converge early
            had = [
                r
                for r in history
                if r.mode == "cpu" and r.n == n_train and (r.budget_cpu or 0) >= 0.99 * b
            ]
            if had:
                med = float(np.median([r.cpu for r in had]))
                if med < b:
                    return med, "recorded"
            return float(b), "budget"
    got = _from_history(history, job.ref.full_name, n_train, mode)
    return (None, "unknown") if got is None else got


def schedule(costs: Iterable[float], workers: int) -> float:
    """Wall time of jobs started in order on ``workers`` workers (first free worker)."""
    free = [0.0] * max(1, workers)
    for c in costs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + c)
    return max(free)


def _basis(ws: WorkspaceDirs, method: str, mine: list, mode: str, time_scale: float) -> str:
    """How a method's numbers were obtained, in words (``mine``: (n, cpu, source) per job)."""
    count: dict[str, int] = defaultdict(int)
    for _, _, src in mine:
        count[src] += 1
    parts = []
    if count["budget"]:
        rule = method_spec(ws, method).budget_rule("cpu").removeprefix("cpu ")
        per = {(n, c) for n, c, src in mine if src == "budget"}
        if len(per) == 1:
            ((n, c),) = per
            parts.append(f"budget {rule} x time scale {time_scale:g} = {duration(c)}/job (n={n})")
        else:
            parts.append(f"budget {rule} x time scale {time_scale:g}")
    if count["recorded"]:
        parts.append(f"earlier runs at the same size ({count['recorded']} jobs)")
    if count["scaled"]:
        parts.append(f"earlier runs at other sizes, scaled ({count['scaled']} jobs)")
    if count["unknown"]:
        parts.append(f"no budget and no earlier run ({count['unknown']} jobs unknown)")
    return "; ".join(parts)


def estimate(
    ws: WorkspaceDirs,
    jobs: list[Job],
    sizes: dict,
    mode: str,
    time_scale: float,
    n_jobs: int = 1,
) -> Estimate:
    """Estimate ``jobs`` (``sizes``: task ref -> training-set size) run ``n_jobs`` at a time."""
    workers = max(1, min(n_jobs, os.cpu_count() or 1))
    histories: dict[str, list[_Record]] = {}
    per_job: list[tuple[Job, float | None, str]] = []
    for job in jobs:
        if job.method not in histories:
            histories[job.method] = _history(ws, job.method)
        cpu, src = job_cpu(ws, job, sizes[job.ref], mode, time_scale, histories[job.method])
        per_job.append((job, cpu, src))
    methods = []
    for m in dict.fromkeys(j.method for j in jobs):
        mine = [(sizes[j.ref], c, s) for j, c, s in per_job if j.method == m]
        sources: dict[str, int] = defaultdict(int)
        for _, _, s in mine:
            sources[s] += 1
        costs = [c or 0.0 for _, c, _ in mine]
        methods.append(
            MethodEstimate(
                method=m,
                jobs=len(mine),
                cpu_seconds=float(sum(costs)),
                wall_seconds=schedule(costs, workers),
                unknown_jobs=sources.get("unknown", 0),
                sources=dict(sources),
                basis=_basis(ws, m, mine, mode, time_scale),
            )
        )
    costs = [c or 0.0 for _, c, _ in per_job]
    return Estimate(
        mode=mode,
        time_scale=time_scale,
        n_jobs=n_jobs,
        workers=workers,
        methods=methods,
        cpu_seconds=float(sum(costs)),
        wall_seconds=schedule(costs, workers),
        unknown_jobs=sum(c is None for _, c, _ in per_job),
    )


def duration(seconds: float | None) -> str:
    """Seconds as a person reads them: ``40 s``, ``12 min``, ``3 h 25 min``, ``2.5 days``."""
    if seconds is None:
        return "?"
    s = float(seconds)
    if s < 90:
        return f"{s:.0f} s" if s >= 1 or s == 0 else f"{s:.2f} s"
    if s < 90 * 60:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        h, m = divmod(round(s / 60), 60)
        return f"{h} h {m} min" if m else f"{h} h"
    return f"{s / 86400:.1f} days"
