"""Results made on delve-bench's earlier seeded instances are never mixed with results on
DELVE's own: every command reads them as stale, naming the fields that changed."""

from __future__ import annotations

import shutil

import pytest

from delve_bench import api
from delve_bench.errors import DelveError
from delve_bench.tasks.instances import generate
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import WorkspaceDirs

TASK = "kin-8nm/dist/std.64"
CHANGED = ["task.spec", "task.random_order", "task.index"]


def _seeded(spec: str) -> str:
    """The prototask as delve-bench had it before DELVE's own instances: seeded order."""
    keep = [li for li in spec.splitlines() if not li.startswith(("order:", "instances:"))]
    return "\n".join([*keep, "order: Random-order", "seed: 1996"]) + "\n"


def test_results_on_the_seeded_instances_read_as_stale_everywhere(ws: WorkspaceDirs):
    builtin = prototask_spec(ws, "kin-8nm", "dist")
    mine = ws.root / "tasks" / "kin-8nm" / "dist.yaml"
    mine.parent.mkdir(parents=True)
    mine.write_text(_seeded(builtin.path.read_text()))
    generate(ws, prototask_spec(ws, "kin-8nm", "dist"))
    for m in ("lin-1", "knn-cv-1"):
        api.run(m, TASK, root=ws, instances=[0, 1], budget_mode="work", progress=False)

    # DELVE's own instances replace the seeded ones (as the package's update did)
    shutil.copy(builtin.path, mine)
    shutil.rmtree(mine.with_suffix(""))
    generate(ws, prototask_spec(ws, "kin-8nm", "dist"))

    (row,) = [r for r in api.status("lin-1", TASK, root=ws) if r.task == TASK]
    assert row.done == [] and sorted(row.stale) == [0, 1]
    assert all(f in row.stale_fields[0] for f in CHANGED)
    p = api.plan("lin-1", TASK, root=ws, instances=[0, 1], budget_mode="work")
    assert len(p.todo) == 2 and all(set(CHANGED) <= set(f) for f in p.stale.values())
    with pytest.raises(DelveError, match="stale"):
        api.stats("lin-1", TASK, root=ws)
    with pytest.raises(DelveError, match="stale"):
        api.compare("lin-1", "knn-cv-1", TASK, root=ws)

    # rerun on DELVE's instances: only the new results are used
    api.run("lin-1", TASK, root=ws, instances=[0, 1], budget_mode="work", progress=False)
    res = api.stats("lin-1", TASK, root=ws)
    assert res.instances_used == [0, 1] and res.instances_stale == []
    with pytest.raises(DelveError, match="stale"):  # knn-cv-1's are still the old ones
        api.compare("lin-1", "knn-cv-1", TASK, root=ws)
