"""The LOOMI path of ofs-loomi-1 on one breast_cancer realisation (issue #32): J_l, the
term's lambda (and whether it was reset), the LOO and the test error against the stage l,
at the width ofs-loomi-1 uses there, and where each look-ahead p stops.

Does the selection stop where J peaks? J_l keeps climbing on the training set long after
the test error has stopped falling; the look-ahead p decides how much of that climb is
followed. The rule (51) keeps the first M >= M_min whose next p values are all <= J_M.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ofs_loomi_path.py [--set breast_cancer]
        [--realisation 1] [--inputs encoded] [--stages 25]
"""

from __future__ import annotations

import argparse

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from _ofs import INPUTS, choose_scale, kept_size, set_paths
from threadpoolctl import threadpool_limits

from delve_bench.workspace import WorkspaceDirs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="breast_cancer")
    ap.add_argument("--realisation", type=int, default=1, help="1-based, as Rätsch numbers")
    ap.add_argument("--inputs", default="encoded", choices=INPUTS)
    ap.add_argument("--stages", type=int, default=40)
    ap.add_argument("--m-min", type=int, default=2)
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    with threadpool_limits(1):
        per = set_paths(ws, a.set, a.inputs, a.stages, realisations=a.realisation)[-1]
    looks = (1, 2, 3, 5)
    chosen = {p: choose_scale(per, p, a.m_min) for p in looks}
    for p, s in chosen.items():
        M = kept_size(per[s].J, p, a.m_min)
        print(f"p = {p}: width s = {s:g} (by the final LOOMI), keeps M = {M}")
    for s in sorted(set(chosen.values()), reverse=True):
        path = per[s]
        by = ", ".join(f"p = {p}" for p in looks if chosen[p] == s)
        print(f"\n### {a.set}, realisation {a.realisation}, {a.inputs} inputs, s = {s:g} ({by})\n")
        print("| l | J_l | lambda_l | LOO error % | test error % | the size kept by |")
        print("|---:|---:|---:|---:|---:|---|")
        stops = {p: kept_size(path.J, p, a.m_min) for p in looks}
        peak = int(np.argmax(path.J)) + 1
        for l in range(1, min(len(path.J), max(stops.values()) + 3) + 1):
            mark = ", ".join(f"p={p}" for p in looks if stops[p] == l)
            lam = f"{path.lam[l - 1]:.3g}" + (" (reset)" if path.reset[l - 1] else "")
            print(
                f"| {l} | {path.J[l - 1]:.4f} | {lam} | {path.loo_err[l - 1]:.1f} "
                f"| {path.test_err[l - 1]:.1f} | {mark} |"
            )
        print(
            f"\nOver all {len(path.J)} stages J peaks at l = {peak} (J = {path.J[peak - 1]:.4f}, "
            f"test error {path.test_err[peak - 1]:.1f} %); the test error is lowest, "
            f"{path.test_err.min():.1f} %, first at l = {int(np.argmin(path.test_err)) + 1}."
        )


if __name__ == "__main__":
    main()
