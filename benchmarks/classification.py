"""Classification benchmark: every classification method on Ripley's data and the six
Rätsch sets with published splits, beside the published numbers and scikit-learn.

Run as a script (not a test); prints Markdown tables.

1. Error rate (%) mean ± SD over the realisations, model size mean ± SD and fit+predict
   CPU seconds per realisation, for logistic-1, knn-class-cv-1, ofs-loomi-1,
   ofs-loomi-own-1, ofs-loomi-fixed-1, ofs-loomr-1, rvm-class-1 and svm-class-1 on ``ripley/orig/std.250``
   (one split) and ``<set>/ida`` (banana, breast_cancer, german, heart, titanic, waveform;
   all 10 available realisations). Each method sees exactly the data ``delve run`` gives
   it (:func:`delve_bench.run.instance.load_instance`) with the runner's seed, so the
   numbers are those of ``delve run --budget-mode work`` (the OFS methods get instance 0's
   training set for their width, as the runner gives it); BLAS runs on one thread. On
   banana and waveform also ofs-loomi-1 with the minimum model size the paper's sizes
   imply (:data:`PAPER_M_MIN`).
2. In the same run, on the same encoded data: scikit-learn's ``SVC`` with its defaults
   (C = 1, gamma = 'scale'), ``SVC`` tuned by ``GridSearchCV`` over the grid svm-class-1
   uses, and ``LogisticRegression()`` (C = 1): what a user would otherwise pick.
3. Published numbers: Hong, Chen et al. (2014) Tables 2-9 (OFS-LOOMI and the RBF-kernel
   SVM of Rätsch et al.; 100 realisations, one width per data set) and, for Ripley, their
   9.7 % with 4 centres and Tipping's (2001) RVM 9.3 % with 4 vectors and SVM 10.6 % with
   38 support vectors.
4. Speed (``--speed``): ofs-loomi-1's selection stage on banana's first N cases, N = 200 ..
   1600, one width: CPU per stage (early and late stages) and per stage / N^2. Scoring
   the N candidates (LOO margins by the recursions (32)-(33), LOOMI from a 2 x 2 table)
   and the Gram-Schmidt update are O(N) per candidate whatever the model size M, so a
   stage is O(N^2) (Hong, Chen et al. §5): flat in M, and flat in N per candidate and
   case. Beside it, in the same run, the reference one would otherwise write: every
   candidate model refitted (batched normal equations, LOO from the hat-matrix
   diagonal; O(N M^2) per candidate), checked to give the same LOOMI, and the ratio.

    OMP_NUM_THREADS=1 .venv/bin/python -u benchmarks/classification.py [--realisations K]
        [--sets ripley,banana,...] [--methods ...] [--speed] [--no-sklearn]
"""

from __future__ import annotations

import argparse
import time

import _one_thread  # noqa: F401  (before numpy: one BLAS thread in every library)
import numpy as np
from threadpoolctl import threadpool_limits

from delve_bench.losses import class_losses
from delve_bench.methods.base import FitContext
from delve_bench.methods.registry import method_spec
from delve_bench.rng import derived_seed
from delve_bench.run.instance import load_instance
from delve_bench.run.job import first_training, fit_predict
from delve_bench.workspace import WorkspaceDirs

METHODS = (
    "logistic-1",
    "knn-class-cv-1",
    "ofs-loomi-1",
    "ofs-loomi-own-1",
    "ofs-loomi-fixed-1",
    "ofs-loomr-1",
    "rvm-class-1",
    "svm-class-1",
)
SETS = {  # name: task
    "ripley": "ripley/orig/std.250",
    "banana": "banana/ida/std.400",
    "breast_cancer": "breast_cancer/ida/std.200",
    "german": "german/ida/std.700",
    "heart": "heart/ida/std.170",
    "titanic": "titanic/ida/std.150",
    "waveform": "waveform/ida/std.400",
}
#: (error % mean, sd, model size mean, sd) as published; None where not reported
PUBLISHED = {
    "ripley": {
        "OFS-LOOMI (Hong, Chen et al. 2014)": (9.7, None, 4, None),
        "RVM (Tipping 2001)": (9.3, None, 4, None),
        "SVM (Tipping 2001)": (10.6, None, 38, None),
    },
    "banana": {"OFS-LOOMI": (10.8, 0.6, 40.2, 0.6), "SVM (Rätsch)": (11.5, 0.7, None, None)},
    "breast_cancer": {"OFS-LOOMI": (26.1, 4.7, 3.7, 1.4), "SVM (Rätsch)": (26.0, 4.7, None, None)},
    "german": {"OFS-LOOMI": (24.7, 2.1, 4.9, 1.4), "SVM (Rätsch)": (23.6, 2.1, None, None)},
    "heart": {"OFS-LOOMI": (16.2, 3.4, 3.7, 0.9), "SVM (Rätsch)": (16.0, 3.3, None, None)},
    "titanic": {"OFS-LOOMI": (22.7, 0.9, 3.3, 0.9), "SVM (Rätsch)": (22.4, 1.0, None, None)},
    "waveform": {"OFS-LOOMI": (10.5, 0.6, 50.1, 0.3), "SVM (Rätsch)": (9.9, 0.4, None, None)},
}
#: the minimum model sizes Hong, Chen et al.'s sizes imply (Tables 8-9: 40.2 +- 0.6 and
#: 50.1 +- 0.3 centres, "determined by the LOOMI together with the constraint of a minimum
#: model size"); not published as settings, so not ofs-loomi-1's: an extra row each
PAPER_M_MIN = {"banana": 40, "waveform": 50}
C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)
SCALES = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0, 2.0, 4.0)


