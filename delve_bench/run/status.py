"""``delve status``: which instances of which (method, task) are done, stale, failed,
corrupt or missing, read from the result store (stale: made under another fingerprint,
see :func:`delve_bench.run.store.task_instances`)."""

from __future__ import annotations

from ..errors import DelveError
from ..methods.registry import method_names
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef, resolve_tasks
from ..tasks.spec import prototask_spec
from ..workspace import Workspace
from .store import task_instances


def _tasks_with_results(ws: Workspace, method: str) -> list[TaskRef]:
    refs = []
    for d in sorted((ws.results / method).glob("*/*/std.*")):
        ds, pt, task = d.parts[-3:]
        try:
            refs.append(TaskRef(ds, pt, int(task.split(".", 1)[1])))
        except ValueError:
            continue
    return refs


def study_status(ws: Workspace, names: list[str]) -> list[dict]:
    """One row per (method, task): instance numbers by state and the recorded errors."""
    known = set(method_names(ws))
    methods = [n for n in names[:1] if n in known]
    tasks = names[len(methods) :]
    if not methods:
        methods = (
            sorted(p.name for p in ws.results.iterdir() if p.is_dir() and p.name in known)
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
            row: dict = {
                "method": m,
                "task": ref.full_name,
                "done": [],
                "stale": [],
                "failed": [],
                "corrupt": [],
                "missing": [],
                "errors": {},
                "stale_fields": {},
            }
            for st in task_instances(ws, m, ref, layout):
                row["done" if st.state == "ok" else st.state].append(st.index)
                if st.state == "failed":
                    row["errors"][st.index] = (st.meta or {}).get("error", "?")
                elif st.state == "stale":
                    row["stale_fields"][st.index] = st.detail
            rows.append(row)
    return rows
