"""The decision rule behind ofs-loomi-1's error rate (issue #32): is the gap to Hong, Chen
et al. (2014) in how a test case is labelled? Mean test error (%) over the realisations
of one fitted ofs-loomi-1 per realisation, labelled by

* Z as delve scores it: the most probable class of Platt's sigmoid through 0 (the
  method's probabilities);
* sgn f with sgn(0) = -1, the paper's (2);
* sgn f with sgn(0) = +1;
* Platt's sigmoid with a free intercept B, fitted to the same LOO outputs;
* the model grown with the labels swapped (+1 <-> -1), labelled by its own sgn f with
  sgn(0) = -1 and mapped back: the paper assumes roughly balanced classes and does not
  say which class is +1.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ofs_decision.py [--sets ...]
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from classification import SETS
from threadpoolctl import threadpool_limits

from delve_bench.losses import class_losses
from delve_bench.methods.base import FitContext
from delve_bench.methods.classify.platt import fit_platt
from delve_bench.methods.registry import method_spec
from delve_bench.run.instance import load_instance
from delve_bench.run.job import first_training, fit_predict
from delve_bench.workspace import WorkspaceDirs

RULES = (
    "Z (Platt through 0)",
    "sgn f, sgn 0 = -1",
    "sgn f, sgn 0 = +1",
    "Platt with B",
    "labels swapped",
)


def errors(ws: WorkspaceDirs, method: str, task: str, i: int) -> list[float]:
    """Test error (%) of each rule in :data:`RULES` on instance ``i``."""
    enc = load_instance(ws, task, i)
    yt = enc.y_test_encoded == 1
    out = []
    for swap in (False, True):
        m = method_spec(ws, method).instantiate()
        ctx = FitContext.seeded(kinds=enc.coding.kinds, classes=enc.coding.classes)
        first = first_training(ws, task, m)
        if swap:  # the same model grown with the classes' codes exchanged
            enc = replace(enc, y_train=1 - enc.y_train)
            ctx.first_training = lambda first=first: (first()[0], 1 - first()[1])
        else:
            ctx.first_training = first
        P = fit_predict(m, enc, ctx).prediction.categorical_for("Z").probs
        f = m.decision(enc.X_test)
        if swap:
            out.append(100 * np.mean((f <= 0) != yt))
            break
        out.append(100 * class_losses(enc.y_test_encoded, P)["Z"].mean())
        out.append(100 * np.mean((f > 0) != yt))
        out.append(100 * np.mean((f >= 0) != yt))
        yb = np.where(enc.y_train == 1, 1.0, -1.0)
        out.append(100 * np.mean((fit_platt(m.loo_outputs_, yb).prob_positive(f) > 0.5) != yt))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--method", default="ofs-loomi-1")
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    print(f"### {a.method}: test error % by decision rule (mean over the realisations)\n")
    print("| data set | " + " | ".join(RULES) + " |")
    print("|---|" + "---:|" * len(RULES))
    with threadpool_limits(1):
        for name in a.sets.split(","):
            n = 1 if name == "ripley" else 10
            e = np.mean([errors(ws, a.method, SETS[name], i) for i in range(n)], axis=0)
            print(f"| {name} | " + " | ".join(f"{x:.2f}" for x in e) + " |", flush=True)


if __name__ == "__main__":
    main()
