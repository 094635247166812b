"""Speed and accuracy of gp-map-1 and gp-mc-1: against scikit-learn, and against the floor
set by their factorisations (issue 30).

    python benchmarks/gp.py [--sizes 256 1024] [--instances 0] [--mc-budgets 0.25 0.5 1 2]
        [--no-run] [--no-floor] [--no-map] [--no-mc]

Part 0 (``--no-run`` skips it): gp-map-1 through ``delve run`` in cpu mode (its default
150 evaluations) on one 1024-case instance (``--run-task``, ``--run-instance``), beside
scikit-learn's GaussianProcessRegressor on the same instance: the CPU ratio (target at
most 0.35) and the squared-error loss ratio (target at most 1.05), and the floor: 150 x
the measured cost of one Cholesky factorisation, inverse and gradient at that n.
One BLAS thread: OPENBLAS_NUM_THREADS=1 (with OMP_NUM_THREADS, MKL_NUM_THREADS) set before
numpy is loaded (``_one_thread``: scipy's own OpenBLAS is loaded later and would otherwise
start a thread per core), threadpoolctl too, and the same for ``delve run``.

Part 1b (``--no-floor`` skips it): gp-mc-1's CPU cost per trajectory (one leapfrog step:
an evaluation of E and its gradient, plus the sampler's bookkeeping) in work mode, against
the floor of the same n: ``potrf`` (Cholesky) + ``potri`` (the inverse) + the gradient's
products (``Q^-1 o K1`` and its three n-by-(m+1) products), each timed alone here
(target: within 1.5 x).

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
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import _one_thread  # before numpy: one BLAS thread in every library
import numpy as np
from threadpoolctl import threadpool_limits

from delve_bench.data import load_dataset
from delve_bench.methods.base import Budget, FitContext
from delve_bench.methods.gp import GpMap, GpMc
from delve_bench.methods.gp.model import GPObjective, Hyper, initial_theta
from delve_bench.methods.registry import DEFAULT_TIME_SCALE
from delve_bench.run import load_instance
from delve_bench.tasks.instances import task_layout
from delve_bench.tasks.names import resolve_tasks
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import WorkspaceDirs


@dataclass
class Encoded:
    X: np.ndarray
    y: np.ndarray
    Xt: np.ndarray
    yt_raw: np.ndarray
    decode: object
    var_pooled: float  # variance of the task's pooled raw test targets (S standardiser)


def load(dataset: str, size: int, instance: int) -> Encoded:
    ws = WorkspaceDirs(Path.cwd())
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
    _SKLEARN_MEAN[id(d)] = mu
    return time.process_time() - c0, s_loss(d, mu), nfev


_SKLEARN_MEAN: dict[int, np.ndarray] = {}


def _sklearn_mean(d: Encoded) -> np.ndarray:
    """The encoded predictive mean of the last :func:`run_sklearn` on ``d``."""
    return _SKLEARN_MEAN[id(d)]


def _cpu_ms(f, reps: int) -> float:
    """Median process CPU milliseconds of ``f()`` over ``reps`` calls."""
    ts = []
    for _ in range(reps):
        c0 = time.process_time()
        f()
        ts.append(time.process_time() - c0)
    return 1000 * float(np.median(ts))


def factorisation_floor(d: Encoded, reps: int) -> dict:
    """CPU ms of one Cholesky factorisation (``potrf``), one inverse from it (``potri``)
    and the gradient's products (``Q^-1 o K1``, then ``(Q^-1 o K1) [1 X]``, ``K1 [q, q o X]``,
    ``Q^-1 [1 X]``) at the thesis' initial hyperparameters, each timed alone."""
    from scipy.linalg import lapack

    obj = GPObjective(d.X, d.y)
    Q, K1 = obj.covariance(Hyper.from_theta(initial_theta(d.X.shape[1])))
    work = np.empty_like(Q, order="F")
    L, _ = lapack.dpotrf(Q, lower=1, clean=1)
    q, _ = lapack.dpotrs(L, obj.t, lower=1)
    Ql, _ = lapack.dpotri(L, lower=1)
    Y = q[:, None] * obj.X1
    A = np.empty_like(Q, order="F")

    def chol():
        np.copyto(work, Q)
        lapack.dpotrf(work, lower=1, clean=1, overwrite_a=1)

    def inverse():
        np.copyto(work, L)
        lapack.dpotri(work, lower=1, overwrite_c=1)

    def gradient():
        np.multiply(Ql, K1, out=A)
        return A @ obj.X1, K1 @ Y, Ql @ obj.X1

    copy = _cpu_ms(lambda: np.copyto(work, Q), reps)
    out = {
        "potrf": _cpu_ms(chol, reps) - copy,
        "potri": _cpu_ms(inverse, reps) - copy,
        "gradient": _cpu_ms(gradient, reps),
    }
    out["total"] = out["potrf"] + out["potri"] + out["gradient"]
    return out


