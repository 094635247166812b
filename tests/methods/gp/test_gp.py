"""The GP model and gp-map-1 / gp-mc-1 (Rasmussen 1996 Ch. 4; docs/methods/gp.md)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from support import fit_method

from delve_bench.methods.base import Budget
from delve_bench.methods.gp import GpMap, GpMc, GPObjective, Hyper, Posterior
from delve_bench.methods.gp.mc import select_records, widen
from delve_bench.methods.gp.model import initial_theta, neg_log_prior


def toy(n=60, m=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, m))
    t = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.standard_normal(n)
    return X, t, rng


def direct_E(X, t, theta):
    """The objective written out with dense linear algebra, for comparison."""
    h = Hyper.from_theta(theta)
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2 * h.w).sum(-1)
    Q = h.a0 + h.a1 * X @ X.T + h.v0 * np.exp(-0.5 * d2) + h.r2 * np.eye(len(X))
    return 0.5 * np.linalg.slogdet(Q)[1] + 0.5 * t @ np.linalg.solve(Q, t), Q, h


def test_initial_values_are_the_thesis_ones():
    th = initial_theta(8)
    h = Hyper.from_theta(th)
    np.testing.assert_allclose(h.w, 1 / 8)
    assert (h.v0, h.a0, h.a1, h.r2) == pytest.approx((1.0, np.exp(-2), np.exp(-2), np.exp(-2)))


@pytest.mark.parametrize("m", [1, 8, 32])
def test_ard_prior_integrates_to_one(m):
    # eq. 4.18: p(theta) = m^-1 (2 pi)^-1/2 exp(-theta/2 - e^-theta / (2 m^2))
    theta = np.zeros(m + 4)

    def p(x):
        theta[0] = x
        return np.exp(-(neg_log_prior(theta)[0] - neg_log_prior(np.r_[0.0, theta[1:]])[0]))

    base = np.exp(-0.5 * (0 + 1 / m**2)) / (m * np.sqrt(2 * np.pi))  # p at theta_0 = 0
    val, _ = integrate.quad(lambda x: base * p(x), -60, 60, limit=200)
    assert val == pytest.approx(1.0, abs=1e-8)


def test_prior_values_and_gradient():
    th = np.array([0.3, -1.2, 0.5, -2.0, 1.0, -4.0])  # m = 2
    val, g = neg_log_prior(th)
    m = 2
    want = sum(0.5 * (np.log(2 * np.pi * m**2) + t + np.exp(-t) / m**2) for t in th[:2])
    want += 0.5 * (0.5 + 1) ** 2 + sum(0.5 * ((t + 3) / 3) ** 2 for t in th[3:])
    assert val == pytest.approx(want, rel=1e-13)
    fd = [(neg_log_prior(th + e)[0] - neg_log_prior(th - e)[0]) / 2e-6 for e in 1e-6 * np.eye(6)]
    np.testing.assert_allclose(g, fd, atol=1e-8)


def test_objective_equals_the_dense_formula():
    X, t, rng = toy()
    for _ in range(3):
        th = initial_theta(4) + 0.5 * rng.standard_normal(8)
        E, _ = GPObjective(X, t)(th)
        want, _, _ = direct_E(X, t, th)
        assert E == pytest.approx(want + neg_log_prior(th)[0], rel=1e-10)


def test_gradient_matches_finite_differences():
    X, t, rng = toy()
    obj = GPObjective(X, t)
    for _ in range(4):
        th = initial_theta(4) + 0.7 * rng.standard_normal(8)
        _, grad = obj(th)
        g = grad()  # the lazy gradient
        np.testing.assert_array_equal(g, grad())  # ... computed once
        fd = np.array([(obj(th + e)[0] - obj(th - e)[0]) / 2e-6 for e in 1e-6 * np.eye(8)])
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6)


def test_outstanding_lazy_gradients_keep_their_own_buffers():
    """The objective reuses its n-by-n buffers, but only once a gradient is taken: a line
    search may evaluate several points before asking for an earlier one's gradient."""
    X, t, rng = toy()
    thetas = [initial_theta(4) + 0.5 * rng.standard_normal(8) for _ in range(3)]
    fresh = [GPObjective(X, t)(th) for th in thetas]
    want = [(E, g()) for E, g in fresh]
    obj = GPObjective(X, t)
    for _ in range(2):  # the second round runs on recycled buffers
        pending = [obj(th) for th in thetas]
        for (E, g), (E0, g0) in zip(pending[::-1], want[::-1], strict=True):
            assert E == E0
            np.testing.assert_array_equal(g(), g0)


