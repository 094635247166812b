"""How long `delve report --plot` takes, and what reading each result once buys.

    python benchmarks/report.py --root /tmp/delve-report-bench --setup
    python benchmarks/report.py --root DIR     # any workspace

``--setup`` first runs five methods (lin-1, knn-cv-1 and three scikit-learn regressors
through the adapter, declared in the workspace's own methods/) on the 16 kin/pumadyn/bank
prototasks Barrio et al. and the thesis use, every task, ``--budget-mode work``: the "five
methods over 16 prototasks" case of the report's cross-prototask summary.

Prints the phases of the report (CPU and wall seconds) and, as the reference a user would
otherwise write, the same statistics from ``task_summary`` / ``task_comparison`` per method
and pair (which read the results again for every pair), side by side.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from delve_bench.analysis.collect import collect, result_methods, result_tasks
from delve_bench.analysis.task import task_comparison, task_summary
from delve_bench.report import write_report
from delve_bench.workspace import WorkspaceDirs

PROTOTASKS = [
    f"{fam}-{k}{kind}"
    for fam in ("kin", "pumadyn", "bank")
    for k, kind in [("8", s) for s in ("fh", "fm", "nh", "nm")]
] + ["pumadyn-32nh", "pumadyn-32nm", "bank-32nh", "bank-32nm"]
SKLEARN = {
    "ridge-sk": "plugin: sklearn.linear_model:Ridge\nparams: {alpha: 1.0}",
    "tree-sk": "plugin: sklearn.tree:DecisionTreeRegressor\nparams: {max_depth: 6}",
    "knn5-sk": "plugin: sklearn.neighbors:KNeighborsRegressor\nparams: {n_neighbors: 5}",
}


def setup(root: Path) -> None:
    (root / "methods").mkdir(parents=True, exist_ok=True)
    for name, body in SKLEARN.items():
        (root / "methods" / f"{name}.yaml").write_text(
            f"name: {name}\n{body}\nbudget: {{}}\ndescription: {name} (benchmark only)\n"
        )
    methods = ["lin-1", "knn-cv-1", *SKLEARN]
    cmd = [sys.executable, "-m", "delve_bench", "--root", str(root), "run", *methods]
    subprocess.run([*cmd, *PROTOTASKS, "--budget-mode", "work", "-q"], check=True)


def clock(f):
    c, w = time.process_time(), time.perf_counter()
    out = f()
    return time.process_time() - c, time.perf_counter() - w, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, default=Path("/tmp/delve-report-bench"))
    ap.add_argument("--setup", action="store_true", help="run the five methods first")
    args = ap.parse_args()
    if args.setup:
        setup(args.root)
    ws = WorkspaceDirs(args.root.resolve())
    methods = result_methods(ws)
    refs = result_tasks(ws, methods)
    print(f"{len(methods)} methods ({', '.join(methods)}), {len(refs)} tasks, "
          f"{len({(r.dataset, r.prototask) for r in refs})} prototasks")  # fmt: skip

    rows = []
    c, w, _ = clock(lambda: collect(ws, None, methods, "S"))
    rows.append(("statistics, read once (analysis.collect)", c, w))
    pairs = [(a, b) for i, a in enumerate(methods) for b in methods[i + 1 :]]

    def naive():
        for r in refs:
            for m in methods:
                task_summary(ws, m, r, "S")
            for a, b in pairs:
                task_comparison(ws, a, b, r, "S")

    c_ref, w_ref, _ = clock(naive)
    rows.append(("same via task_summary/task_comparison", c_ref, w_ref))
    c, w, res = clock(lambda: write_report(ws, methods=methods, losses=("S",)))
    rows.append((f"tables + index ({len(res.tables)} files)", c, w))
    c, w, res = clock(lambda: write_report(ws, methods=methods, losses=("S",), plot=True))
    rows.append((f"tables + {len(res.plots)} diagrams + index", c, w))
    cmd = [sys.executable, "-m", "delve_bench", "--root", str(ws.root), "report", "--plot"]
    c0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    rows.append(
        ("`delve report --plot` (whole command, wall only)", float("nan"), time.perf_counter() - c0)
    )
    print(f"{'phase':<52}{'CPU s':>9}{'wall s':>9}")
    for name, c, w in rows:
        print(f"{name:<52}{c:>9.2f}{w:>9.2f}")
    print(f"ratio naive / read-once statistics (CPU): {c_ref / rows[0][1]:.1f}")


if __name__ == "__main__":
    main()
