"""Budgets for the reference studies: where does each budgeted method flatten?

The thesis gave gp-mc-1 and mlp-mc-1 30 s per training case and mlp-ese-1 1.875 s per
case on a 200 MHz R4400 (Rasmussen 1996, §5.4). ``--time-scale 0.05`` (a modern core
does in 1 s what the R4400 did in 20) gives them 96 s at n = 64 and 26 min at n = 1024,
about 54 + 35 CPU hours for the thesis study's MC runs alone. This script measures the
loss against CPU time the way the thesis made Fig. 5.19: **one** run per instance at the
full 0.05 budget, with snapshots ``METHOD@F`` at F = 1/64 ... 1/2 (each the prediction a
run with F of the budget makes), so one run gives the whole curve. For mlp-ese-1, which
is not an anytime method, separate runs at a few time scales are made.

Everything goes through ``delve run`` (cpu budget mode) in a scratch workspace; the
standardised S is the harness' own (``delve stats``). Output: per method, task and F the
equivalent time scale (0.05 F), the mean training CPU seconds, the standardised S (± SE
over the instances), and S relative to the full budget. Keep it short (the machine is
shared): the defaults take about 7 CPU minutes.

    DELVE_DATA_PATH=/path/to/data python benchmarks/study_budgets.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

FULL = 0.05
FRACTIONS = (1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2)


def delve(root: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("delve")
    return subprocess.run(
        [str(exe), "--root", str(root), *args], capture_output=True, text=True, check=False
    )


def stats(root: Path, name: str, task: str) -> dict | None:
    r = delve(root, "stats", name, task, "--json")
    if r.returncode != 0:
        return None
    res = json.loads(r.stdout)  # one record per task, as a list
    return res[0] if isinstance(res, list) else res


def cpu_of(root: Path, name: str, task: str, key: str = "fit_cpu_seconds") -> float:
    ds, rest = task.split("/", 1)
    vals = []
    for p in (root / "results" / name / ds).glob(f"*/{rest.split('/')[-1]}/*/meta.json"):
        m = json.loads(p.read_text())
        if m.get("status") == "ok":
            vals.append(float(m.get(key) or m.get("cpu_seconds") or 0))
    return sum(vals) / len(vals) if vals else float("nan")


def run_cpu(root: Path, names: list[str], task: str, instances: str):
    """``delve run`` of ``names`` in cpu mode at the full time scale, two jobs at a time."""
    return delve(
        root,
        "run",
        *names,
        task,
        "--instances",
        instances,
        "--budget-mode",
        "cpu",
        "--time-scale",
        str(FULL),
        # generous: on a loaded machine wall time runs far ahead of CPU time
        "--hard-limit",
        "3000",
        "--jobs",
        "2",
        "-q",
    )


def curve(root: Path, method: str, task: str, instances: str) -> list[tuple]:
    names = [f"{method}@{format(f, 'g')}" for f in FRACTIONS] + [method]
    r = run_cpu(root, names, task, instances)
    if r.returncode not in (0, 1):
        raise SystemExit(r.stderr)
    rows = []
    for f, name in zip((*FRACTIONS, 1.0), names, strict=True):
        s = stats(root, name, task)
        if s:
            rows.append(
                (
                    f,
                    FULL * f,
                    cpu_of(root, name, task),
                    s["standardized"]["mean"],
                    s["standardized"]["se"],
                )
            )
    return rows


def ese_curve(root: Path, task: str, instances: str, scales) -> list[tuple]:
    rows = []
    for ts in scales:
        name = "mlp-ese-1" if ts == FULL else f"mlp-ese-1@{format(ts / FULL, 'g')}"
        run_cpu(root, [name], task, instances)
        s = stats(root, name, task)
        if s:
            rows.append(
                (
                    ts / FULL,
                    ts,
                    cpu_of(root, name, task, "cpu_seconds"),
                    s["standardized"]["mean"],
                    s["standardized"]["se"],
                )
            )
    # and work mode (150 training evaluations per case, deterministic), in its own store
    wroot = root / "work"
    wroot.mkdir(exist_ok=True)
    delve(
        wroot,
        "run",
        "mlp-ese-1",
        task,
        "--instances",
        instances,
        "--budget-mode",
        "work",
        "--jobs",
        "2",
        "-q",
    )
    s = stats(wroot, "mlp-ese-1", task)
    if s:
        rows.append(
            (
                float("nan"),
                float("nan"),
                cpu_of(wroot, "mlp-ese-1", task, "cpu_seconds"),
                s["standardized"]["mean"],
                s["standardized"]["se"],
            )
        )
    return rows


def show(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    print(f"{'F':>8}{'time scale':>12}{'train CPU s':>13}{'std. S':>9}{'SE':>8}{'S / S(full)':>13}")
    full = rows[-1][3] if rows else float("nan")
    for f, ts, cpu, s, se in rows:
        print(f"{f:>8.4g}{ts:>12.5g}{cpu:>13.2f}{s:>9.4f}{se:>8.4f}{s / full:>13.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default="/tmp/delve-study-budgets", help="scratch workspace")
    ap.add_argument("--instances", default="0-1", help="instances per task (default 0-1)")
    ap.add_argument("--mc-task", default="kin-8nm/std.64")
    ap.add_argument("--gp-task", default="pumadyn-8nm/std.64")
    ap.add_argument("--ese-task", default="kin-8nm/std.128")
    a = ap.parse_args()
    root = Path(a.root)
    root.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(f"full budget: the thesis' seconds x {FULL}; snapshots F of one run each")
    for method, task in (("mlp-mc-1", a.mc_task), ("gp-mc-1", a.gp_task)):
        show(f"{method} on {task}, instances {a.instances}", curve(root, method, task, a.instances))
    show(
        f"mlp-ese-1 on {a.ese_task}, instances {a.instances} (separate runs)",
        ese_curve(root, a.ese_task, a.instances, (FULL / 16, FULL / 4, FULL)),
    )


if __name__ == "__main__":
    main()
