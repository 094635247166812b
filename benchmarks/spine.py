"""Spine benchmarks: knn-cv-1's vectorised LOO, lin-1 and the ANOVA statistics against the
references a user would otherwise pick (scikit-learn, statsmodels), side by side in one run.

    python benchmarks/spine.py

Prints CPU seconds (process time) and the ratio reference / delve-bench.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import statsmodels.api as sm
import statsmodels.formula.api as smf
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV, LeaveOneOut
from sklearn.neighbors import KNeighborsRegressor

from delve_bench.methods.base import FitContext
from delve_bench.methods.knn import KnnCv, loo_losses
from delve_bench.methods.lin import Lin
from delve_bench.run import load_instance
from delve_bench.stats import anova
from delve_bench.tasks import TaskRef
from delve_bench.workspace import WorkspaceDirs


def cpu(f, repeat=1):
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def kin(n, i=0):
    e = load_instance(WorkspaceDirs.from_env(), TaskRef("kin-8nm", "dist", n), i)
    return e.X_train, e.y_train, e.X_test, e.y_test_encoded


def _sklearn_cumulative(X, y):
    """LOO squared error for every k from one neighbour query (what a user might write)."""
    from sklearn.neighbors import NearestNeighbors

    n = len(y)
    idx = NearestNeighbors(n_neighbors=n).fit(X).kneighbors(X, return_distance=False)[:, 1:]
    means = np.cumsum(y[idx], axis=1) / np.arange(1, n)
    return int(np.argmin(((means - y[:, None]) ** 2).sum(0))) + 1


def main() -> None:
    ctx = FitContext.seeded(kinds=8)
    print("knn-cv-1 leave-one-out choice of k over k = 1..n-1 (kin-8nm instance 0)")
    print(
        "  reference A: GridSearchCV(KNeighborsRegressor, cv=LeaveOneOut) over all k (S loss only)"
    )
    print(
        "  reference B: one NearestNeighbors query + cumulative means (S loss only, no tie handling)"
    )
    print(
        f"{'n':>6} {'delve-bench s':>14} {'A s':>9} {'A/ours':>8} {'B s':>8} {'B/ours':>7}  k_S ours/A/B"
    )
    for n in (64, 128, 256, 1024):
        X, y, _, _ = kin(n)
        t_ours, _ = cpu(lambda X=X, y=y: loo_losses(X, y), repeat=3)
        m = KnnCv()
        m.fit(X, y, ctx)
        t_b, k_b = cpu(lambda X=X, y=y: _sklearn_cumulative(X, y), repeat=3)
        if n <= 128:
            gs = GridSearchCV(
                KNeighborsRegressor(),
                {"n_neighbors": list(range(1, n))},
                cv=LeaveOneOut(),
                scoring="neg_mean_squared_error",
                n_jobs=1,
            )
            t_a, _ = cpu(lambda gs=gs, X=X, y=y: gs.fit(X, y))
            a = f"{t_a:>9.2f} {t_a / t_ours:>8.0f}"
            k_a = gs.best_params_["n_neighbors"]
        else:
            a, k_a = f"{'-':>9} {'-':>8}", "-"
        print(f"{n:>6} {t_ours:>14.4f} {a} {t_b:>8.4f} {t_b / t_ours:>7.2f}  {m.k_S_}/{k_a}/{k_b}")
    print("\nlin-1 fit + predict (kin-8nm, n = 1024, 1024 test cases)")
    X, y, Xt, _ = kin(1024)
    t_ours, _ = cpu(lambda: (lambda m: (m.fit(X, y, ctx), m.predict(Xt)))(Lin()), repeat=20)
    t_ref, _ = cpu(lambda: LinearRegression().fit(X, y).predict(Xt), repeat=20)
    print(
        f"delve-bench {t_ours * 1e3:.2f} ms, sklearn LinearRegression {t_ref * 1e3:.2f} ms "
        f"(no predictive variance), ratio {t_ref / t_ours:.2f}"
    )
    print("\nANOVA of an 8 x 512 loss matrix (hierarchical) and 8 x 250 (2-way)")
    rng = np.random.default_rng(0)
    for shape, design, formula in (
        ((8, 512), "hierarchical", "y ~ C(i)"),
        ((8, 250), "2-way", "y ~ C(i) + C(j)"),
    ):
        y = rng.normal(size=shape)
        df = pd.DataFrame(
            {
                "y": y.ravel(),
                "i": np.repeat(np.arange(shape[0]), shape[1]),
                "j": np.tile(np.arange(shape[1]), shape[0]),
            }
        )
        t_ours, _ = cpu(lambda y=y, design=design: anova(y, design), repeat=50)
        t_ref, _ = cpu(
            lambda df=df, formula=formula: sm.stats.anova_lm(smf.ols(formula, data=df).fit()),
            repeat=3,
        )
        print(
            f"{design:>13}: delve-bench {t_ours * 1e3:.3f} ms, statsmodels anova_lm {t_ref * 1e3:.1f} ms, "
            f"ratio {t_ref / t_ours:.0f}"
        )


if __name__ == "__main__":
    main()
