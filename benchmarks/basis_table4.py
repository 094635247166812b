"""Reproduction of Barrio, Romero & Belanche (2009) Table 4: mean number of basis functions
of the final models on the DELVE pumadyn-8, kin-8 and bank-8 tasks with 1024 training
cases.

Every run goes through the real harness, ``delve run METHOD TASK --budget-mode work`` in a
scratch workspace, and the number of basis functions is read from ``info.n_basis`` in each
instance's ``meta.json`` (already finished instances are reused, so the script can be
re-run to extend the coverage). The paper averages the 4 task instances; the full grid
(7 methods x 12 prototasks x 4 instances) costs hours because every method runs its own ABF
width stage (O(N^3) per CG evaluation), so the script takes a wall-clock deadline and
prints each row as it finishes, with the instances covered.

    OMP_NUM_THREADS=1 .venv/bin/python -u benchmarks/basis_table4.py --instances 0 --deadline 1800
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from delve_bench.study.published import BARRIO_LABEL as LABEL
from delve_bench.study.published import BARRIO_PROTOTASKS as PROTOTASKS
from delve_bench.study.published import BARRIO_TABLE4 as PAPER  # mean #BF at N = 1024


def metas(root: Path, method: str, prototask: str, instances: list[int]) -> list[dict]:
    """The finished (status ok) meta.json of the requested instances."""
    out = []
    for i in instances:
        for p in (root / "results" / method / prototask).glob(f"*/std.1024/{i}/meta.json"):
            m = json.loads(p.read_text())
            if m.get("status") == "ok":
                out.append(m)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default="/tmp/ws-b4", help="scratch delve workspace")
    ap.add_argument("--methods", default=",".join(PAPER), help="comma-separated")
    ap.add_argument("--prototasks", default=",".join(PROTOTASKS), help="comma-separated")
    ap.add_argument("--instances", default="0", help="e.g. 0 or 0-3 (the paper: 0-3)")
    ap.add_argument("--deadline", type=float, default=1800.0, help="wall seconds for new runs")
    ap.add_argument("--run-timeout", type=float, default=900.0, help="wall seconds per run")
    a = ap.parse_args()
    root = Path(a.root)
    methods = a.methods.split(",")
    protos = a.prototasks.split(",")
    lo, _, hi = a.instances.partition("-")
    instances = list(range(int(lo), int(hi or lo) + 1))
    delve = str(Path(sys.executable).parent / "delve")
    t_end = time.time() + a.deadline
    table: dict[tuple[str, str], tuple[float, int, float]] = {}

    print(f"{'method':14s} {'prototask':12s} {'inst':>4s} {'#BF':>7s} {'paper':>6s} {'CPU s':>7s}")
    for proto in protos:
        for method in methods:
            done = metas(root, method, proto, instances)
            if len(done) < len(instances) and time.time() < t_end:
                cmd = [delve, "--root", str(root), "run", method, f"{proto}/std.1024"]
                cmd += ["--instances", a.instances, "--budget-mode", "work", "-q"]
                left = max(1.0, min(a.run_timeout, t_end - time.time()))
                try:
                    subprocess.run(cmd, check=False, capture_output=True, timeout=left)
                except subprocess.TimeoutExpired:
                    pass
                done = metas(root, method, proto, instances)
            if not done:
                print(f"{method:14s} {proto:12s} {'-':>4s} {'not run':>7s}", flush=True)
                continue
            nb = sum(m["info"]["n_basis"] for m in done) / len(done)
            cpu = sum(m["cpu_seconds"] for m in done) / len(done)
            table[(method, proto)] = (nb, len(done), cpu)
            paper = PAPER[method][PROTOTASKS.index(proto)]
            print(
                f"{method:14s} {proto:12s} {len(done):4d} {nb:7.1f} {paper:6g} {cpu:7.1f}",
                flush=True,
            )

    print("\nMean #BF at N = 1024: ours / Barrio et al. Table 4 (instances averaged in brackets)")
    short = [p.replace("pumadyn", "pum") for p in protos]
    print(f"{'method':9s} " + " ".join(f"{s:>13s}" for s in short))
    for method in methods:
        cells = []
        for proto in protos:
            paper = PAPER[method][PROTOTASKS.index(proto)]
            if (method, proto) in table:
                nb, k, _ = table[(method, proto)]
                cells.append(f"{nb:6.1f}/{paper:<4g}[{k}]")
            else:
                cells.append(f"{'-':>6s}/{paper:<4g}   ")
        print(f"{LABEL[method]:9s} " + " ".join(f"{c:>13s}" for c in cells))


if __name__ == "__main__":
    main()
