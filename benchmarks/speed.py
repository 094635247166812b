"""Where the time goes on the common paths, measured side by side in one run.

    python benchmarks/speed.py cli  [--baseline DIR] [--repeat 3]
    python benchmarks/speed.py blas [--baseline DIR] [--task kin-8nm/std.1024] [--instance 0]

``--baseline DIR``: a directory holding an older ``delve_bench/`` package (with the
``datasets/``, ``tasks/``, ``methods/`` and ``data/`` it ships beside it, e.g.
``git archive`` of an older commit), run beside the current code in the same call, so
both columns see the same machine load. Each command is a fresh process; its CPU is the
user + system time of it and its children (``os.wait4``), its wall time the elapsed time.
On a machine shared with other work the wall times inflate with the load and the CPU
times do not: quote CPU, and the wall time of a quiet machine.

``cli``: ``delve --help`` (target 0.3 s), a one-task ``delve stats`` (target 1 s) of
lin-1 on generated data (hwang-g1/clean/std.256, 8 instances, run first in a scratch
workspace), and on the committed thesis study ``delve study status thesis`` (target 2 s),
``delve compare gp-map-1 mars3.6-bag-1 --with thesis`` (all 83 tasks both have, target
3 s) and ``delve report kin-8nm --with thesis --methods gp-map-1,lin-1`` (target 3 s).
Each is run ``--repeat`` times; the fastest is shown (the least disturbed by other work),
and the CPU of the first run. Every tree starts with an empty user cache
(``XDG_CACHE_HOME``): a study's committed files are checked in full on their first read
and remembered by content (:mod:`delve_bench.run.checked`), so the first run of a
command that reads them is the one without that cache.

``blas``: gp-map-1 through ``delve run`` in cpu budget mode on one instance (150
evaluations of the thesis' conjugate gradients; its cpu budget never binds), with the
default of one BLAS thread per job and with ``--blas-threads`` equal to the cores of the
machine (what every cpu-mode job got before the runner set one thread).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load() -> str:
    return "load average " + ", ".join(Path("/proc/loadavg").read_text().split()[:3])


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(CPU seconds of the process and its children, wall seconds) of one command."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode})")
    return ru.ru_utime + ru.ru_stime, wall


def trees(baseline: str | None) -> list[tuple[str, str | None]]:
    """(label, PYTHONPATH) of each code tree to measure: the baseline first."""
    out: list[tuple[str, str | None]] = []
    if baseline:
        if not (Path(baseline) / "delve_bench").is_dir():
            sys.exit(f"{baseline}: no delve_bench/ package there")
        out.append(("baseline", str(Path(baseline).resolve())))
    out.append(("current", str(REPO)))
    return out


def env_for(path: str | None, root: Path, cache: Path | None = None) -> dict:
    env = dict(os.environ, DELVE_ROOT=str(root))
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    return env


def delve(*args: str) -> list[str]:
    return [sys.executable, "-m", "delve_bench", *args]


def cli(baseline: str | None, repeat: int) -> None:
    codes = trees(baseline)
    print(f"{load()} at the start; {os.cpu_count()} cores; fastest of {repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        env = env_for(str(REPO), scratch)
        task = "hwang-g1/clean/std.256"
        subprocess.run(
            delve("run", "lin-1", task, "--budget-mode", "work", "-q"),
            cwd=scratch,
            env=env,
            check=True,
        )
        report = ["report", "kin-8nm", "--with", "thesis", "--methods", "gp-map-1,lin-1"]
        cases = [
            ("delve --help", ["--help"], scratch, 0.3),
            (f"delve stats lin-1 {task}", ["stats", "lin-1", task], scratch, 1.0),
            ("delve study status thesis", ["study", "status", "thesis"], REPO, 2.0),
            (
                "delve compare gp-map-1 mars3.6-bag-1 --with thesis",
                ["compare", "gp-map-1", "mars3.6-bag-1", "--with", "thesis"],
                REPO,
                3.0,
            ),
            (" ".join(["delve", *report]), [*report, "--out", str(scratch / "report")], REPO, 3.0),
        ]
        caches = {label: scratch / f"cache-{label}" for label, _ in codes}
        for _, path in codes:  # byte-compiled beforehand: no first run pays for that
            pkg = str(Path(path or REPO) / "delve_bench")
            subprocess.run([sys.executable, "-m", "compileall", "-q", pkg], check=True)
        head = "".join(
            f"{label + ' CPU s':>16}{'(first)':>9}{label + ' wall s':>17}" for label, _ in codes
        )
        print(f"{'command':<68}{head}{'target s':>10}")
        for name, args, root, target in cases:
            cells = ""
            for label, path in codes:
                # cwd: the scratch folder, so that `-m delve_bench` imports the tree asked for
                e = env_for(path, root, caches[label])
                runs = [timed(delve(*args), scratch, e) for _ in range(repeat)]
                cpu, wall = min(r[0] for r in runs), min(r[1] for r in runs)
                cells += f"{cpu:>16.2f}{runs[0][0]:>9.2f}{wall:>17.2f}"
            print(f"{name:<68}{cells}{target:>10.1f}")
    print(f"{load()} at the end")


def blas(baseline: str | None, task: str, instance: int) -> None:
    cores = os.cpu_count() or 1
    rows = []
    print(f"gp-map-1 on {task} #{instance}, cpu budget mode; {cores} cores; {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in trees(baseline):
            settings = [("default", ())]
            if label == "current":
                settings.append((f"--blas-threads {cores}", ("--blas-threads", str(cores))))
            for what, extra in settings:
                root = Path(tmp) / f"{label}-{len(rows)}"
                root.mkdir()
                args = ["run", "gp-map-1", task, "--instances", str(instance)]
                args += ["--budget-mode", "cpu", "-q", *extra]
                cpu, wall = timed(delve(*args), root, env_for(path, root))
                (meta_path,) = (root / "results").rglob("meta.json")
                meta = json.loads(meta_path.read_text())
                if meta.get("status") != "ok":
                    sys.exit(f"{label} {what}: {meta.get('error')}")
                rows.append((f"{label} {what}", meta, cpu, wall))
    print(
        f"{'code, threads':<30}{'job CPU s':>11}{'job wall s':>12}{'fit CPU s':>11}"
        f"{'process CPU s':>15}{'process wall s':>16}{'evaluations':>13}"
    )
    for name, meta, cpu, wall in rows:
        evals = (meta.get("info") or {}).get("evaluations", "?")
        print(
            f"{name:<30}{meta['cpu_seconds']:>11.2f}{meta['wall_seconds']:>12.2f}"
            f"{meta['fit_cpu_seconds']:>11.2f}{cpu:>15.2f}{wall:>16.2f}{evals!s:>13}"
        )
    print(f"{load()} at the end")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["cli", "blas"])
    ap.add_argument("--baseline", metavar="DIR")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--task", default="kin-8nm/std.1024")
    ap.add_argument("--instance", type=int, default=0)
    a = ap.parse_args()
    if a.what == "cli":
        cli(a.baseline, a.repeat)
    else:
        blas(a.baseline, a.task, a.instance)


if __name__ == "__main__":
    main()
