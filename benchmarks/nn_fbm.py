"""mlp-mc-1 against Radford Neal's own software (FBM) on the same task instances (issue 5).

Runs the thesis' mlp-mc-1 script (Rasmussen 1996 App. A.4) with FBM's programs on
delve-bench's encoded instances of a task, and delve-bench's port for the same number of
main-phase iterations, then scores both with the same code: DELVE's pooled standardised S,
A and L over the instances (as ``benchmarks/nn.py``), for predictions from 100 states spread
over iterations [v/3, v] (the thesis' "discard the first third"), plus CPU ms per iteration.

FBM is not part of delve-bench. Build it yourself and point ``--fbm-bin`` (or ``FBM_BIN``)
at the directory holding net-spec, model-spec, data-spec, rand-seed, net-gen, mc-spec,
net-mc and net-pred. Old releases (bnn.1996-08-26, FBM 2004-11-10: ``make`` in util/, mc/
and net/; old C needs ``gcc -std=gnu89``) and the current one (after 2020: SIMD, SLEEF,
``-O3 -march=native``; for a double-precision build run ``make`` in util/, mc/ and net/
with ``NET_PRECISION=double``) do the same arithmetic for this script; the current one,
about four times faster than 2004's, is the speed reference of issue 30 (the port at most
1.0 x its CPU time per iteration). The post-2020 ``net-spec`` names its prior groups; this
script tries the old positional form first and falls back to the named one.

    FBM_BIN=/path/to/fbm/bin .venv/bin/python benchmarks/nn_fbm.py --iterations 3000

Network size: H = 25 for 256 training cases and 8 inputs (thesis §3.7), the same rule as the
port's :func:`delve_bench.methods.mlp.network.mc_hidden_units`. Seeds: 1000 + instance for both.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _instances import encoded_instance  # noqa: E402
from nn import _decode, _standardise  # noqa: E402

from delve_bench.methods.base import Budget  # noqa: E402
from delve_bench.methods.mlp.mc import predictive, run_chain, select_states  # noqa: E402
from delve_bench.methods.mlp.network import mc_hidden_units  # noqa: E402

PRIORS = "/ - x0.2:0.5:1 0.1:0.5 - x0.05:0.5 x0.2:0.5:1 1"  # App. A.4, `/ ti ih bh th ho io bo`
GROUPS = ("ti", "ih", "bh", "th", "ho", "io", "bo")


def fbm_chain(bin_dir: Path, work: Path, i: int, X, y, Xt, yt_enc, iterations: int) -> float:
    """Run the App. A.4 script on one instance in ``work``; return CPU ms per main iteration."""
    np.savetxt(work / f"train.{i}", np.column_stack([X, y]), fmt="%.17g")
    np.savetxt(work / f"test.{i}", np.column_stack([Xt, yt_enc]), fmt="%.17g")
    log = f"log.{i}"
    H = mc_hidden_units(len(X), X.shape[1])
    script = [
        ["net-spec", log, str(X.shape[1]), str(H), "1", *PRIORS.split()],
        ["model-spec", log, "real", "0.05:0.5"],
        ["data-spec", log, str(X.shape[1]), "1", "/", f"train.{i}", "."],
        ["rand-seed", log, str(1000 + i)],
        ["net-gen", log, "fix", "0.1", "0.5"],
        ["mc-spec", log, "repeat", "10", "sample-noise", "heatbath", "hybrid", "100:10", "0.15"],
        ["net-mc", log, "1"],
        ["mc-spec", log, "sample-sigmas", "heatbath", "0.95", "hybrid", "100:10", "0.15", "negate"],
    ]
    (work / log).unlink(missing_ok=True)
    if subprocess.run([str(bin_dir / "net-spec"), *script[0][1:]], cwd=work,
                      capture_output=True).returncode:  # fmt: skip
        # FBM after 2020 names the prior groups (ih=... bh=...) instead of listing them
        named = [f"{g}={p}" for g, p in zip(GROUPS, PRIORS.split()[1:], strict=True) if p != "-"]
        script[0] = ["net-spec", log, str(X.shape[1]), str(H), "1", "/", *named]
        (work / log).unlink(missing_ok=True)
        subprocess.run([str(bin_dir / "net-spec"), *script[0][1:]], cwd=work, check=True)
    for cmd in script[1:]:
        subprocess.run([str(bin_dir / cmd[0]), *cmd[1:]], cwd=work, check=True)
    t0 = os.times()
    subprocess.run([str(bin_dir / "net-mc"), log, str(iterations + 1)], cwd=work, check=True)
    t1 = os.times()
    return (
        1000
        * (t1.children_user + t1.children_system - t0.children_user - t0.children_system)
        / iterations
    )


def fbm_predict(bin_dir: Path, work: Path, i: int, lo: int, hi: int):
    """FBM's mean and median guesses and log densities (encoded units) from 100 networks
    spread over iterations lo..hi (``net-pred bnd`` / ``bp``)."""

    def run(opts: str) -> np.ndarray:
        out = subprocess.run(
            [str(bin_dir / "net-pred"), opts, f"log.{i}", f"{lo}:{hi}+100", "/", f"test.{i}", "."],
            cwd=work, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return np.array([[float(v) for v in line.split()] for line in out.strip().splitlines()])

    nd = run("bnd")  # columns: mean guess, its squared error, median guess, its absolute error
    return nd[:, 0], nd[:, 2], run("bp")[:, 0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fbm-bin", default=os.environ.get("FBM_BIN"), help="FBM's bin directory")
    ap.add_argument("--task", default="kin-8nm/std.256")
    ap.add_argument("--instances", default="0,1,2,3,4,5,6,7")
    ap.add_argument("--iterations", type=int, default=3000, help="main-phase iterations")
    a = ap.parse_args()
    if not a.fbm_bin or not (Path(a.fbm_bin) / "net-mc").exists():
        sys.exit("nn_fbm: give --fbm-bin DIR (or FBM_BIN) with FBM's net-* and mc-spec programs")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    bin_dir, insts = Path(a.fbm_bin).resolve(), [int(v) for v in a.instances.split(",")]
    ranges = [(v // 3, v) for v in (300, 1000, 3000, 10000) if v <= a.iterations]
    fbm = {r: [] for r in ranges}
    port = {r: [] for r in ranges}
    ms_fbm, ms_port = [], []
    with tempfile.TemporaryDirectory(prefix="delve-fbm-") as tmp:
        work = Path(tmp)
        for i in insts:
            X, y, Xt, yt, coding = encoded_instance(a.task, i)
            ms_fbm.append(fbm_chain(bin_dir, work, i, X, y, Xt, coding.target(yt), a.iterations))
            t = time.process_time()
            ch = run_chain(X, y[:, None], np.random.default_rng(1000 + i),
                           Budget(mode="work", work=a.iterations + 10), keep=2000)  # fmt: skip
            ms_port.append(1000 * (time.process_time() - t) / (ch.iterations + 10))
            for lo, hi in ranges:
                mean, median, logd = fbm_predict(bin_dir, work, i, lo, hi)
                fbm[(lo, hi)].append(
                    (yt, coding.decode(mean), coding.decode(median), logd + coding.log_jacobian)
                )
                st = select_states(ch.saved, 100, lo, hi, key="iteration")
                port[(lo, hi)].append(_decode(predictive(ch.shape, st, Xt), coding, yt))
            print(f"  instance {i}: FBM {ms_fbm[-1]:.2f} ms/iteration, port {ms_port[-1]:.2f}",
                  flush=True)  # fmt: skip
    print(f"\n== mlp-mc-1 on {a.task}, instances {a.instances}: FBM vs delve-bench ==")
    print(
        f"  {'iterations':>12} | {'FBM S':>6} {'A':>6} {'L':>7} | {'port S':>6} {'A':>6} {'L':>7}"
    )
    for r in ranges:
        f, p = _standardise(fbm[r]), _standardise(port[r])
        print(f"  {r[0]:>5}:{r[1]:<6} | {f[0]:6.3f} {f[1]:6.3f} {f[2]:7.3f} |"
              f" {p[0]:6.3f} {p[1]:6.3f} {p[2]:7.3f}")  # fmt: skip
    print(f"  CPU ms per main iteration: FBM {np.mean(ms_fbm):.2f}, port {np.mean(ms_port):.2f}"
          f" (port/FBM {np.mean(ms_port) / np.mean(ms_fbm):.2f}; target <= 1.0)")  # fmt: skip
    print(f"  FBM: {bin_dir}")


if __name__ == "__main__":
    main()
