"""mars3.6-1 and mars3.6-bag-1 against Friedman's Fortran MARS 3.6, side by side.

For one instance of kin-8nm/std.1024 (8 inputs) and of pumadyn-32nm/std.1024 (32
inputs), encoded as the harness encodes them, this prints the CPU seconds of one fit plus
test-set prediction (best of ``--repeats``) for delve-bench's port and for the Fortran
(in-process loop, and one process per fit as a user runs it), their ratio, whether both
built the same basis functions, and the largest relative difference of the cubic test
predictions. ``--bag`` adds the 50-fold bag (the Fortran: one process per bootstrap
sample, on the same samples).

The Fortran is not part of delve-bench. Build it outside the repository from the public
mars36_fort.f with the driver next to this script (see its header), then

    MARS36_BIN=/path/to/marsref .venv/bin/python benchmarks/mars.py --bag

Without ``--fortran``/``MARS36_BIN`` the reference columns are left empty.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _instances import encoded_instance  # noqa: E402

from delve_bench.methods.base import Budget, FitContext  # noqa: E402
from delve_bench.methods.mars import MarsSettings, fit_mars  # noqa: E402
from delve_bench.methods.mars.plugins import MarsBag  # noqa: E402

TASKS = ["kin-8nm/std.1024", "pumadyn-32nm/std.1024"]


def cpu() -> float:
    return time.process_time()


def children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


class Fortran:
    """Friedman's MARS 3.6 through the driver ``marsref IN OUT [reps]``."""

    def __init__(self, binary: Path, nk: int, mi: int):
        self.binary, self.nk, self.mi = binary, nk, mi

    def run(self, X, y, Xt, reps: int = 1, work: Path | None = None):
        """(model table, cubic test predictions, CPU s per in-process fit, CPU s of the
        process)."""
        with tempfile.TemporaryDirectory(dir=work) as d:
            fin, fout = Path(d, "in"), Path(d, "out")
            with open(fin, "w") as fh:
                fh.write(f"{len(X)} {X.shape[1]} {self.nk} {self.mi} {len(Xt)}\n")
                np.savetxt(fh, np.column_stack([X, y]), fmt="%.9g")
                np.savetxt(fh, Xt, fmt="%.9g")
            c0 = children_cpu()
            subprocess.run([str(self.binary), str(fin), str(fout), str(reps)], check=True)
            proc = children_cpu() - c0
            v = np.array(fout.read_text().split(), dtype=float)
        nk, nt = self.nk, len(Xt)
        table = v[1 : 1 + 5 * nk].reshape(nk, 5)
        pred = v[1 + 5 * nk : 1 + 5 * nk + 2 * nt].reshape(nt, 2)[:, 1]
        return table, pred, float(v[-1]), proc


def same_model(fit, table) -> bool:
    """Whether the port's forward basis functions equal the Fortran's (variable, sign,
    knot to 1e-5 relative, parent) and the same ones were kept."""
    fv = table[:, 1].astype(int)
    M = int(np.count_nonzero(fv))
    if M != len(fit.forward.basis):
        return False
    for m in range(1, M + 1):
        b = fit.basis_function(m)
        v, knot, parent = table[m - 1, 1:4]
        if int(v) != b.sign * (b.variable + 1) or int(parent) != b.parent:
            return False
        if abs(knot - b.knot) > 1e-5 * max(1.0, abs(b.knot)):
            return False
    return set(np.flatnonzero(table[:M, 0] != 0) + 1) == set(fit.selected)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fortran", default=os.environ.get("MARS36_BIN"), help="the marsref binary")
    ap.add_argument("--repeats", type=int, default=7, help="best of this many timings")
    ap.add_argument("--bag", action="store_true", help="also time the 50-fold bag")
    ap.add_argument("--instance", type=int, default=0)
    args = ap.parse_args()
    ref = None
    if args.fortran and Path(args.fortran).is_file():
        ref = Fortran(Path(args.fortran), nk=15, mi=8)
    elif args.fortran:
        sys.exit(f"no Fortran binary at {args.fortran}")
    head = f"{'task':24s} {'p':>3s} {'port ms':>8s} {'F ms':>7s} {'ratio':>6s} {'F proc ms':>9s} {'same':>5s} {'max diff/sd':>12s}"
    print(f"one fit + test prediction, CPU (best of {args.repeats})")
    print(head)
    bag_rows = []
    for task in TASKS:
        X, y, Xt, _, _ = encoded_instance(task, args.instance)
        fit_mars(X, y)  # warm up
        best = np.inf
        for _ in range(args.repeats):
            c = cpu()
            fit = fit_mars(X, y, MarsSettings())
            pred = fit.predict(Xt)
            best = min(best, cpu() - c)
        cols = [f"{task:24s}", f"{X.shape[1]:3d}", f"{1e3 * best:8.1f}"]
        if ref:
            fbest, proc, table, fpred = np.inf, np.inf, None, None
            for _ in range(args.repeats):
                table, fpred, per_fit, p = ref.run(X, y, Xt, reps=20)
                fbest = min(fbest, per_fit)
                proc = min(proc, ref.run(X, y, Xt, reps=1)[3])
            diff = np.max(np.abs(pred - fpred)) / np.std(fpred)
            cols += [
                f"{1e3 * fbest:7.1f}",
                f"{best / fbest:6.2f}",
                f"{1e3 * proc:9.1f}",
                f"{'yes' if same_model(fit, table) else 'NO':>5s}",
                f"{diff:12.1e}",
            ]
        print(" ".join(cols), flush=True)
        if args.bag:
            bag_rows.append(bag(task, X, y, Xt, ref, args.instance))
    if bag_rows:
        print("\n50-fold bag: fit + test prediction, CPU s")
        print(f"{'task':24s} {'port s':>7s} {'F s':>6s} {'ratio':>6s}")
        for row in bag_rows:
            print(row)


def bag(task, X, y, Xt, ref, instance) -> str:
    """Time MarsBag and, on the same bootstrap samples, 50 Fortran processes."""
    seed = 1000 + instance
    m = MarsBag(bags=50)
    c = cpu()
    m.fit(X, y, FitContext(rng=np.random.default_rng(seed), budget=Budget(mode="work"), kinds=[]))
    m.predict(Xt)
    port = cpu() - c
    row = f"{task:24s} {port:7.2f}"
    if ref:
        rng = np.random.default_rng(seed)
        total = 0.0
        for _ in range(50):
            i = rng.integers(0, len(y), size=len(y))
            total += ref.run(X[i], y[i], Xt, reps=1)[3]
        row += f" {total:6.2f} {port / total:6.2f}"
    return row


if __name__ == "__main__":
    main()
