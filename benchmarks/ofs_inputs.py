"""The input scaling under ofs-loomi-1 (issue #32). Hong, Chen et al. (2014) used Rätsch's
files as distributed (every input already standardised by Rätsch) and Ripley's data in
its own units (tau = 0.06); delve-bench methods receive DELVE's coding, (x - median) /
absDev fitted on the training set, which weights the columns differently: an isotropic
Gaussian kernel then measures another distance.

1. How much the coding re-weights Rätsch's columns: per data set, the range over the
   input columns of (SD / absDev) on realisation 1's training set (1 for every column:
   the same geometry as Rätsch's; a column with ratio r counts r times as much).
2. ofs-loomi-1's protocol (width on realisation 1, p = 1, M_min = 2) on the three
   scalings: ``encoded`` (what ofs-loomi-1 sees), ``raw`` (Rätsch's standardisation,
   Ripley's units) and ``z`` (Rätsch's standardisation redone on each training set).
3. Ripley's data in its own units at the paper's tau = 0.06: the LOOMI path and the test
   error of the first stages (the paper: 4 centres, 9.7 %).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ofs_inputs.py [--sets ...] [--stages 30]
"""

from __future__ import annotations

import argparse

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from _ofs import INPUTS, inputs_of, kept_size, protocol_result, selection_path, set_paths
from classification import SETS
from threadpoolctl import threadpool_limits

from delve_bench.data.encoding import abs_dev
from delve_bench.run.instance import load_instance
from delve_bench.workspace import WorkspaceDirs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--stages", type=int, default=30)
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    sets = a.sets.split(",")
    print("### 1. column weights of DELVE's coding relative to an SD scaling (realisation 1)\n")
    print("| data set | SD / absDev, min | median | max |")
    print("|---|---:|---:|---:|")
    for name in sets:
        raw = load_instance(ws, SETS[name], 0).raw_train
        r = raw.std(0) / abs_dev(raw)
        print(f"| {name} | {r.min():.2f} | {np.median(r):.2f} | {r.max():.2f} |")
    print("\n### 2. ofs-loomi-1's protocol by input scaling: test error % (model size)\n")
    print("| data set | " + " | ".join(INPUTS) + " |")
    print("|---|" + "---:|" * len(INPUTS))
    for name in sets:
        cells = []
        for kind in INPUTS:
            with threadpool_limits(1):
                r = protocol_result(set_paths(ws, name, kind, a.stages), 1, 2, "first")
            cells.append(f"{r['err']:.1f} ({r['size']:.1f})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    enc = load_instance(ws, SETS["ripley"], 0)
    Xtr, Xte = inputs_of(enc, "raw")
    y = np.where(enc.y_train == 1, 1.0, -1.0)
    yt = np.where(enc.y_test_encoded == 1, 1.0, -1.0)
    path = selection_path(Xtr, y, Xte, yt, 0.06, 10)
    print("\n### 3. Ripley in its own units at the paper's tau = 0.06\n")
    print("| l | J_l | lambda_l | test error % |")
    print("|---:|---:|---:|---:|")
    for l in range(len(path.J)):
        print(f"| {l + 1} | {path.J[l]:.4f} | {path.lam[l]:.3g} | {path.test_err[l]:.1f} |")
    M = kept_size(path.J, 1, 2)
    print(f"\np = 1, M_min = 2 keeps {M} centres: {path.test_err[M - 1]:.1f} % test error")


if __name__ == "__main__":
    main()
