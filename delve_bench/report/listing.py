"""Plain-text listings of the ``delve`` commands: datasets, tasks, methods, status, the
run plan and its estimate, the run summary.

Every column is as wide as its longest entry (header included), so long method, task
or dataset names never run into the next column.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from ..defaults import DEFAULT_TIME_SCALE
from .plaintext import (
    SKIP_REASONS,
    estimate_line,
    estimate_table,
    format_plan,
    format_run_summary,
    ranges,
    table,
)

if TYPE_CHECKING:
    from ..records import DatasetInfo, MethodInfo, TaskInfo
    from ..run.status import StatusRow

__all__ = [
    "SKIP_REASONS",
    "estimate_line",
    "estimate_table",
    "format_datasets",
    "format_method",
    "format_methods",
    "format_plan",
    "format_run_summary",
    "format_status",
    "format_tasks",
    "ranges",
    "table",
]


def format_datasets(items: list[DatasetInfo]) -> str:
    rows = [
        (d.name, "", "", "", f"broken: {d.error}")
        if d.error
        else (
            d.name,
            str(d.cases),
            str(d.attributes),
            ",".join(d.prototasks) or "-",
            "generated" if d.generated else d.data or f"missing ({d.fetch})",
        )
        for d in items
    ]
    return table(("dataset", "cases", "attrs", "prototasks", "data"), rows, "lrrll")


def format_tasks(items: list[TaskInfo]) -> str:
    rows = [
        (t.task, t.error, "", "", "", "", "")
        if t.error is not None
        else (
            t.task,
            str(t.design),
            str(t.instances),
            str(t.train_size),
            str(t.test_size),
            " ".join(t.losses or ()),
            str(t.instances_from),
        )
        for t in items
    ]
    return table(
        ("task", "design", "instances", "train", "test", "losses", "instances from"),
        rows,
        "llrrrll",
    )


def format_methods(items: list[MethodInfo], width: int = 100) -> str:
    """Two lines per method: name, losses, budget rule and plugin; then the summary."""
    rows = [
        (m.name, "", f"broken: {m.error}", "")
        if m.error
        else (m.name, " ".join(m.losses) if m.losses is not None else "?", m.budget_rule, m.plugin)
        for m in items
    ]
    indent = " " * (max(len(m.name) for m in items) + 2) if items else ""
    notes = [
        []
        if m.error
        else textwrap.wrap(m.summary, width, initial_indent=indent, subsequent_indent=indent)
        or [indent + "-"]
        for m in items
    ]
    out = table(("method", "losses", "budget rule", "plugin"), rows, notes=notes).splitlines()
    out += [
        "",
        "Budget rules: cpu seconds of the 1996 machine (x --time-scale, default "
        f"{DEFAULT_TIME_SCALE:g}) in "
        "--budget-mode cpu, work units in --budget-mode work; jobs are killed at 2 x the cpu "
        "budget + 60 s unless a hard limit is given. `delve methods NAME` describes one.",
    ]
    return "\n".join(out[:-1]) + "\n" + textwrap.fill(out[-1], width) + "\n"


def format_method(m: MethodInfo, width: int = 100) -> str:
    """Everything about one method."""
    params = ", ".join(f"{k}={v!r}" for k, v in m.params.items()) or "-"
    lines = [
        m.name,
        f"  losses:  {' '.join(m.losses) if m.losses is not None else '? (plugin not importable)'}",
        f"  budget:  {m.budget_rule}",
        f"  plugin:  {m.plugin}",
        f"  params:  {params}",
        f"  spec:    {m.source}",
        "",
    ]
    for para in (m.description or m.summary or "").split("\n\n"):
        lines += textwrap.wrap(
            " ".join(para.split()), width, initial_indent="  ", subsequent_indent="  "
        )
    return "\n".join(lines) + "\n"


def format_status(rows: list[StatusRow]) -> str:
    if not rows:
        return "no results yet; start with `delve run METHOD TASK`\n"
    return table(
        ("method", "task", "done", "stale", "failed", "corrupt", "missing"),
        [
            (
                r.method,
                r.task,
                str(len(r.done)),
                str(len(r.stale)),
                str(len(r.failed)),
                str(len(r.corrupt)),
                str(len(r.missing)),
            )
            for r in rows
        ],
        "llrrrrr",
        notes=[
            [f"    #{i}: {err}" for i, err in sorted(r.errors.items())]
            + [f"    #{i}: stale ({what})" for i, what in sorted(r.stale_fields.items())]
            + [f"    #{i}: lock {what}" for i, what in sorted(r.locks.items())]
            for r in rows
        ],
    )
