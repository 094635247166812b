"""knn-class-cv-1, rvm-class-1, svm-class-1 and logistic-1 against direct computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit
from support import class_instance

from delve_bench.losses import class_losses
from delve_bench.methods.base import FitContext
from delve_bench.methods.classify.knn import KnnClassCv, loo_class_losses
from delve_bench.methods.classify.logistic import Logistic
from delve_bench.methods.classify.rvm import RvmClass, fast_rvc, posterior_mode


def _fit(method, data, seed=0):
    X, y, Xt, yt, classes = data
    ctx = FitContext.seeded(seed=seed, kinds=X.shape[1], classes=classes)
    method.fit(X, y, ctx)
    return ctx.info, method.predict(Xt)


@pytest.fixture(scope="module")
def ripley(ws_module):
    return class_instance(ws_module, "ripley", "orig", 250, 0)


def test_knn_loo_losses_equal_brute_force():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(25, 2))
    y = rng.integers(0, 3, 25)
    alpha = 0.5
    fast = loo_class_losses(X, y, 3, alpha)
    for k in (1, 2, 5, 11, 24):
        tot = np.zeros(3)
        for i in range(25):
            d = ((X - X[i]) ** 2).sum(1)
            d[i] = np.inf
            nb = np.argsort(d, kind="stable")[:k]  # no distance ties in continuous data
            p = (np.bincount(y[nb], minlength=3) + alpha) / (k + 3 * alpha)
            out = class_losses(y[i : i + 1], p[None, :])
            tot += [out["Z"][0], out["Q"][0], out["L"][0]]
        assert fast[:, k - 1] == pytest.approx(tot)


def test_knn_ties_in_distance_share_the_tie_block():
    X = np.array([[0.0], [1.0], [1.0], [5.0]])  # cases 1 and 2 tie for the query at 0.9
    y = np.array([0, 0, 1, 1])
    m = KnnClassCv()
    m.fit(X, y, FitContext.seeded(kinds=1, classes=("a", "b")))
    m.k_ = {"Z": 1, "Q": 1, "L": 1}
    P = m.predict(np.array([[0.9]])).categorical.probs
    # k = 1: the nearest place is shared by the tied cases 1 (class 0) and 2 (class 1)
    assert P[0] == pytest.approx([(0.5 + 0.5) / 2, (0.5 + 0.5) / 2])


def test_knn_class_on_ripley_serves_each_loss_with_its_k(ripley):
    info, pred = _fit(KnnClassCv(), ripley)
    assert {info["k_Z"], info["k_Q"], info["k_L"]} <= set(range(1, 250))
    for loss in "ZQL":
        P = pred.categorical_for(loss).probs
        assert np.allclose(P.sum(1), 1) and P.min() > 0  # smoothing: no zero probability
    assert 100 * class_losses(ripley[3], pred.categorical_for("Z").probs)["Z"].mean() < 14


def test_laplace_factors_are_those_of_the_linearised_problem():
    """S_m, Q_m of the classifier = phi^T C^-1 phi, phi^T C^-1 t_hat with C = B^-1 + Phi A^-1 Phi^T
    and the pseudo-targets t_hat = Phi mu + B^-1 (t - y) (Tipping & Faul 2003, §5)."""
    rng = np.random.default_rng(1)
    N = 30
    X = rng.normal(size=(N, 2))
    t = (X[:, 0] + 0.5 * rng.normal(size=N) > 0).astype(float)
    B = np.hstack([np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)), np.ones((N, 1))])
    idx = [N, 3, 7]
    alpha = np.array([0.5, 2.0, 1.0])
    mu, L, _ = posterior_mode(B[:, idx], t, alpha, np.zeros(3))
    y = expit(B[:, idx] @ mu)
    grad = B[:, idx].T @ (t - y) - alpha * mu
    assert np.max(np.abs(grad)) < 1e-6  # the mode
    w = y * (1 - y)
    C = np.diag(1 / w) + B[:, idx] @ np.diag(1 / alpha) @ B[:, idx].T
    t_hat = B[:, idx] @ mu + (t - y) / w
    Ci = np.linalg.inv(C)
    S_direct = np.einsum("np,nm,mp->p", B, Ci, B)
    Q_direct = B.T @ Ci @ t_hat
    from scipy.linalg import solve_triangular

    Bw = B * np.sqrt(w)[:, None]
    V = solve_triangular(L, Bw[:, idx].T @ Bw, lower=True)
    S = np.einsum("np,np->p", Bw, Bw) - np.einsum("mp,mp->p", V, V)
    assert S == pytest.approx(S_direct, rel=1e-8)
    assert B.T @ (t - y) == pytest.approx(Q_direct, rel=1e-6, abs=1e-9)


def test_fast_rvc_ends_where_no_action_gains(ripley):
    X, y = ripley[0], ripley[1]
    B = np.hstack([np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0), np.ones((len(X), 1))])
    fit = fast_rvc(B, (y == 1).astype(float))
    assert fit.converged and fit.adds >= 1 and len(fit.idx) < 30
    again = fast_rvc(B, (y == 1).astype(float), max_iterations=fit.iterations)
    assert again.idx == fit.idx  # deterministic


def test_rvm_class_on_ripley(ripley):
    info, pred = _fit(RvmClass(), ripley)
    err = 100 * class_losses(ripley[3], pred.categorical.probs)["Z"].mean()
    # Tipping (2001): 9.3 % with 4 relevance vectors
    assert err < 12 and 1 <= info["model_size"] <= 20 and info["converged"]
    assert list(info["width_curve"])[0] == "4"  # the walk starts at the smoothest kernel


def test_logistic_matches_scikit_learn_without_penalty(ripley):
    from sklearn.linear_model import LogisticRegression

    X, y = ripley[0], ripley[1]
    _, pred = _fit(Logistic(lam=0.0), ripley)
    sk = LogisticRegression(C=np.inf, tol=1e-10, max_iter=10000).fit(X, y)
    assert pred.categorical.probs == pytest.approx(sk.predict_proba(ripley[2]), abs=1e-6)


def test_logistic_three_classes_and_an_absent_class():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.argmax(X @ np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]]) + rng.normal(size=(60, 3)), 1)
    m = Logistic()
    m.fit(X, y, FitContext.seeded(kinds=2, classes=("a", "b", "c", "d")))
    P = m.predict(X).categorical.probs
    assert P.shape == (60, 4) and np.allclose(P.sum(1), 1) and np.all(P[:, 3] == 0)
    assert np.mean(P.argmax(1) == y) > 0.6


@pytest.mark.slow  # a 5-fold CV grid, 1.7 CPU s: svm-class-1 is fitted in the full suite only
def test_svm_class_on_ripley(ripley):
    pytest.importorskip("sklearn")
    from delve_bench.methods.classify.svm import SvmClass

    m = SvmClass()
    info, pred = _fit(m, ripley)
    P = pred.categorical.probs
    assert 100 * class_losses(ripley[3], P)["Z"].mean() < 12
    assert info["model_size"] == len(m.svc_.support_) and info["C"] in m.C_grid
    f = m.decision(ripley[2])
    assert np.all(np.diff(P[np.argsort(f), 1]) >= -1e-12)  # Platt: monotone in f
