"""Rasmussen (1996) Fig. 5.2: what bagging does to MARS, through ``delve run`` and
``delve compare``.

For every kin and pumadyn prototask whose data is present and every training-set size,
runs mars3.6-1 and mars3.6-bag-1 (``delve run``), then compares them (``delve compare
--json``, squared error, the hierarchical paired t-test) and prints the thesis' table:
the expected decrease in squared error from bagging, r = 100 (L_plain - L_bag) / L_plain,
with the p-value of the paired test in percent (rounded up), beside the thesis' r. The
summary counts improvements and significant losses and averages r per size, as the
thesis does (bagging improved 76 of 80 tasks and never lost significantly; average r
25.1, 18.9, 14.3, 8.7, 4.3 % at n = 64 .. 1024).

    .venv/bin/python benchmarks/mars_bagging.py --root /tmp/mars-bagging --jobs 2

Finished instances are kept in ``--root``: rerunning only prints the table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from delve_bench.workspace import cache_dir, shipped_data_dir

SIZES = [64, 128, 256, 512, 1024]
# Rasmussen (1996) Fig. 5.2: r in percent per task and size
THESIS = {
    "kin-32fh": [36.4, 27.2, 8.9, 3.7, -3.8],
    "kin-32fm": [26.3, 24.1, 10.8, -8.1, -5.7],
    "kin-32nh": [40.1, 28.7, 23.6, 12.3, 6.8],
    "kin-32nm": [25.8, 28.8, 21.7, 13.0, 6.1],
    "kin-8fh": [37.3, 16.0, 16.8, 13.2, 3.8],
    "kin-8fm": [37.0, 17.0, 13.6, 13.0, 9.8],
    "kin-8nh": [20.7, 17.6, 11.6, 8.3, 9.4],
    "kin-8nm": [31.3, 19.2, 16.0, 11.5, 7.7],
    "pumadyn-32fh": [21.3, 32.7, 11.4, 9.0, 2.6],
    "pumadyn-32fm": [4.3, 24.2, 22.4, 3.8, 3.8],
    "pumadyn-32nh": [25.0, 22.2, 9.3, 10.4, 3.3],
    "pumadyn-32nm": [28.3, -23.9, 22.5, 16.8, 5.3],
    "pumadyn-8fh": [12.9, 3.6, 4.5, 5.5, 3.6],
    "pumadyn-8fm": [20.2, 15.1, 8.4, 4.4, 5.9],
    "pumadyn-8nh": [12.1, 19.0, 10.5, 10.1, 4.0],
    "pumadyn-8nm": [22.7, 30.3, 17.0, 13.0, 7.5],
}
THESIS_AVERAGE = [25.1, 18.9, 14.3, 8.7, 4.3]
PLAIN, BAG = "mars3.6-1", "mars3.6-bag-1"


def delve(root: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "delve_bench", "--root", str(root), *args]
    return subprocess.run(cmd, capture_output=True, text=True)


def available(names: list[str]) -> list[str]:
    """The datasets whose data file is on DELVE_DATA_PATH, in the cache or shipped."""
    paths = [Path(p) for p in os.environ.get("DELVE_DATA_PATH", "").split(os.pathsep) if p]
    paths += [cache_dir(), shipped_data_dir()]
    return [d for d in names if any((p / f"{d}.data.gz").is_file() for p in paths)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", default="mars-bagging", help="workspace (results are kept)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--datasets", help="comma-separated (default: every kin/pumadyn with data)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    args = ap.parse_args()
    root = Path(args.root)
    root.mkdir(parents=True, exist_ok=True)
    names = args.datasets.split(",") if args.datasets else available(sorted(THESIS))
    sizes = [int(s) for s in args.sizes.split(",")]
    tasks = [f"{d}/std.{n}" for d in names for n in sizes]
    r = delve(root, "run", PLAIN, BAG, *tasks, "--jobs", str(args.jobs), "-q")
    if r.returncode != 0:
        sys.exit(f"delve run failed ({r.returncode}):\n{r.stderr[-3000:]}")
    rows = {}
    for task in tasks:
        c = delve(root, "compare", PLAIN, BAG, task, "--json", "-l", "S")
        if c.returncode != 0:
            sys.exit(c.stderr)
        res = json.loads(c.stdout)
        res = res[0] if isinstance(res, list) else res
        d, n = task.split("/std.")
        r_pct = 100.0 * (res["mean_a"] - res["mean_b"]) / res["mean_a"]
        rows[d, int(n)] = (r_pct, res["p"])
    print_table(names, sizes, rows)


def print_table(names, sizes, rows) -> None:
    cols = "".join(f" | {n:>5d} r   p% thesis" for n in sizes)
    print(f"{'task':13s}{cols}")
    for d in names:
        line = f"{d:13s}"
        for n in sizes:
            r, p = rows[d, n]
            t = THESIS[d][SIZES.index(n)]
            line += f" | {r:7.1f} {math.ceil(100 * p):3d} {t:6.1f}"
        print(line)
    print(f"{'average':13s}", end="")
    for n in sizes:
        ours = [rows[d, n][0] for d in names]
        theirs = [THESIS[d][SIZES.index(n)] for d in names]
        print(f" | {sum(ours) / len(ours):7.1f}     {sum(theirs) / len(theirs):6.1f}", end="")
    print()
    allr = list(rows.values())
    better = sum(r > 0 for r, _ in allr)
    sig_better = sum(r > 0 and p < 0.05 for r, p in allr)
    sig_worse = sum(r < 0 and p < 0.05 for r, p in allr)
    print(
        f"\nbagging improved {better} of {len(allr)} tasks ({sig_better} significantly, "
        f"p < 0.05); significantly worse on {sig_worse}."
    )
    print(
        "thesis (all 16 families, 80 tasks): improved 76 of 80, never significantly worse; "
        "average r " + ", ".join(f"{a:.1f}" for a in THESIS_AVERAGE) + " % at n = 64..1024"
    )


if __name__ == "__main__":
    main()