def mc_trajectory_cost(d: Encoded, iterations: int) -> tuple[float, int]:
    """gp-mc-1's CPU ms per trajectory over a work-mode run of ``iterations``."""
    m = GpMc(min_iterations=iterations)
    ctx = FitContext.seeded(seed=0, budget=Budget(mode="work", work=1), kinds=d.X.shape[1])
    c0 = time.process_time()
    m.fit(d.X, d.y, ctx)
    cpu = time.process_time() - c0
    return 1000 * cpu / ctx.info["iterations"], ctx.info["iterations"]


def delve_run_cpu(task: str, instance: int) -> tuple[float, float]:
    """gp-map-1 through ``delve run`` in cpu mode in a scratch workspace: (CPU s of the
    job as meta.json records it, mean squared error of its predictions)."""
    import pandas as pd

    with tempfile.TemporaryDirectory(prefix="delve-gp-bench-") as root:
        cmd = [sys.executable, "-m", "delve_bench", "--root", root, "run", "gp-map-1", task,
               "--instances", str(instance), "--budget-mode", "cpu", "-q"]  # fmt: skip
        env = {**os.environ, **_one_thread.ONE_THREAD}
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        metas = list(Path(root, "results").rglob("meta.json"))
        if r.returncode != 0 or len(metas) != 1:
            sys.exit(f"gp.py: delve run failed ({r.returncode}): {r.stderr[-2000:]}")
        meta = json.loads(metas[0].read_text())
        if meta.get("status") != "ok":
            sys.exit(f"gp.py: delve run: gp-map-1 {meta.get('status')}: {meta.get('error')}")
        loss = pd.read_csv(metas[0].parent / "losses.csv")["S"].mean()
        return float(meta["cpu_seconds"]), float(loss)


def part_run(task: str, instance: int, reps: int) -> None:
    dataset, size = task.rsplit("/std.", 1)
    d = load(dataset, int(size), instance)
    print(f"Part 0: gp-map-1 through `delve run` (cpu mode) vs scikit-learn, {task} #{instance}")
    print(
        "  one BLAS thread: OPENBLAS_NUM_THREADS=1 before numpy, threadpoolctl, and for delve run"
    )
    cpu_map, loss_map = delve_run_cpu(task, instance)
    cpu_skl, _, _ = run_sklearn(d)
    mu = _sklearn_mean(d)
    loss_skl = float(np.mean((d.decode(mu) - d.yt_raw) ** 2))
    fl = factorisation_floor(d, reps)
    print(f"  {'':<14}{'CPU s':>9}{'mean S (raw)':>14}")
    print(f"  {'gp-map-1':<14}{cpu_map:>9.2f}{loss_map:>14.5f}")
    print(f"  {'scikit-learn':<14}{cpu_skl:>9.2f}{loss_skl:>14.5f}")
    print(f"  CPU ratio gp-map-1/sklearn {cpu_map / cpu_skl:.3f} (target <= 0.35); loss ratio "
          f"{loss_map / loss_skl:.3f} (target <= 1.05)")  # fmt: skip
    print(f"  floor: 150 x (potrf {fl['potrf']:.1f} + potri {fl['potri']:.1f} + gradient "
          f"{fl['gradient']:.1f} ms) = {0.15 * fl['total']:.2f} CPU s; gp-map-1 is "
          f"{cpu_map / (0.15 * fl['total']):.2f} x the floor\n")  # fmt: skip


def part_floor(datasets: list[str], n: int, instance: int, iterations: int, reps: int) -> None:
    print(f"Part 1b: gp-mc-1 CPU cost per trajectory vs its factorisation floor, n = {n}")
    print(f"  {'task':<22}{'traj ms':>9}{'potrf':>8}{'potri':>8}{'grad':>8}{'floor':>8}"
          f"{'ratio':>7}  (target <= 1.5)")  # fmt: skip
    for ds in datasets:
        d = load(ds, n, instance)
        ms, its = mc_trajectory_cost(d, iterations)
        fl = factorisation_floor(d, reps)
        print(f"  {ds + '/std.' + str(n):<22}{ms:>9.2f}{fl['potrf']:>8.2f}{fl['potri']:>8.2f}"
              f"{fl['gradient']:>8.2f}{fl['total']:>8.2f}{ms / fl['total']:>7.2f}",
              flush=True)  # fmt: skip
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--instances", type=int, nargs="+", default=[0])
    ap.add_argument("--datasets", nargs="+", default=["kin-8nm", "pumadyn-8nm"])
    ap.add_argument("--mc-size", type=int, default=256)
    ap.add_argument("--mc-budgets", type=float, nargs="+", default=[0.125, 0.25, 0.5, 1.0])
    ap.add_argument("--no-mc", action="store_true")
    ap.add_argument("--no-map", action="store_true")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("--run-task", default="kin-8nm/std.1024")
    ap.add_argument("--run-instance", type=int, default=1)
    ap.add_argument("--floor-sizes", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--floor-iterations", type=int, default=600, help="gp-mc-1 trajectories")
    ap.add_argument("--reps", type=int, default=15, help="timings per floor component")
    args = ap.parse_args()

    with threadpool_limits(1):
        if not args.no_run:
            part_run(args.run_task, args.run_instance, args.reps)
        if not args.no_floor:
            for n in args.floor_sizes:
                part_floor(args.datasets, n, args.instances[0], args.floor_iterations, args.reps)
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
