"""Speed benchmarks of the basis-function engine (run as a script, not a test).

1. RVM at n = 1024 on kin-8nm (std.1024, instance 0), all on the *same* RBF design
   matrix (1024 candidates; ABF widths from the whole training set, as rvm-1 uses):
   Tipping & Faul's fast RVM vs Tipping's (2001) plain re-estimation RVM (all 1024
   candidates in from the start, O(M^3) per iteration), capped at ``--plain-iterations``
   (default 500) iterations, as it can need thousands (its row says whether it
   converged before the cap) vs scikit-learn's
   ARDRegression (its defaults, ``max_iter`` = 300, ``fit_intercept=False`` because the
   targets are centred). CPU seconds, ratio to the fast RVM, number of basis functions,
   iterations, standardised S loss (test MSE / test-target variance) side by side.
2. SSGE PTA(1,0) forward selection over n: ``--steps`` additions (default 200) on
   kin-8nm training sets of n cases (n = 256, 512, 1024 are the DELVE tasks' instance 0;
   2048 is a random subset of the dataset, there being no std.2048 task), widths from
   ABF on a 256-case subsample. Scoring all candidates (eq. 30) and the rank-one
   addition (eqs. 28, 32-37) cost O(P M) (P = n candidates, M in the model): their CPU
   per step ("sel+upd") divided by n times the mean M stays flat. After an addition,
   alpha and beta are re-estimated (the paper's step 7); when they move by more than
   0.1 posterior sd, Sigma, S, Q, R are recomputed from scratch at O(M^3 + P M^2)
   ("recomp": how many, "ms each"). "total" is everything per addition; "naive" is the
   paper's conceptual pseudocode, which refits the posterior for every candidate,
   O(P (N M^2 + M^3)) per step (timed on 32 candidates at the final M, scaled to P).

    OMP_NUM_THREADS=1 .venv/bin/python -u benchmarks/basis.py
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from delve_bench.data.load import find_data_file
from delve_bench.methods.basis.design import Scaling, rbf_design
from delve_bench.methods.basis.rvm import fast_rvm, plain_rvm
from delve_bench.methods.basis.ssge import EvidenceSearch
from delve_bench.methods.basis.widths import width_stage

ROOT = Path(__file__).resolve().parents[1]


def _data(dataset: str) -> np.ndarray:
    path = find_data_file(f"{dataset}.data.gz")  # DELVE_DATA_PATH, cache, shipped data
    if path is None:
        raise SystemExit(f"no data file for {dataset}")
    with gzip.open(path, "rt") as f:
        return np.loadtxt(f)


def _scaled(D: np.ndarray, tr: np.ndarray, te: np.ndarray):
    sc = Scaling.fit(D[tr, :-1], D[tr, -1])
    return sc.inputs(D[tr, :-1]), sc.target(D[tr, -1]), sc.inputs(D[te, :-1]), sc.target(D[te, -1])


def load(dataset: str, size: int, inst: int = 0):
    """Training and test sets of a DELVE task instance, with Barrio et al.'s scaling."""
    D = _data(dataset)
    d = ROOT / "tasks" / dataset / "dist" / f"std.{size}"
    tr = np.loadtxt(d / f"train.{inst}", dtype=int)
    te = np.loadtxt(d / f"test.{inst}", dtype=int)
    return _scaled(D, tr, te)


def cpu(f):
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def rvm_table(plain_iterations: int) -> None:
    X, t, Xt, tt = load("kin-8nm", 1024)
    fit, sec = cpu(lambda: width_stage(X, t, max_n=1024, max_iterations=100).optimum)
    widths = fit.widths
    B, Bt = rbf_design(X, X, widths), rbf_design(Xt, X, widths)
    var = float(np.var(tt))
    print(f"RVM on kin-8nm std.1024 instance 0: one RBF design, {B.shape[1]} candidates")
    print(f"(ABF widths: {fit.iterations} CG iterations, {sec:.1f} CPU s, not counted below)")
    head = f"{'method':34s} {'CPU s':>8s} {'ratio':>6s} {'#BF':>5s} {'iter':>6s} {'conv':>5s}"
    print(head + f" {'S (std)':>8s} {'log ML':>9s}", flush=True)
    base = None

    def row(name, sec, nb, it, conv, s, lml):
        nonlocal base
        base = base or sec
        lml_s = f"{lml:9.1f}" if lml is not None else f"{'-':>9s}"
        print(
            f"{name:34s} {sec:8.2f} {sec / base:6.1f} {nb:5d} {it:6d} {conv!s:>5s} {s:8.4f} {lml_s}",
            flush=True,
        )

    for name, run in (
        ("fast RVM (Tipping & Faul 2003)", lambda: fast_rvm(B, t)),
        (
            f"plain RVM (Tipping 2001), cap {plain_iterations}",
            lambda: plain_rvm(B, t, max_iterations=plain_iterations),
        ),
    ):
        res, sec = cpu(run)
        st = res.state
        m, _ = st.predict(Bt[:, st.idx])
        s = np.mean((m - tt) ** 2) / var
        row(name, sec, st.M, res.iterations, res.converged, s, st.log_marginal())
    try:
        from sklearn.linear_model import ARDRegression
    except ImportError:
        print("(scikit-learn not installed: ARDRegression row skipped)")
        return
    ard = ARDRegression(fit_intercept=False)
    _, sec = cpu(lambda: ard.fit(B, t))
    nb = int(np.sum(ard.coef_ != 0))
    s = np.mean((ard.predict(Bt) - tt) ** 2) / var
    conv = ard.n_iter_ < ard.max_iter
    row("sklearn ARDRegression (defaults)", sec, nb, ard.n_iter_, conv, s, None)


