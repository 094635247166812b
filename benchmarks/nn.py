"""Speed and accuracy of the neural-network methods (issue 5).

1. mlp-mc-1 on kin-8nm/std.256 (and pumadyn-8nm/std.256): one long chain per instance,
   then the standardised S, A and L losses that a run stopped at CPU time t would give
   (prediction from the states in [t/3, t], as the thesis' Fig. 5.19 was made by
   continuing runs), against CPU seconds and against main-phase iterations, plus the
   cost per iteration. Anchor (Neal's FBM, thesis script, same kind of machine,
   kin-8nm 256/512): S 0.146, A 0.356, L about -0.98 after ~300 iterations,
   3.15 ms per iteration; least squares S 0.579.
2. mlp-ese-1 against scikit-learn's MLPRegressor(early_stopping=True) in an ensemble of
   the same size (same H, tanh, max_iter 2000, otherwise defaults), on kin-8nm and
   pumadyn-8nm at n = 256 and 1024: CPU seconds and standardised S side by side.

Losses are standardised as DELVE does: S by the variance and A by the mean absolute
deviation from the median of the test targets of all instances pooled; L minus the loss
of a Gaussian with their mean and variance.

    .venv/bin/python benchmarks/nn.py [--part mc|ese|all]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _instances import encoded_instance  # noqa: E402

from delve_bench.methods.base import Budget, FitContext  # noqa: E402
from delve_bench.methods.mlp.ese import MlpEse  # noqa: E402
from delve_bench.methods.mlp.mc import predictive, run_chain, select_states  # noqa: E402

TIME_SCALE = 0.05  # the harness default: a modern core = 20 x the 1996 machine


def _standardise(parts):
    """Pooled DELVE standardisation of per-instance (yte, mean, median, logdens) tuples."""
    y = np.concatenate([p[0] for p in parts])
    var, mad = np.var(y, ddof=1), np.mean(np.abs(y - np.median(y)))
    base_L = 0.5 * np.log(2 * np.pi * var) + 0.5 * np.mean((y - y.mean()) ** 2) / var
    S = np.mean([np.mean((p[0] - p[1]) ** 2) for p in parts]) / var
    A = np.mean([np.mean(np.abs(p[0] - p[2])) for p in parts]) / mad
    L = None
    if parts[0][3] is not None:
        L = np.mean([np.mean(-p[3]) for p in parts]) - base_L
    return S, A, L


def _decode(pred, coding, yte):
    logd = None
    if pred.density is not None:
        logd = pred.density.logpdf(coding.target(yte)) + coding.log_jacobian
    return yte, coding.decode(pred.mean), coding.decode(pred.point_for_A), logd


def _ols(task, instances):
    parts = []
    for i in instances:
        X, y, Xt, yt, coding = encoded_instance(task, i)
        A = np.hstack([X, np.ones((len(X), 1))])
        beta = np.linalg.lstsq(A, y, rcond=None)[0]
        m = coding.decode(np.hstack([Xt, np.ones((len(Xt), 1))]) @ beta)
        parts.append((yt, m, m, None))
    return _standardise(parts)[0]


def bench_mc(task: str, instances: list[int], seconds: float, grid: list[float]):
    print(f"\n== mlp-mc-1 on {task}, instances {instances}, {seconds:g} CPU s each ==")
    chains, data = [], []
    for i in instances:
        X, y, Xt, yt, coding = encoded_instance(task, i)
        t = time.process_time()
        ch = run_chain(X, y[:, None], np.random.default_rng(1000 + i), Budget(mode="cpu", cpu_seconds=seconds),
                       keep=1500)  # fmt: skip
        cpu = time.process_time() - t
        ms = 1000 * ch.saved[-1].cpu / (ch.iterations + 10)
        acc = ch.main_accepted / ch.iterations
        print(f"  instance {i}: {ch.iterations} iterations in {cpu:.1f} s, "
              f"{ms:.2f} ms/iteration (FBM 3.15: x{ms / 3.15:.2f}), acceptance {acc:.3f}")  # fmt: skip
        chains.append(ch)
        data.append((Xt, yt, coding))
    lsq = _ols(task, instances)

    def curve(key, points, label):
        print(f"\n  {label:>10} {'S':>7} {'A':>7} {'L':>7}   (least squares S {lsq:.3f})")
        for v in points:
            parts = []
            for ch, (Xt, yt, coding) in zip(chains, data, strict=True):
                st = select_states(ch.saved, 100, v / 3, v, key=key)
                parts.append(_decode(predictive(ch.shape, st, Xt), coding, yt))
            S, A, L = _standardise(parts)
            print(f"  {v:>10g} {S:7.3f} {A:7.3f} {L:7.3f}")

    per = []
    for ch, (Xt, yt, coding) in zip(chains, data, strict=True):
        p = _decode(predictive(ch.shape, select_states(ch.saved, 100), Xt), coding, yt)
        per.append(np.mean((p[0] - p[1]) ** 2) / np.var(yt, ddof=1))
    print("  per-instance standardised S at the end:", " ".join(f"{v:.3f}" for v in per))
    curve("cpu", grid, "CPU s")
    its = min(c.iterations for c in chains)
    curve("iteration", [v for v in (30, 75, 150, 300, 600, 1200, 2400, 4800) if v <= its],
          "iterations")  # fmt: skip


def bench_ese(tasks: list[str], instances: dict[int, list[int]], mode: str):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPRegressor

    print(f"\n== mlp-ese-1 ({mode} budget) vs sklearn MLPRegressor(early_stopping) ensemble ==")
    print(f"  {'task':22} {'ese CPU s':>9} {'ese S':>7} {'K':>3} {'skl CPU s':>9} {'skl S':>7}"
          f" {'CPU ratio':>9} {'OLS S':>7}")  # fmt: skip
    for task in tasks:
        n = int(task.rsplit(".", 1)[1])
        ese_parts, skl_parts, t_ese, t_skl, ks = [], [], 0.0, 0.0, []
        for i in instances[n]:
            X, y, Xt, yt, coding = encoded_instance(task, i)
            if mode == "cpu":
                b = Budget(mode="cpu", cpu_seconds=1.875 * n * TIME_SCALE)
            else:
                b = Budget(mode="work", work=150 * n)
            ctx = FitContext.seeded(seed=i, budget=b, kinds=X.shape[1])
            t = time.process_time()
            m = MlpEse()
            m.fit(X, y, ctx)
            p = m.predict(Xt)
            t_ese += time.process_time() - t
            ese_parts.append(_decode(p, coding, yt))
            K, H = ctx.info["ensemble_size"], ctx.info["hidden_units"]
            ks.append(K)
            t = time.process_time()
            preds = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                for k in range(K):
                    r = MLPRegressor(hidden_layer_sizes=(H,), activation="tanh", early_stopping=True,
                                     validation_fraction=1 / 3, max_iter=2000, random_state=k)  # fmt: skip
                    preds.append(r.fit(X, y).predict(Xt))
            t_skl += time.process_time() - t
            mean = coding.decode(np.mean(preds, axis=0))
            skl_parts.append((yt, mean, mean, None))
        S1, S2 = _standardise(ese_parts)[0], _standardise(skl_parts)[0]
        print(f"  {task:22} {t_ese / len(ks):9.1f} {S1:7.3f} {np.mean(ks):3.0f} "
              f"{t_skl / len(ks):9.1f} {S2:7.3f} {t_ese / t_skl:9.2f} "
              f"{_ols(task, instances[n]):7.3f}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["mc", "ese", "all"], default="all")
    ap.add_argument("--seconds", type=float, default=30.0, help="CPU s per mlp-mc-1 chain")
    ap.add_argument("--mc-tasks", default="kin-8nm/std.256,pumadyn-8nm/std.256")
    ap.add_argument("--mc-instances", default="0,1,2,3,4,5,6,7")
    ap.add_argument("--ese-mode", choices=["cpu", "work"], default="cpu")
    ap.add_argument("--ese-instances-256", default="0,1,2,3")
    ap.add_argument("--ese-instances-1024", default="0,1")
    a = ap.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # single-threaded BLAS, so CPU seconds are one core's
    ints = lambda s: [int(v) for v in s.split(",") if v]  # noqa: E731
    if a.part in ("mc", "all"):
        grid = [g for g in (0.5, 1, 2, 4, 8, 15, 30, 60, 120) if g <= a.seconds]
        for task in a.mc_tasks.split(","):
            bench_mc(task, ints(a.mc_instances), a.seconds, grid)
    if a.part in ("ese", "all"):
        tasks = [f"{d}/std.{n}" for d in ("kin-8nm", "pumadyn-8nm") for n in (256, 1024)]
        inst = {256: ints(a.ese_instances_256), 1024: ints(a.ese_instances_1024)}
        bench_ese(tasks, inst, a.ese_mode)


if __name__ == "__main__":
    main()
