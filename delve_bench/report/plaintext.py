"""Plain text shared by the listings and the API's result objects: columns as wide as
their longest entry, instance ranges, the run plan with its estimate, the run summary.
It imports nothing of the API (whose ``Plan`` and ``RunSummary`` show themselves with
it), so the objects are typed loosely here."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..run.estimate import duration

if TYPE_CHECKING:
    from ..run.estimate import Estimate


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    align: str = "",
    notes: Sequence[Sequence[str]] = (),
) -> str:
    """Columns two spaces apart, each as wide as its longest cell; ``align``: 'l' or 'r'
    per column (default: left). The last left-aligned column is not padded. ``notes``:
    one sequence per row of lines printed under it as they are (default: none)."""
    align = align or "l" * len(headers)
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for k, r in enumerate([headers, *rows]):
        cells = [
            str(c).rjust(w) if a == "r" else str(c).ljust(w)
            for c, w, a in zip(r, widths, align, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
        if notes and k:
            lines += notes[k - 1]
    return "\n".join(lines) + "\n"


def ranges(numbers: Sequence[int]) -> str:
    """``0-3 5 7-8`` for [0, 1, 2, 3, 5, 7, 8]."""
    out, nums = [], sorted(numbers)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return " ".join(out)


def _by_task(jobs) -> list[tuple[str, str, str]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for j in jobs:
        groups.setdefault((j.method, j.ref.full_name), []).append(j.instance)
    return [(m, t, ranges(idx)) for (m, t), idx in groups.items()]


SKIP_REASONS = {
    "done": "finished (skipped; --force redoes them)",
    "failed": "failed earlier (skipped; --retry-failed reruns them)",
}


def estimate_table(e: Estimate) -> str:
    rows = [
        (
            m.method,
            str(m.jobs),
            duration(m.cpu_seconds) + ("+?" if m.unknown_jobs else ""),
            duration(m.wall_seconds) + ("+?" if m.unknown_jobs else ""),
            m.basis,
        )
        for m in e.methods
    ]
    more = "+?" if e.unknown_jobs else ""
    rows.append(
        (
            "total",
            str(sum(m.jobs for m in e.methods)),
            duration(e.cpu_seconds) + more,
            duration(e.wall_seconds) + more,
            "",
        )
    )
    workers = f"{e.workers} worker{'s' if e.workers > 1 else ''}"
    if e.workers < e.n_jobs:
        workers += f" (--jobs {e.n_jobs}, but {e.workers} CPUs)"
    scale = f", time scale {e.time_scale:g}" if e.mode == "cpu" else ""
    head = f"estimate ({e.mode} budget mode{scale}, {workers}):"
    return head + "\n" + _indent(table(("method", "jobs", "CPU", "wall", "from"), rows, "lrrrl"))


def format_plan(p: Any) -> str:
    """The dry run: jobs to run by method and task, the skipped ones, the estimate."""
    out = [f"would run {len(p.todo)} job{'s' if len(p.todo) != 1 else ''}:"]
    if p.todo:
        out.append(_indent(table(("method", "task", "instances"), _by_task(p.todo))))
    stale = getattr(p, "stale", None) or {}  # job -> fingerprint fields that differ
    if stale:
        groups: dict[tuple[str, str, str], list[int]] = {}
        for j, fields in stale.items():
            key = (j.method, j.ref.full_name, ", ".join(fields) or "?")
            groups.setdefault(key, []).append(j.instance)
        rows = [(m, t, ranges(idx), f) for (m, t, f), idx in groups.items()]
        out.append(f"{len(stale)} of them redo stale results (made under other settings):")
        out.append(_indent(table(("method", "task", "instances", "what changed"), rows)))
    for reason, jobs in p.skipped.items():
        if jobs:
            out.append(f"{len(jobs)} {SKIP_REASONS.get(reason, reason)}:")
            out.append(_indent(table(("method", "task", "instances"), _by_task(jobs))))
    if p.todo:
        out.append(estimate_table(p.estimate))
        if p.estimate.unknown_jobs:
            out.append(
                f"+?: {p.estimate.unknown_jobs} jobs have no budget and no earlier run to "
                "estimate from (counted as 0 s)\n"
            )
    return "\n".join(s.rstrip("\n") for s in out) + "\n"


def estimate_line(e: Estimate, n_jobs: int) -> str:
    """The one line ``delve run`` prints before a long run."""
    more = " (+ jobs with no estimate)" if e.unknown_jobs else ""
    return (
        f"estimate: {n_jobs} job{'s' if n_jobs != 1 else ''}, about {duration(e.cpu_seconds)} CPU, "
        f"{duration(e.wall_seconds)} wall on {e.workers} worker{'s' if e.workers > 1 else ''}"
        f"{more}; `--dry-run` shows the plan"
    )


def format_run_summary(s: Any) -> str:
    # interrupted jobs (a full disk, a killed worker) are counted only when there are any,
    # so that every job of the plan is in the line
    stopped = f"{len(s.interrupted)} interrupted, " if s.interrupted else ""
    lines = [
        f"ran {s.ran}, skipped {s.skipped} finished, {len(s.failed)} failed, {stopped}"
        f"{s.busy} busy elsewhere; {s.cpu_seconds:.2f} CPU s"
    ]
    lines += [f"failed: {f['method']} {f['task']} #{f['instance']}: {f['error']}" for f in s.failed]
    # each error says what a plain rerun does about it (run.job.interrupted)
    lines += [
        f"interrupted: {f['method']} {f['task']} #{f['instance']}: {f['error']}"
        for f in s.interrupted
    ]
    if s.failed_earlier:
        f = s.failed_earlier[0]
        lines.append(
            f"skipped {len(s.failed_earlier)} instance(s) that failed earlier "
            f"(rerun them with --retry-failed), e.g. {f['method']} {f['task']} #{f['instance']}"
        )
    return "\n".join(lines) + "\n"


def _indent(text: str, n: int = 2) -> str:
    return textwrap.indent(text, " " * n)