def test_not_positive_definite_is_infinite_energy_not_a_crash():
    X = np.repeat(np.array([[0.1, 0.2]]), 5, axis=0)  # five identical cases
    t = np.arange(5.0)
    th = np.array([0.0, 0.0, 30.0, 30.0, 30.0, -700.0])  # huge signal, no noise
    E, g = GPObjective(X, t)(th)
    assert E == np.inf
    # the CG minimiser backtracks from such points instead of failing
    from delve_bench.numerics.cg import minimize

    res = minimize(GPObjective(X, t), initial_theta(2), max_evals=60)
    assert np.isfinite(res.f)


def test_prediction_equals_the_dense_formula_and_includes_the_noise():
    X, t, rng = toy()
    th = initial_theta(4) + 0.3 * rng.standard_normal(8)
    Xt = rng.standard_normal((7, 4))
    mu, var = Posterior.fit(X, t, th).predict(Xt)
    _, Q, h = direct_E(X, t, th)
    d2 = ((Xt[:, None, :] - X[None, :, :]) ** 2 * h.w).sum(-1)
    G = h.a0 + h.a1 * Xt @ X.T + h.v0 * np.exp(-0.5 * d2)
    np.testing.assert_allclose(mu, G @ np.linalg.solve(Q, t), rtol=1e-9)
    prior_var = h.a0 + h.a1 * (Xt**2).sum(1) + h.v0 + h.r2
    want = prior_var - np.einsum("jp,pj->j", G, np.linalg.solve(Q, G.T))
    np.testing.assert_allclose(var, want, rtol=1e-8)
    assert np.all(var >= h.r2)


def test_select_records_is_the_thesis_selection():
    iters = 100 * np.arange(1, 40)  # 39 records at equal intervals
    first = 13  # first record at or after T/3
    pos = first - 1 + select_records(iters[first - 1 :], iters[first - 1], iters[-1], 26)
    assert len(pos) == 26 and pos[0] == 12 and pos[-1] == 38
    assert list(pos + 1) == [13] + list(range(15, 40))  # 27 candidates, one skipped
    assert len(set(pos)) == 26


def test_widening_heuristic():
    means = np.array([np.linspace(0, 25, 26), np.zeros(26)])
    vars = np.full((2, 26), 0.01)
    out = widen(means, vars)
    # row 0: spread = 21st - 4th smallest = 20 - 3 = 17 > sum of sds = 2.6: widened
    assert np.sqrt(out[0]).sum() == pytest.approx(17.0)
    np.testing.assert_array_equal(out[1], vars[1])  # zero spread: unchanged (no 1/0)
    one = widen(np.array([[1.0]]), np.array([[0.5]]))  # k = 1 (gp-map-1 style)
    np.testing.assert_array_equal(one, [[0.5]])


def test_gp_map_on_toy_data_finds_the_relevant_inputs():
    X, t, _ = toy(n=80, m=4)
    m = GpMap()
    ctx = fit_method(m, X, t, Budget(mode="work", work=150))
    assert ctx.info["evaluations"] <= 150
    ls = ctx.info["hyper"]["length_scales"]
    assert ls[0] < ls[2] and ls[0] < ls[3]  # input 0 is the non-linear one
    p = m.predict(X[:5])
    np.testing.assert_array_equal(p.median, p.mean)
    assert np.all(np.isfinite(p.density.logpdf(t[:5])))
    # the CPU cap of cpu mode stops the run between line searches
    ctx = fit_method(GpMap(), X, t, Budget(mode="cpu", cpu_seconds=0.0))
    assert ctx.info["stop"] == "budget" and ctx.info["evaluations"] == 1


