"""Runner benchmark (issue 7): a study of >= 200 short CPU-bound jobs run sequentially, with
``--jobs 2`` and on a Dask LocalCluster; wall times, speed-up and the runner's per-job
overhead beside the methods' own CPU time.

    python benchmarks/runner.py [--quick]

Overhead per job = (wall time - sum of the jobs' own CPU seconds from meta.json) / jobs,
for the sequential executor (one job at a time, so wall ~ CPU plus overhead).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATASETS = [f"{f}-8{v}" for f in ("kin", "pumadyn", "bank") for v in ("fh", "fm", "nh", "nm")]


def study(quick: bool) -> list[str]:
    sizes = ["std.256"] if quick else ["std.256", "std.512"]
    return [f"{d}/{s}" for d in DATASETS for s in sizes]


def run(root: Path, tasks: list[str], *extra: str) -> float:
    env = dict(os.environ, DELVE_ROOT=str(root))
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "delve_bench",
            "run",
            "knn-cv-1",
            "lin-1",
            *tasks,
            "--budget-mode",
            "work",
            "-q",
            *extra,
        ],
        env=env,
        check=True,
    )
    return time.perf_counter() - t


def own_cpu(root: Path) -> tuple[int, float]:
    metas = [json.loads(p.read_text()) for p in (root / "results").rglob("meta.json")]
    return len(metas), sum(m["cpu_seconds"] for m in metas)


def main() -> None:
    quick = "--quick" in sys.argv
    tasks = study(quick)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (
            ("sequential", ()),
            ("--jobs 2", ("--jobs", "2")),
            ("--dask local:2", ("--dask", "local:2")),
            ("--dask local:1", ("--dask", "local:1")),
        ):
            root = Path(tmp) / label.replace(" ", "_").replace(":", "")
            root.mkdir()
            wall = run(root, tasks, *extra)
            n, cpu = own_cpu(root)
            rows.append((label, n, wall, cpu))
    seq = rows[0][2]
    print(
        f"study: knn-cv-1 + lin-1 on {len(tasks)} tasks ({rows[0][1]} jobs), work budgets, "
        f"{os.cpu_count()} cores"
    )
    print(
        f"{'executor':<16}{'jobs':>6}{'wall s':>9}{'method CPU s':>14}{'speed-up':>10}{'overhead ms/job':>17}"
    )
    for label, n, wall, cpu in rows:
        slots = 2 if "2" in label else 1
        overhead = (wall * slots - cpu) / n * 1e3
        print(f"{label:<16}{n:>6}{wall:>9.2f}{cpu:>14.2f}{seq / wall:>10.2f}{overhead:>17.1f}")
    print(
        "overhead ms/job = (wall x workers - method CPU) / jobs: process start, data loading, encoding, "
        "writing files, bookkeeping"
    )


if __name__ == "__main__":
    main()