def run_method(ws: WorkspaceDirs, name: str, task: str, i: int, **params):
    """(error %, model size or None, CPU seconds) of one method on one instance; ``params``
    override the method's (the paper's minimum model sizes, :data:`PAPER_M_MIN`)."""
    enc = load_instance(ws, task, i)
    spec = method_spec(ws, name)
    m = spec.load_class()(**(spec.params | params)) if params else spec.instantiate()
    ctx = FitContext.seeded(
        seed=derived_seed(name, task, i), kinds=enc.coding.kinds, classes=enc.coding.classes
    )
    ctx.first_training = first_training(ws, enc.task, m)
    t0 = time.process_time()
    pred = fit_predict(m, enc, ctx).prediction
    cpu = time.process_time() - t0
    P = pred.categorical_for("Z").probs
    err = 100 * class_losses(enc.y_test_encoded, P)["Z"].mean()
    return err, ctx.info.get("model_size"), cpu


def run_sklearn(ws: WorkspaceDirs, kind: str, task: str, i: int):
    """scikit-learn on the same encoded data: (error %, size or None, CPU seconds)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from delve_bench.methods.classify.ofs import median_sq_distance

    enc = load_instance(ws, task, i)
    X, y = enc.X_train, enc.y_train
    t0 = time.process_time()
    if kind == "SVC (defaults)":
        model = SVC().fit(X, y)
    elif kind == "SVC + GridSearchCV":
        med = median_sq_distance(X)
        grid = {"C": list(C_GRID), "gamma": [1 / (s * med) for s in SCALES]}
        cv = StratifiedKFold(5, shuffle=True, random_state=0)
        model = GridSearchCV(SVC(), grid, cv=cv).fit(X, y).best_estimator_
    else:
        model = LogisticRegression().fit(X, y)
    pred = model.predict(enc.X_test)
    cpu = time.process_time() - t0
    size = len(model.support_) if hasattr(model, "support_") else None
    return 100 * np.mean(pred != enc.y_test_encoded), size, cpu


def _ms(v) -> str:
    v = [x for x in v if x is not None]
    if not v:
        return "n/a"
    sd = np.std(v, ddof=1) if len(v) > 1 else 0.0
    return f"{np.mean(v):.1f} ± {sd:.1f}" if len(v) > 1 else f"{v[0]:.1f}"


def _pub(e, sd) -> str:
    if e is None:
        return "n/a"
    return f"{e:.1f}" if sd is None else f"{e:.1f} ± {sd:.1f}"


def table(ws: WorkspaceDirs, sets, methods, realisations: int | None, sklearn: bool) -> None:
    refs = ("SVC (defaults)", "SVC + GridSearchCV", "LogisticRegression") if sklearn else ()
    for name in sets:
        task = SETS[name]
        n_inst = 1 if name == "ripley" else min(realisations or 10, 10)
        print(f"\n### {name} ({task}, {n_inst} realisation{'s' * (n_inst > 1)})\n")
        print("| method | error (%) | model size | CPU s / realisation |")
        print("|---|---:|---:|---:|")
        for label, (e, sd, m, msd) in PUBLISHED[name].items():
            print(f"| published: {label} | {_pub(e, sd)} | {_pub(m, msd)} | |")
        rows = [(m, m, run_method, {}) for m in methods]
        if name in PAPER_M_MIN and "ofs-loomi-1" in methods:
            mm = PAPER_M_MIN[name]
            rows.append(
                (f"ofs-loomi-1, M_min {mm} (the paper's)", "ofs-loomi-1", run_method, {"m_min": mm})
            )
        rows += [(r, r, run_sklearn, {}) for r in refs]
        for label, what, fn, params in rows:
            res = [fn(ws, what, task, i, **params) for i in range(n_inst)]
            err, size, cpu = zip(*res, strict=True)
            print(f"| {label} | {_ms(err)} | {_ms(size)} | {np.mean(cpu):.2f} |", flush=True)


def naive_loomi_scores(sel) -> np.ndarray:
    """LOOMI of every candidate model at the current stage the way one would compute it
    without Hong & Chen's recursions: refit each candidate model (the selected orthogonal
    columns plus the candidate's, the same ridges) by its normal equations, batched in
    numpy, and take the LOO residuals from the hat-matrix diagonal, e_k / (1 - H_kk).
    O(N M^2) per candidate instead of O(N); the same numbers (checked by the caller)."""
    from delve_bench.methods.basis.criteria import loomi

    W = np.array(sel.Ht).T  # N x M
    lam = np.array(sel.lam_t)
    N, M = W.shape
    ok = np.flatnonzero(sel.available & (sel.kap > sel.eps * sel.norm0))
    out = np.full(sel.P, -np.inf)
    step = max(1, (1 << 21) // (N * (M + 1)))
    for a in range(0, len(ok), step):
        cols = ok[a : a + step]
        X = np.empty((len(cols), N, M + 1))
        X[:, :, :M] = W
        X[:, :, M] = sel.Ft[:, cols].T
        A = np.einsum("cnm,cnk->cmk", X, X)
        A[:, np.arange(M), np.arange(M)] += lam
        A[:, M, M] += sel.lam_c[cols]
        B = X @ np.linalg.inv(A)  # c x N x (M+1)
        H = np.einsum("cnm,cnm->cn", B, X)  # hat-matrix diagonals
        E = sel.y - np.einsum("cnm,cm->cn", B, np.einsum("cnm,n->cm", X, sel.y))
        out[cols] = loomi(sel.y, E.T, 1.0 - H.T)
    return out


def speed(ws: WorkspaceDirs, sizes=(200, 400, 800, 1600), scale: float = 0.25) -> None:
    """Per-stage CPU of ofs-loomi-1's selection on banana's first N cases: flat in the
    stage number M, O(N^2) in N; beside scoring the same stage by refitting every
    candidate model (:func:`naive_loomi_scores`) at stage 12."""
    from delve_bench.data import load_dataset
    from delve_bench.methods.basis.orthogonal import OrthogonalSelection
    from delve_bench.methods.classify.ofs import median_sq_distance
    from delve_bench.numerics.distance import sq_distances

    values = load_dataset(ws, "banana").values
    print("\n### ofs-loomi-1: cost of one selection stage (banana, one width)\n")
    print(
        "| N | ms / stage, stages 2-11 | ms / stage, stages 12-21 | ns / (stage N^2) "
        "| refit scoring of stage 12, ms | refit / recursions |"
    )
    print("|---:|---:|---:|---:|---:|---:|")
    stages = 20
    for N in sizes:
        X = values[:N, :2]
        X = (X - np.median(X, 0)) / np.mean(np.abs(X - np.median(X, 0)), 0)
        y = np.where(values[:N, 2] == 1, 1.0, -1.0)
        Phi = np.exp(-sq_distances(X, X) / (scale * median_sq_distance(X)))
        best, t_naive = np.full(stages, np.inf), np.inf
        for _rep in range(3):  # each timing the fastest of 3 repeats: the machine is shared
            sel = OrthogonalSelection(
                Phi, y, lam=1e-6, score="loomi", criterion="loomi", lam_update="evidence"
            )
            sel.step()  # stage 1 (LOO MSE) is not timed
            for s in range(stages):
                t0 = time.process_time()
                sel.step()
                best[s] = min(best[s], time.process_time() - t0)
                if s == 9:  # 11 terms selected: time the refits of stage 12
                    t0 = time.process_time()
                    naive = naive_loomi_scores(sel)
                    t_naive = min(t_naive, time.process_time() - t0)
                    fast = sel.scores()
                    assert np.array_equal(np.isfinite(naive), np.isfinite(fast))
                    assert np.allclose(naive[np.isfinite(fast)], fast[np.isfinite(fast)])
        early, late = best[:10].mean(), best[10:].mean()
        per = best.mean()
        print(
            f"| {N} | {1e3 * early:.2f} | {1e3 * late:.2f} | {1e9 * per / N**2:.2f} "
            f"| {1e3 * t_naive:.0f} | {t_naive / best[10]:.0f} |",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realisations", type=int, default=None, help="per Rätsch set (max 10)")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--speed", action="store_true", help="only the per-stage timing")
    ap.add_argument("--no-sklearn", action="store_true")
    a = ap.parse_args()
    ws = WorkspaceDirs.from_env()
    with threadpool_limits(1):
        if not a.speed:
            table(ws, a.sets.split(","), a.methods.split(","), a.realisations, not a.no_sklearn)
        speed(ws)


if __name__ == "__main__":
    main()
