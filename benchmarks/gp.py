"""Speed and accuracy of gp-map-1 against scikit-learn, and gp-mc-1 against gp-map-1.

    python benchmarks/gp.py [--sizes 256 1024]
        [--instances 0] [--mc-budgets 0.25 0.5 1 2] [--no-mc]

Part 1: gp-map-1 (150 evaluations of the thesis' CG) and scikit-learn's
GaussianProcessRegressor with the equivalent kernel -- ConstantKernel * RBF(ARD) +
ConstantKernel * DotProduct (bias + linear) + WhiteKernel, the thesis' initial values,
L-BFGS-B, no restarts -- on the same DELVE-encoded kin-8nm and pumadyn-8nm instances.
Both run single-threaded (threadpoolctl); CPU time is process time of fit + predict;
S is standardised by the variance of the task's pooled test targets, as DELVE does.
(scikit-learn fits the maximum-likelihood hyperparameters; gp-map-1 the MAP ones.)

Part 2: gp-mc-1's standardised S as a function of its CPU budget (fraction of the
thesis' 30 s per case at the default --time-scale 0.05), next to gp-map-1's.
"""

from __future__ import annotations

import argparse
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from delve_bench.data import load_dataset
from delve_bench.methods.base import Budget, FitContext
from delve_bench.methods.gp import GpMap, GpMc
from delve_bench.methods.gp.model import initial_theta
from delve_bench.methods.registry import DEFAULT_TIME_SCALE
from delve_bench.run import load_instance
from delve_bench.tasks.instances import task_layout
from delve_bench.tasks.names import resolve_tasks
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import Workspace


@dataclass
class Encoded:
    X: np.ndarray
    y: np.ndarray
    Xt: np.ndarray
    yt_raw: np.ndarray
    decode: object
    var_pooled: float  # variance of the task's pooled raw test targets (S standardiser)


def load(dataset: str, size: int, instance: int) -> Encoded:
    ws = Workspace(Path.cwd())
    (ref,) = resolve_tasks(ws, [f"{dataset}/std.{size}"])
    e = load_instance(ws, ref, instance)
    layout = task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), size)
    tgt = prototask_spec(ws, ref.dataset, ref.prototask).targets[0]
    values = load_dataset(ws, ref.dataset).values
    pooled = np.concatenate([values[i.test, tgt] for i in layout.instances])
    return Encoded(
        e.X_train, e.y_train, e.X_test, e.y_test, e.coding.decode, float(np.var(pooled, ddof=1))
    )


def s_loss(d: Encoded, mean_encoded: np.ndarray) -> float:
    return float(np.mean((d.decode(mean_encoded) - d.yt_raw) ** 2) / d.var_pooled)


def run_method(method, d: Encoded, budget: Budget, seed: int = 0) -> tuple[float, float, dict]:
    ctx = FitContext.seeded(seed=seed, budget=budget, kinds=d.X.shape[1])
    c0 = time.process_time()
    method.fit(d.X, d.y, ctx)
    pred = method.predict(d.Xt)
    return time.process_time() - c0, s_loss(d, pred.mean), ctx.info


def run_sklearn(d: Encoded) -> tuple[float, float, int]:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, DotProduct, WhiteKernel
    from sklearn.gaussian_process.kernels import ConstantKernel as C

    m = d.X.shape[1]
    e = np.exp(initial_theta(m))  # the same start as gp-map-1
    w, v0, a0, a1, r2 = e[:m], e[m], e[m + 1], e[m + 2], e[m + 3]
    big = (1e-8, 1e8)
    kernel = (
        C(v0, big) * RBF(1 / np.sqrt(w), (1e-3, 1e5))
        + C(a1, big) * DotProduct(np.sqrt(a0 / a1), big)  # a1 (sigma0^2 + x.x') = a0 + a1 x.x'
        + WhiteKernel(r2, big)
    )
    gpr = GaussianProcessRegressor(kernel, alpha=0.0, n_restarts_optimizer=0, normalize_y=False)
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gpr.fit(d.X, d.y)
        mu = gpr.predict(d.Xt)
    nfev = getattr(gpr, "_nfev", None)
    return time.process_time() - c0, s_loss(d, mu), nfev


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--instances", type=int, nargs="+", default=[0])
    ap.add_argument("--datasets", nargs="+", default=["kin-8nm", "pumadyn-8nm"])
    ap.add_argument("--mc-size", type=int, default=256)
    ap.add_argument("--mc-budgets", type=float, nargs="+", default=[0.125, 0.25, 0.5, 1.0])
    ap.add_argument("--no-mc", action="store_true")
    ap.add_argument("--no-map", action="store_true")
    args = ap.parse_args()

    with threadpool_limits(1):
        if not args.no_map:
            print("Part 1: gp-map-1 vs scikit-learn GaussianProcessRegressor (1 thread)")
            hdr = f"{'task':<22}{'inst':>5}{'map cpu s':>11}{'skl cpu s':>11}{'speed-up':>9}"
            hdr += f"{'map S':>9}{'skl S':>9}{'map evals':>10}"
            print(hdr)
            for ds in args.datasets:
                for n in args.sizes:
                    for i in args.instances:
                        d = load(ds, n, i)
                        tm, sm, info = run_method(GpMap(), d, Budget(mode="work", work=150))
                        ts, ss, _ = run_sklearn(d)
                        print(
                            f"{ds + '/std.' + str(n):<22}{i:>5}{tm:>11.2f}{ts:>11.2f}"
                            f"{ts / tm:>8.1f}x{sm:>9.4f}{ss:>9.4f}{info['evaluations']:>10}",
                            flush=True,
                        )
        if not args.no_mc:
            n = args.mc_size
            print(f"\nPart 2: gp-mc-1 loss vs CPU budget, n = {n} (budget 1 = 30 s/case x ", end="")
            print(f"time-scale {DEFAULT_TIME_SCALE} = {30 * n * DEFAULT_TIME_SCALE:.0f} s)")
            print(
                f"{'task':<22}{'inst':>5}{'budget':>8}{'cpu s':>9}{'iters':>8}{'accept':>8}", end=""
            )
            print(f"{'mc S':>9}{'map S':>9}")
            for ds in args.datasets:
                for i in args.instances:
                    d = load(ds, n, i)
                    tm, sm, _ = run_method(GpMap(), d, Budget(mode="work", work=150))
                    print(f"{ds + '/std.' + str(n):<22}{i:>5}{'map':>8}{tm:>9.1f}{'':>16}", end="")
                    print(f"{'':>9}{sm:>9.4f}", flush=True)
                    for frac in args.mc_budgets:
                        secs = 30 * n * DEFAULT_TIME_SCALE * frac
                        t, s, info = run_method(GpMc(), d, Budget(mode="cpu", cpu_seconds=secs))
                        print(
                            f"{'':<22}{i:>5}{frac:>8.3g}{t:>9.1f}{info['iterations']:>8}"
                            f"{info['acceptance_rate']:>8.3f}{s:>9.4f}{sm:>9.4f}",
                            flush=True,
                        )


if __name__ == "__main__":
    main()
