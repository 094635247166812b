"""The words beside the numbers: what a method's cell of a report lacks and why, and the
budgets its results were made with (tables, legends, diagrams and the index alike)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..analysis.collect import MethodCell, TaskReport


def budget_label(b: dict | None) -> str:
    """``cpu x0.05``, ``work``, or ``to completion`` (no budget rule: the method runs until
    it is done): how reports show a budget."""
    if not b or not b.get("mode"):
        return "to completion"
    if b["mode"] == "cpu":
        return f"cpu x{b['time_scale']:g}" if b.get("time_scale") is not None else "cpu"
    return str(b["mode"])


def cell_budget(cell: MethodCell) -> str:
    """How the budget a cell's results were made with reads in tables ('' if not run)."""
    return "" if cell.budget is None else budget_label(cell.budget)


def cell_note(cell: MethodCell, loss: str) -> str:
    """What is missing and why, in words ('' when every instance is used)."""
    parts = []
    for label, idx in (
        ("not run", cell.missing),
        ("failed", cell.failed),
        ("corrupt", cell.corrupt),
        ("stale", cell.stale),
        (f"no {loss} loss", cell.no_loss),
    ):
        if idx and not (label == "not run" and len(idx) == cell.task_instances):
            parts.append(f"{label}: {' '.join(map(str, idx))}")
    if cell.status == "not run":
        parts.insert(0, "no finished instance" if parts else "not run")
    elif cell.status == "no loss":
        parts = [f"gives no {loss} loss"]
    elif cell.status == "too few":
        parts.insert(0, f"only {len(cell.used)} instance (need 2)")
    return "; ".join(parts)


def method_budgets(tasks: Iterable[TaskReport], methods: Iterable[str]) -> dict[str, str]:
    """Each method's budget settings over ``tasks`` (``cpu x0.05``, ``work``, ``to completion``);
    several joined by `` / `` when its results on different tasks were made differently."""
    out = {}
    for m in methods:
        labels = sorted({cell_budget(t.cells[m]) for t in tasks if t.cells[m].budget is not None})
        out[m] = " / ".join(labels) if labels else "not run"
    return out


def budget_note(tasks: Iterable[TaskReport], methods: Iterable[str]) -> str:
    """``Budgets: lin-1 to completion; mlp-ese-1 cpu x0.05.`` for tables, legends and the index."""
    b = method_budgets(list(tasks), methods)
    return "Budgets (mode, time scale): " + "; ".join(f"{m} {v}" for m, v in b.items()) + "."
