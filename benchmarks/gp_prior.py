"""Where gp-map-1's loss differs from scikit-learn's GP: the thesis' ARD prior.

On every instance of a task, fits gp-map-1 (thesis priors, eq. 4.17-4.18), gp-map-1 with
the ARD part of the prior made flat (a diagnostic, not a registered method), and
scikit-learn's GaussianProcessRegressor with the equivalent kernel (maximum likelihood), and
compares their per-case squared errors with DELVE's paired t-test.

    python benchmarks/gp_prior.py [pumadyn-8nm] [1024]
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gp import load  # noqa: E402

import delve_bench.methods.gp.model as model  # noqa: E402
from delve_bench.losses import Standardizer  # noqa: E402
from delve_bench.methods.base import Budget, FitContext  # noqa: E402
from delve_bench.methods.gp import GpMap, initial_theta  # noqa: E402
from delve_bench.stats.summary import compare  # noqa: E402

THESIS_PRIOR = model.neg_log_prior


def flat_ard_prior(theta: np.ndarray) -> tuple[float, np.ndarray]:
    """The thesis prior without its ARD term (eq. 4.18): flat in the log length scales."""
    v, g = THESIS_PRIOR(theta)
    theta = np.asarray(theta, float)
    m = len(theta) - 4
    scale = model.ARD_MU0 / m**2
    tw = theta[:m]
    v -= 0.5 * float(np.sum(np.log(2 * np.pi / scale) + tw + scale * np.exp(-tw)))
    g = g.copy()
    g[:m] = 0.0
    return v, g


def gp_map(d, prior) -> np.ndarray:
    model.neg_log_prior = prior
    try:
        m = GpMap()
        m.fit(d.X, d.y, FitContext.seeded(budget=Budget(mode="work", work=150), kinds=d.X.shape[1]))
        return d.decode(m.predict(d.Xt).mean)
    finally:
        model.neg_log_prior = THESIS_PRIOR


def sklearn_gp(d) -> np.ndarray:
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, DotProduct, WhiteKernel
    from sklearn.gaussian_process.kernels import ConstantKernel as C

    k = d.X.shape[1]
    e = np.exp(initial_theta(k))
    w, v0, a0, a1, r2 = e[:k], e[k], e[k + 1], e[k + 2], e[k + 3]
    big = (1e-8, 1e8)
    kern = (
        C(v0, big) * RBF(1 / np.sqrt(w), (1e-3, 1e5))
        + C(a1, big) * DotProduct(np.sqrt(a0 / a1), big)
        + WhiteKernel(r2, big)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = GaussianProcessRegressor(kern, alpha=0.0, n_restarts_optimizer=0).fit(d.X, d.y)
    return d.decode(g.predict(d.Xt))


def main() -> None:
    dataset = sys.argv[1] if len(sys.argv) > 1 else "pumadyn-8nm"
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    losses: dict[str, list[np.ndarray]] = {
        "gp-map-1": [],
        "gp-map-1, flat ARD prior": [],
        "sklearn": [],
    }
    i = 0
    with threadpool_limits(1):
        while True:
            try:
                d = load(dataset, size, i)
            except IndexError:
                break
            for name, mu in (
                ("gp-map-1", gp_map(d, THESIS_PRIOR)),
                ("gp-map-1, flat ARD prior", gp_map(d, flat_ard_prior)),
                ("sklearn", sklearn_gp(d)),
            ):
                losses[name].append((mu - d.yt_raw) ** 2)
            i += 1
    st = Standardizer(loss="S", scale=d.var_pooled, shift=0.0)
    ref = np.array(losses["sklearn"])
    print(
        f"{dataset}/std.{size}, {i} instances, standardised S; paired t-test against scikit-learn"
    )
    for name in ("gp-map-1", "gp-map-1, flat ARD prior"):
        c = compare(np.array(losses[name]), ref, "hierarchical", st)
        s = c.standardized
        print(
            f"{name:<26} {s['mean_a']:.5f} vs {s['mean_b']:.5f}: difference {s['mean']:+.5f} "
            f"+- {s['se']:.5f}, p = {c.p:.3g}"
        )


if __name__ == "__main__":
    main()