@pytest.mark.slow  # 2 CPU s; the fast loop fits GpMc in the next test
def test_gp_mc_on_toy_data():
    X, t, _ = toy(n=40, m=2)
    m = GpMc(min_iterations=0)
    ctx = fit_method(m, X, t, Budget(mode="work", work=1200))
    info = ctx.info
    assert info["iterations"] == m.iterations_for(40, 1200) == round(1200 * (64 / 40) ** 2)
    assert info["acceptance_rate"] > 0.9  # eps = 0.5/sqrt(n) gives low rejection rates
    assert len(m.thetas_) == 26 and min(info["records_used"]) >= 13
    p = m.predict(X[:6])
    assert p.density.means.shape == (6, 26)
    np.testing.assert_allclose(p.mean, p.density.means.mean(1))
    assert np.all(np.isfinite(p.density.logpdf(t[:6])))
    assert m.iterations_for(64, 20000) == 20000
    assert m.iterations_for(256, 20000) == 1250
    assert GpMc().iterations_for(1024, 20000) == 1000  # the floor of min_iterations


def test_work_mode_is_deterministic():
    X, t, _ = toy(n=30, m=2)
    a, b = GpMc(min_iterations=0), GpMc(min_iterations=0)
    # a chain that drew from an unseeded stream parts at its first draw
    fit_method(a, X, t, Budget(mode="work", work=15), seed=5)
    fit_method(b, X, t, Budget(mode="work", work=15), seed=5)
    assert len(a.thetas_) > 1
    np.testing.assert_array_equal(a.thetas_, b.thetas_)


# -- real data, through the harness ------------------------------------------------------


def run_method(tmp_path: Path, method: str, task: str, instance: int = 0) -> dict:
    from delve_bench.run.job import Job, RunOptions, execute
    from delve_bench.tasks.names import resolve_tasks
    from delve_bench.workspace import WorkspaceDirs

    (ref,) = resolve_tasks(WorkspaceDirs(tmp_path), [task])
    r = execute(str(tmp_path), Job(method, ref, instance), RunOptions(mode="work"))
    assert r.status == "ok", r.error
    d = tmp_path / "results" / method / ref.dataset / ref.prototask / ref.name / str(instance)
    meta = json.loads((d / "meta.json").read_text())
    import pandas as pd

    return meta, pd.read_csv(d / "losses.csv"), pd.read_csv(d / "predictions.csv")


def test_gp_map_1_runs_on_kin_8nm(tmp_path):
    meta, losses, preds = run_method(tmp_path, "gp-map-1", "kin-8nm/std.64")
    info = meta["info"]
    assert info["evaluations"] == 150 and meta["budget"]["work"] == 150
    assert len(info["hyper"]["length_scales"]) == 8
    s = losses["S"].mean() / preds["target"].var()
    assert s < 0.75  # lin-1 is about 0.67 on this task, the mean predictor 1.0
    assert np.isfinite(losses["L"]).all() and (losses["A"] >= 0).all()


@pytest.mark.slow
def test_gp_mc_1_runs_on_pumadyn_8nm(tmp_path):
    meta, losses, preds = run_method(tmp_path, "gp-mc-1", "pumadyn-8nm/std.64")
    info = meta["info"]
    assert info["iterations"] == 20000
    assert info["acceptance_rate"] > 0.9
    assert len(info["length_scales_mean_used"]) == 8
    assert np.isfinite(losses["L"]).all()
    assert losses["S"].mean() / preds["target"].var() < 0.9
