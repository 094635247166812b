"""Speed benchmarks of the basis-function engine (run as a script, not a test).

1. RVM at n = 1024 on kin-8nm (instance 0 of std.1024): Tipping & Faul's fast RVM vs the
   plain re-estimation RVM (Tipping 2001) vs scikit-learn's ARDRegression on the same RBF
   design matrix (widths from the ABF stage on a 256-case subsample, to keep the
   benchmark short): CPU seconds, number of basis functions, standardised S loss.
2. SSGE PTA(1,0) forward selection over n: CPU per step stays O(P M) with the rank-one
   updates; the refit column times one add done by refactorising Sigma from scratch.

    DELVE_DATA_PATH=/work/shared/data .venv/bin/python benchmarks/basis.py
"""

from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import numpy as np

from delve_bench.methods.basis.abf import abf_widths
from delve_bench.methods.basis.design import Scaling, rbf_design
from delve_bench.methods.basis.rvm import fast_rvm, plain_rvm
from delve_bench.methods.basis.ssge import EvidenceSearch, pta

ROOT = Path(__file__).resolve().parents[1]


def load(dataset: str, size: int, inst: int = 0):
    data_dir = Path(os.environ.get("DELVE_DATA_PATH", "/work/shared/data").split(":")[0])
    with gzip.open(data_dir / f"{dataset}.data.gz", "rt") as f:
        D = np.loadtxt(f)
    d = ROOT / "tasks" / dataset / "dist" / f"std.{size}"
    tr = np.loadtxt(d / f"train.{inst}", dtype=int)
    te = np.loadtxt(d / f"test.{inst}", dtype=int)
    sc = Scaling.fit(D[tr, :-1], D[tr, -1])
    return sc.inputs(D[tr, :-1]), sc.target(D[tr, -1]), sc.inputs(D[te, :-1]), sc.target(D[te, -1])


def cpu(f):
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def rvm_table():
    X, t, Xt, tt = load("kin-8nm", 1024)
    widths = abf_widths(X, t, np.random.default_rng(0), max_n=256, max_iterations=50).widths
    B, Bt = rbf_design(X, X, widths), rbf_design(Xt, X, widths)
    var = float(np.var(tt))
    rows = []
    res, sec = cpu(lambda: fast_rvm(B, t))
    m, _ = res.state.predict(Bt[:, res.state.idx])
    rows.append(
        ("fast RVM (T&F 2003)", sec, res.state.M, res.iterations, np.mean((m - tt) ** 2) / var)
    )
    res, sec = cpu(lambda: plain_rvm(B, t, max_iterations=100))
    m, _ = res.state.predict(Bt[:, res.state.idx])
    rows.append(
        ("plain RVM (Tipping 2001)", sec, res.state.M, res.iterations, np.mean((m - tt) ** 2) / var)
    )
    try:
        from sklearn.linear_model import ARDRegression

        ard = ARDRegression(fit_intercept=False, max_iter=100, threshold_lambda=1e9)
        _, sec = cpu(lambda: ard.fit(B, t))
        nb = int(np.sum(np.abs(ard.coef_) > 1e-12))
        rows.append(
            (
                "sklearn ARDRegression",
                sec,
                nb,
                ard.n_iter_,
                np.mean((ard.predict(Bt) - tt) ** 2) / var,
            )
        )
    except ImportError:
        print("(scikit-learn not installed: ARDRegression row skipped)")
    base = rows[0][1]
    print("RVM on kin-8nm std.1024 instance 0 (same RBF design, 1024 candidates)")
    print(f"{'method':28s} {'CPU s':>8s} {'ratio':>7s} {'#BF':>5s} {'iter':>6s} {'S (std)':>8s}")
    for name, sec, nb, it, s in rows:
        print(f"{name:28s} {sec:8.2f} {sec / base:7.1f} {nb:5d} {it:6d} {s:8.4f}")


def ssge_table():
    print("\nSSGE PTA(1,0) on kin-8nm (widths from ABF, 256-case subsample)")
    print(
        f"{'n':>5s} {'#BF':>5s} {'steps':>6s} {'CPU s':>8s} {'ms/step':>8s} {'refit ms/add':>13s}"
    )
    for n in (128, 256, 512, 1024):
        X, t, _, _ = load("kin-8nm", n)
        widths = abf_widths(X, t, np.random.default_rng(0), max_n=256, max_iterations=50).widths
        B = rbf_design(X, X, widths)
        res, sec = cpu(lambda B=B, t=t: pta(EvidenceSearch(B, t), 1, 0))
        st = res.state
        # one add by refactorising Sigma from scratch instead of the rank-one update
        probe = st.copy()
        t0 = time.process_time()
        for i in range(5):
            cand = [j for j in range(st.P) if j not in probe.idx][i]
            probe.idx.append(cand)
            probe.alpha = np.append(probe.alpha, probe.alpha[0])
            probe.recompute()
        refit = (time.process_time() - t0) / 5
        print(
            f"{n:5d} {st.M:5d} {res.steps:6d} {sec:8.2f} {1e3 * sec / res.steps:8.2f} {1e3 * refit:13.2f}"
        )


if __name__ == "__main__":
    rvm_table()
    ssge_table()
