"""The Bayesian lambda of ofs-loomi-1 and its resets (issue #32). Hong, Chen et al. (2014,
§6.2) say that on the six noisy sets the per-stage evidence lambda "works in full", never
reset to 1e-6, and that on banana, waveform and thyroid it is often reset as the model
grows.

1. Per data set, ofs-loomi-1 itself (every realisation): lambdas reset among the kept
   terms, among all the stages run (the kept terms and the p look-ahead terms), the model
   size, and the median kept lambda.
2. Why a reset happens: on breast_cancer realisation 1, at ofs-loomi-1's width, the 10
   evidence iterates of every stage. When a term's weight is small beside the residual
   noise the update lambda <- h / eps grows geometrically (the evidence has no finite
   maximum); ten iterates from 1e-6 pass 1e6 only when the growth factor exceeds about
   16, and the term is then reset to 1e-6: fitted in full, the opposite of the large
   lambda the evidence asks for. Such terms come after the LOOMI peak, so a short
   look-ahead keeps them out of the model.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ofs_resets.py [--sets ...] [--method ofs-loomi-1]
"""

from __future__ import annotations

import argparse

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from classification import SETS
from threadpoolctl import threadpool_limits

from delve_bench.methods.base import FitContext
from delve_bench.methods.basis.orthogonal import OrthogonalSelection
from delve_bench.methods.registry import method_spec
from delve_bench.numerics.distance import sq_distances
from delve_bench.run.instance import load_instance
from delve_bench.run.job import first_training, fit_predict
from delve_bench.workspace import WorkspaceDirs


def fit_info(ws: WorkspaceDirs, method: str, task: str, i: int) -> dict:
    """ofs-loomi-1's recorded facts (meta.json ``info``) on one instance."""
    enc = load_instance(ws, task, i)
    m = method_spec(ws, method).instantiate()
    ctx = FitContext.seeded(kinds=enc.coding.kinds, classes=enc.coding.classes)
    ctx.first_training = first_training(ws, task, m)
    return fit_predict(m, enc, ctx).info


def evidence_trace(ws: WorkspaceDirs, task: str, tau: float, stages: int) -> None:
    """The evidence iterates of each stage at width ``tau`` on instance 0."""
    enc = load_instance(ws, task, 0)
    y = np.where(enc.y_train == 1, 1.0, -1.0)
    X = enc.X_train
    sel = OrthogonalSelection(
        np.exp(-sq_distances(X, X) / tau), y, 1e-6, "loomi", "loomi", lam_update="evidence"
    )
    print(
        "\n| stage | g^2 kappa / ||e||^2 | lambda iterates 1, 2, 5, 10 | growth / iterate | kept lambda |"
    )
    print("|---:|---:|---|---:|---|")
    for _ in range(stages):
        ee = float(sel.e @ sel.e)  # the residual before the stage
        if sel.step() is None:
            break
        kap, c = sel.kappa[-1], sel.c[-1]
        lam, its = 1e-6, []
        for _it in range(10):  # the iterates of OrthogonalSelection.evidence_lambda
            g = c / (kap + lam)
            den = ee - g * g * (kap + 2 * lam)
            if g == 0 or den <= 0:
                break
            lam = (kap / (g * g * (kap + lam))) / ((sel.N - kap / (kap + lam)) / den)
            its.append(lam)
        growth = its[-1] / its[-2] if len(its) > 1 else float("nan")
        shown = ", ".join(f"{its[k]:.3g}" for k in (0, 1, 4, 9) if k < len(its))
        kept = f"{sel.lam_t[-1]:.3g}" + (" (reset)" if sel.m - 1 in sel.reset_at else "")
        print(f"| {sel.m} | {c * c / kap / ee:.4f} | {shown} | {growth:.3g} | {kept} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--method", default="ofs-loomi-1")
    ap.add_argument("--trace-stages", type=int, default=25)
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    print(f"### {a.method}: lambda resets per realisation (mean over the realisations)\n")
    print(
        "| data set | model size | resets among the kept terms | resets, all stages run | median kept lambda |"
    )
    print("|---|---:|---:|---:|---:|")
    with threadpool_limits(1):
        for name in a.sets.split(","):
            n = 1 if name == "ripley" else 10
            infos = [fit_info(ws, a.method, SETS[name], i) for i in range(n)]
            size = np.mean([f["model_size"] for f in infos])
            kept = np.mean([f["lambda_resets_kept"] for f in infos])
            run = np.mean([f["lambda_resets"] for f in infos])
            lam = np.median(np.concatenate([np.asarray(f["lambdas"]) for f in infos]))
            print(f"| {name} | {size:.1f} | {kept:.1f} | {run:.1f} | {lam:.3g} |", flush=True)
        task = SETS["breast_cancer"]
        tau = fit_info(ws, a.method, task, 0)["tau"]
        print(f"\n### breast_cancer realisation 1: the evidence iterates at tau = {tau:.3g}")
        evidence_trace(ws, task, tau, a.trace_stages)


if __name__ == "__main__":
    main()