def _naive_step_seconds(search: EvidenceSearch, n_probe: int = 32) -> float:
    """One AddBestBasisFunction by Barrio et al.'s conceptual pseudocode (§5.1 without step 3): refit
    the posterior and the evidence for each candidate; timed on ``n_probe`` candidates
    and scaled to all P."""
    st = search.st
    out = [j for j in range(st.P) if j not in set(st.idx)][:n_probe]
    a, b = search.alpha, st.beta
    t0 = time.process_time()
    for j in out:
        Phi = st.B[:, st.idx + [j]]
        H = b * Phi.T @ Phi + a * np.eye(Phi.shape[1])
        c = cho_factor(H, lower=True)
        mu = b * cho_solve(c, Phi.T @ st.t)
        Sigma = cho_solve(c, np.eye(len(mu)))
        _ = np.sum((st.t - Phi @ mu) ** 2) + a * mu @ mu + np.trace(Sigma)
    return (time.process_time() - t0) * (st.P - st.M) / len(out)


class _Timer:
    """Accumulates the CPU time and the number of calls of a wrapped bound method."""

    def __init__(self, obj, name: str):
        self.sec, self.calls, self.inner = 0.0, 0, getattr(obj, name)
        setattr(obj, name, self)

    def __call__(self, *args):
        t0 = time.process_time()
        out = self.inner(*args)
        self.sec += time.process_time() - t0
        self.calls += 1
        return out


def ssge_table(steps: int) -> None:
    print(f"\nSSGE PTA(1,0) forward selection, {steps} additions, kin-8nm (P = n candidates)")
    print(
        f"{'n':>5s} {'M end':>5s} {'sel+upd ms':>10s} {'ns/(n M)':>8s} {'recomp':>6s}"
        f" {'ms each':>8s} {'total ms/step':>13s} {'naive ms/step':>13s}",
        flush=True,
    )
    D = _data("kin-8nm")
    rng = np.random.default_rng(0)
    for n in (256, 512, 1024, 2048):
        if n <= 1024:
            X, t, _, _ = load("kin-8nm", n)
        else:
            idx = rng.permutation(len(D))
            X, t, _, _ = _scaled(D, idx[:n], idx[n : n + 1024])
        widths = width_stage(X, t, max_n=256, max_iterations=50).widths
        B = rbf_design(X, X, widths)
        search = EvidenceSearch(B, t, stop=lambda done: done >= steps)
        adds0 = search.adds
        scores, update = _Timer(search, "add_scores"), _Timer(search.st, "add")
        recompute = _Timer(search.st, "recompute")

        def grow(s=search):  # PTA(1,0)'s loop, without building the result model
            while not s.should_stop() and s.add_best() is not None:
                pass

        _, sec = cpu(grow)
        k = search.adds - adds0
        M_end = search.st.M
        sel = 1e3 * (scores.sec + update.sec) / k
        per = 1e3 * recompute.sec / max(recompute.calls, 1)
        naive = _naive_step_seconds(search)
        print(
            f"{n:5d} {M_end:5d} {sel:10.3f} {1e6 * sel / (n * (M_end + 1) / 2):8.1f}"
            f" {recompute.calls:6d} {per:8.2f} {1e3 * sec / k:13.2f} {1e3 * naive:13.1f}",
            flush=True,
        )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--plain-iterations", type=int, default=500)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--only", choices=("rvm", "ssge"), default=None)
    a = ap.parse_args()
    if a.only != "ssge":
        rvm_table(a.plain_iterations)
    if a.only != "rvm":
        ssge_table(a.steps)
