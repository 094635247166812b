"""Runner benchmarks: the parent's work per job, and the executors side by side.

    python benchmarks/runner.py overhead [--workers 16] [--baseline DIR]   # default
    python benchmarks/runner.py executors [--quick]

``overhead``: 1296 trivial jobs (a method that predicts the training mean, three copies of
it on the 432 instances of kin-8*, pumadyn-8*, bank-8*) with ``--jobs 16``. The parent
process's own CPU seconds (user + system, read from /proc while it runs; its workers are
other processes) divided by the jobs is the runner's serial work per job: planning,
locking, dispatch, bookkeeping, progress, start-up included. Then Amdahl's law projects
the speed-up at 16 workers from the serial share s = parent work per job / sequential
time per job, for the lin-1 + knn-cv-1 study (its sequential time per job measured here
on a sample, kin-8nm) and for the trivial jobs themselves (the worst case). The
sequential time per job is taken two ways: wall seconds (inflated when other programs
share the cores, which makes s look smaller) and CPU seconds of the whole process tree,
parent, forkserver and worker (what one job costs a dedicated core, whatever the load):
the CPU projection is the one to quote on a busy machine. The load average is printed
before and after. ``--baseline DIR`` (a directory holding an older ``delve_bench/``, with
the specs and data it ships beside it) measures the parent's CPU per job of that code too,
in the same call, so the two figures see the same load.

``executors``: a study of >= 200 short CPU-bound jobs run sequentially, with ``--jobs 2``
and on a Dask LocalCluster; wall times, speed-up and the per-job overhead beside the
methods' own CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATASETS = [f"{f}-8{v}" for f in ("kin", "pumadyn", "bank") for v in ("fh", "fm", "nh", "nm")]
TRIVIAL = '''"""A trivial method: the training mean (benchmarks/runner.py)."""
import numpy as np

from delve_bench.methods.base import Method, Prediction


class Mean(Method):
    losses = ("S", "A")

    def fit(self, X, y, ctx):
        self.m = float(np.mean(y))

    def predict(self, X):
        return Prediction(np.full(len(X), self.m))
'''


def delve(root: Path, *args: str, code: str | None = None) -> subprocess.Popen:
    """``delve run ARGS`` in workspace ``root``; ``code``: another delve_bench tree to use."""
    path = str(root) if code is None else f"{code}{os.pathsep}{root}"
    e = dict(os.environ, DELVE_ROOT=str(root), PYTHONPATH=path)
    cmd = [sys.executable, "-m", "delve_bench", "run", *args, "--budget-mode", "work", "-q"]
    return subprocess.Popen(cmd, env=e, cwd=root)


def _stat(pid: int | str) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _tree(root: int) -> list[int]:
    """``root`` and its descendants now (parent links from /proc/*/stat)."""
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and (f := _stat(d)) is not None:
            kids.setdefault(int(f[1]), []).append(int(d))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += kids.get(pid, [])
    return out


def parent_cpu(p: subprocess.Popen, tree: bool = False) -> tuple[float, float]:
    """(CPU seconds until it exits, wall seconds): of the process itself, or with ``tree``
    of it and every descendant (forkserver, workers), each read from /proc while alive."""
    tck, seen, t0 = os.sysconf("SC_CLK_TCK"), {}, time.perf_counter()
    while p.poll() is None:
        for pid in _tree(p.pid) if tree else [p.pid]:
            f = _stat(pid)
            if f is not None:
                seen[pid] = max((int(f[11]) + int(f[12])) / tck, seen.get(pid, 0.0))
        time.sleep(0.02)
    if p.returncode:
        sys.exit(f"delve run failed ({p.returncode})")
    return sum(seen.values()), time.perf_counter() - t0


def load() -> str:
    return "load average " + ", ".join(Path("/proc/loadavg").read_text().split()[:3])


def amdahl(serial_share: float, workers: int) -> float:
    return 1.0 / (serial_share + (1.0 - serial_share) / workers)


def overhead(workers: int, baseline: str | None = None) -> None:
    tasks = [f"{d}" for d in DATASETS]
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "trivial.py").write_text(TRIVIAL)
        (root / "methods").mkdir()
        names = [f"mean-{k}" for k in (1, 2, 3)]
        for n in names:
            (root / "methods" / f"{n}.yaml").write_text(
                f"name: {n}\nplugin: trivial:Mean\nparams: {{}}\ndescription: the training mean\n"
            )
        base = None
        if baseline:  # the same jobs with the older code, first
            base, _ = parent_cpu(delve(root, *names, *tasks, "--jobs", str(workers), code=baseline))
            shutil.rmtree(root / "results")
        cpu, wall = parent_cpu(delve(root, *names, *tasks, "--jobs", str(workers)))
        n = len(list((root / "results").rglob("meta.json")))
        # the same command again: every job is planned and found finished (start-up + plan)
        cpu_plan, _ = parent_cpu(delve(root, *names, *tasks, "--jobs", str(workers)))
        # the sequential time per job of a real small study (lin-1 + knn-cv-1), on a sample
        sample = root / "sample"
        sample.mkdir()
        seq_cpu, seq_wall = parent_cpu(delve(sample, "lin-1", "knn-cv-1", "kin-8nm"), tree=True)
        k = len(list((sample / "results").rglob("meta.json")))
        seq = root / "seq"
        seq.mkdir()
        (seq / "trivial.py").write_text(TRIVIAL)
        (seq / "methods").mkdir()
        (seq / "methods" / "mean-1.yaml").write_text((root / "methods" / "mean-1.yaml").read_text())
        triv_cpu, triv_wall = parent_cpu(delve(seq, "mean-1", "kin-8nm", "pumadyn-8nm"), tree=True)
        kt = len(list((seq / "results").rglob("meta.json")))
    per_job = cpu / n
    print(f"runner overhead: {n} trivial jobs with --jobs {workers} on {os.cpu_count()} cores")
    print(f"  {before} at the start, {load()} at the end")
    print(f"  parent CPU: {cpu:.2f} s in all = {1e3 * per_job:.2f} ms per job (target < 2 ms)")
    if base is not None:
        print(f"  baseline {baseline}: {base:.2f} s in all = {1e3 * base / n:.2f} ms per job")
    print(f"  of which start-up and planning alone (rerun, all finished): {cpu_plan:.2f} s")
    print(f"  wall: {wall:.1f} s (workers share {os.cpu_count()} cores here)")
    for what, jobs, seq_wall_, seq_cpu_ in (
        ("lin-1 + knn-cv-1 (kin-8nm)", k, seq_wall, seq_cpu),
        ("trivial jobs (worst case)", kt, triv_wall, triv_cpu),
    ):
        print(f"  {what}, {jobs} jobs sequentially:")
        for how, t in (("CPU", seq_cpu_ / jobs), ("wall", seq_wall_ / jobs)):
            s = per_job / t
            print(
                f"    {how:>4}: {1e3 * t:7.1f} ms per job; serial share {100 * s:.2f} % -> "
                f"projected speed-up at {workers} workers {amdahl(s, workers):.1f}x (target >= 14x)"
            )


def study(quick: bool) -> list[str]:
    sizes = ["std.256"] if quick else ["std.256", "std.512"]
    return [f"{d}/{s}" for d in DATASETS for s in sizes]


def own_cpu(root: Path) -> tuple[int, float]:
    metas = [json.loads(p.read_text()) for p in (root / "results").rglob("meta.json")]
    return len(metas), sum(m["cpu_seconds"] for m in metas)


def executors(quick: bool) -> None:
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
            t = time.perf_counter()
            parent_cpu(delve(root, "knn-cv-1", "lin-1", *tasks, *extra))
            wall = time.perf_counter() - t
            n, cpu = own_cpu(root)
            rows.append((label, n, wall, cpu))
    seq = rows[0][2]
    print(
        f"study: knn-cv-1 + lin-1 on {len(tasks)} tasks ({rows[0][1]} jobs), work budgets, "
        f"{os.cpu_count()} cores"
    )
    print(
        f"{'executor':<16}{'jobs':>6}{'wall s':>9}{'method CPU s':>14}{'speed-up':>10}"
        f"{'overhead ms/job':>17}"
    )
    for label, n, wall, cpu in rows:
        slots = 2 if "2" in label else 1
        over = (wall * slots - cpu) / n * 1e3
        print(f"{label:<16}{n:>6}{wall:>9.2f}{cpu:>14.2f}{seq / wall:>10.2f}{over:>17.1f}")
    print(
        "overhead ms/job = (wall x workers - method CPU) / jobs: process start, data loading, "
        "encoding, writing files, bookkeeping"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=["overhead", "executors"], default="overhead")
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--baseline", metavar="DIR", help="another delve_bench tree, measured beside")
    a = ap.parse_args()
    if a.what == "overhead":
        overhead(a.workers, a.baseline)
    else:
        executors(a.quick)


if __name__ == "__main__":
    main()
