"""``delve status``: which instances of which (method, task) are done, failed, corrupt or
missing, read from the result store."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..errors import DelveError
from ..methods.registry import method_names, split_fraction
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef, resolve_tasks
from ..tasks.spec import prototask_spec
from ..workspace import Workspace
from .store import instance_state, read_meta, result_dir


@dataclass(frozen=True, kw_only=True)
class StatusRow:
    """One method on one task: its instance numbers by state, and the recorded errors of
    the failed ones (instance -> error)."""

    method: str
    task: str
    done: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    corrupt: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["errors"] = {str(k): v for k, v in sorted(self.errors.items())}
        return d


def _tasks_with_results(ws: Workspace, method: str) -> list[TaskRef]:
    refs = []
    for d in sorted((ws.results / method).glob("*/*/std.*")):
        ds, pt, task = d.parts[-3:]
        try:
            refs.append(TaskRef(ds, pt, int(task.split(".", 1)[1])))
        except ValueError:
            continue
    return refs


def study_status(ws: Workspace, names: list[str]) -> list[StatusRow]:
    """One row per (method, task): instance numbers by state and the recorded errors."""
    known = set(method_names(ws))
    methods = [n for n in names[:1] if split_fraction(n)[0] in known]
    tasks = names[len(methods) :]
    if not methods:
        methods = (
            sorted(
                p.name
                for p in ws.results.iterdir()
                if p.is_dir() and split_fraction(p.name)[0] in known
            )
            if ws.results.is_dir()
            else []
        )
    rows = []
    for m in methods:
        refs = resolve_tasks(ws, tasks) if tasks else _tasks_with_results(ws, m)
        for ref in refs:
            try:
                layout = task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)
            except DelveError:
                continue
            row = StatusRow(method=m, task=ref.full_name)
            for inst in layout.instances:
                d = result_dir(ws, m, ref, inst.index)
                state = instance_state(d)
                getattr(row, "done" if state == "ok" else state).append(inst.index)
                if state == "failed":
                    row.errors[inst.index] = (read_meta(d) or {}).get("error", "?")
            rows.append(row)
    return rows
