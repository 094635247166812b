"""``delve status``: which instances of which (method, task) are done, stale, failed,
corrupt or missing, and which are locked (by whom, how long ago the lease was refreshed,
held or expired), read from the result store (stale: made under another fingerprint,
see :func:`delve_bench.run.store.task_instances` and docs/provenance.md)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..errors import DelveError
from ..methods.registry import method_names, split_fraction
from ..tasks.instances import TaskLayout, task_layout
from ..tasks.names import TaskRef, resolve_tasks
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs
from .sources import method_tasks, reference_methods
from .store import task_instances, task_locks


@dataclass(frozen=True, kw_only=True)
class StatusRow:
    """One method on one task: its instance numbers by state, the recorded errors of the
    failed ones and, for the stale ones, how their fingerprint differs (instance -> text)."""

    method: str
    task: str
    done: list[int] = field(default_factory=list)
    stale: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    corrupt: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)
    errors: dict[int, str] = field(default_factory=dict)
    stale_fields: dict[int, str] = field(default_factory=dict)
    #: lock files of the task's instances: instance -> holder, age and whether it still holds
    locks: dict[int, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["errors"] = {str(k): v for k, v in sorted(self.errors.items())}
        d["stale_fields"] = {str(k): v for k, v in sorted(self.stale_fields.items())}
        d["locks"] = {str(k): v for k, v in sorted(self.locks.items())}
        return d


def result_status(
    ws: WorkspaceDirs, names: list[str], layouts: dict[TaskRef, TaskLayout] | None = None
) -> list[StatusRow]:
    """One row per (method, task): instance numbers by state and the recorded errors.
    ``layouts``: task -> layout, read here where missing and kept (a caller asking about
    several methods reads each task's index files once)."""
    layouts = {} if layouts is None else layouts
    known = set(method_names(ws))
    methods = [n for n in names[:1] if split_fraction(n)[0] in known]
    tasks = names[len(methods) :]
    if not methods:
        own = [p.name for p in ws.results.iterdir() if p.is_dir()] if ws.results.is_dir() else []
        methods = sorted(m for m in {*own, *reference_methods(ws)} if split_fraction(m)[0] in known)
    rows = []
    for m in methods:
        refs = resolve_tasks(ws, tasks) if tasks else method_tasks(ws, m)
        for ref in refs:
            if ref not in layouts:
                try:
                    proto = prototask_spec(ws, ref.dataset, ref.prototask)
                    layouts[ref] = task_layout(ws, proto, ref.size)
                except DelveError:
                    continue
            layout = layouts[ref]
            row = StatusRow(method=m, task=ref.full_name)
            for st in task_instances(ws, m, ref, layout):
                getattr(row, "done" if st.state == "ok" else st.state).append(st.index)
                if st.state == "failed":
                    row.errors[st.index] = (st.meta or {}).get("error", "?")
                elif st.state == "stale":
                    row.stale_fields[st.index] = st.detail
            row.locks.update({i: info.describe() for i, info in task_locks(ws, m, ref).items()})
            rows.append(row)
    return rows
