"""The MLP methods mlp-ese-1 and mlp-mc-1 (Rasmussen 1996 §3.6-3.7; docs/methods/mlp.md) and
their parts:
architecture rules, initialisation, back-propagation, Neal's priors and Gibbs updates,
mixture medians, and both methods on real DELVE data."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate, special
from support import fit_method

from delve_bench.methods.base import Budget
from delve_bench.methods.mlp import network as mlp
from delve_bench.methods.mlp import prior as mlp_prior
from delve_bench.methods.mlp.ese import MlpEse
from delve_bench.methods.mlp.mc import MlpMc, _Store, posterior_energy, select_states

# -- architecture and initialisation -----------------------------------------------------


def test_ese_size_rule_is_the_smallest_H_with_enough_weights():
    # N = 256: Nv = 85, Nt = 171; W(17) = 9*17 + 26 = 179 >= 171 > W(16) = 169
    assert mlp.ese_hidden_units(256, 8) == 17
    for n, I in [(64, 8), (128, 32), (1024, 8), (512, 32), (100, 3)]:
        H = mlp.ese_hidden_units(n, I)
        nt = n - n // 3
        assert mlp.MlpShape(I, H).n_weights >= nt > mlp.MlpShape(I, H - 1).n_weights
    assert mlp.ese_hidden_units(6, 8) == 1  # Nt < (I+1)T: clamped (docs/methods/mlp.md)


def test_mc_size_rule_uses_all_cases_and_clamps_to_6_25():
    assert mlp.mc_hidden_units(64, 8) == 6  # the thesis example
    assert mlp.mc_hidden_units(128, 8) == 12  # 12*10 + 9 = 129 >= 128 > 119
    assert mlp.mc_hidden_units(256, 8) == 25
    assert mlp.mc_hidden_units(1024, 8) == 25  # clamped above
    assert mlp.mc_hidden_units(64, 32) == 6  # 1 would do; clamped below


def test_weight_layout_and_groups_partition_the_vector():
    s = mlp.MlpShape(3, 4, 2)
    assert s.n_weights == (3 + 1) * 4 + (4 + 3 + 1) * 2
    ix = s.group_index()
    allix = np.concatenate([np.ravel(v) for v in ix.values()])
    assert sorted(allix) == list(range(s.n_weights))
    assert ix["ih"].shape == (3, 4) and ix["io"].shape == (3, 2)


def test_init_scale_is_0_1_over_root_fan_in():
    s = mlp.MlpShape(8, 20)
    rng = np.random.default_rng(0)
    W = np.array([mlp.random_weights(s, rng) for _ in range(400)])
    sd_in = W[:, : s.n_inner].std()
    sd_out = W[:, s.n_inner :].std()
    assert sd_in == pytest.approx(0.1 / math.sqrt(9), rel=0.02)
    assert sd_out == pytest.approx(0.1 / math.sqrt(29), rel=0.03)


# -- forward and backward passes ----------------------------------------------------------


def _net(I=4, H=5, T=1, n=30, seed=0):
    rng = np.random.default_rng(seed)
    s = mlp.MlpShape(I, H, T)
    X, Y = rng.standard_normal((n, I)), rng.standard_normal((n, T))
    return s, X, Y, rng.standard_normal(s.n_weights)


def test_forward_matches_eq_3_12_written_out():
    s, X, _, w = _net()
    U, a = s.inner(w)[:4], s.inner(w)[4]
    V, Wio, b = s.outer(w)[:5], s.outer(w)[5:9], s.outer(w)[9]
    f = np.array([np.tanh(x @ U + a) @ V + x @ Wio + b for x in X])
    np.testing.assert_allclose(mlp.forward(s, w, X), f, rtol=1e-12)
    np.testing.assert_allclose(mlp.MlpData(s, X, f).residuals(w), 0, atol=1e-12)
    ws = np.random.default_rng(1).standard_normal((3, s.n_weights))
    many = mlp.forward_many(s, ws, X)
    for k in range(3):
        np.testing.assert_allclose(many[:, k], mlp.forward(s, ws[k], X), rtol=1e-12)


def _check_grad(f, w, rel=1e-6):
    e, g = f(w)
    h = 1e-6
    num = np.empty_like(w)
    for k in range(len(w)):
        d = np.zeros_like(w)
        d[k] = h
        num[k] = (f(w + d)[0] - f(w - d)[0]) / (2 * h)
    np.testing.assert_allclose(g, num, rtol=rel, atol=rel * np.abs(num).max())
    return e


@pytest.mark.parametrize("T,scale", [(1, 1.0), (1, 37.5), (2, np.array([3.0, 0.25]))])
def test_backprop_gradient_matches_finite_differences(T, scale):
    s, X, Y, w = _net(T=T)
    data = mlp.MlpData(s, X, Y)
    e = _check_grad(lambda v: data.energy_grad(v, scale), w)
    R = mlp.forward(s, w, X) - Y
    assert e == pytest.approx(0.5 * float(((R * R).sum(0) * scale).sum()), rel=1e-12)
    assert data.energy(w, scale) == pytest.approx(e, rel=1e-12)


@pytest.mark.parametrize(
    "T,scale", [(1, 1.0), (1, 37.5), (1, np.array([4.0])), (2, np.array([3.0, 0.25]))]
)
def test_in_place_pass_is_energy_grad(T, scale):
    """The pass the sampler calls at every step writes energy_grad's gradient (bit for
    bit: the same products) into the given buffer; without the energy, the same gradient."""
    s, X, Y, w = _net(T=T)
    data = mlp.MlpData(s, X, Y)
    e, g = data.energy_grad(w, scale)
    g2 = np.full_like(g, np.nan)
    assert data.likelihood_into(w, scale, g2) == e
    np.testing.assert_array_equal(g2, g)
    g3 = np.full_like(g, np.nan)
    assert data.likelihood_into(w + 0.0, scale, g3, with_energy=False) == 0.0
    np.testing.assert_array_equal(g3, g)


def test_posterior_energy_gradient_includes_the_prior():
    s, X, Y, w = _net(I=3, H=6)
    prior = mlp_prior.NealPrior(s)
    h = prior.initial_hypers()
    rng = np.random.default_rng(5)
    prior.sample_sigmas(rng, h, w)
    h.noise = np.array([7.0])
    E = posterior_energy(mlp.MlpData(s, X, Y), prior, h)
    e = _check_grad(E, w)
    prec = prior.precisions(h)
    R = mlp.forward(s, w, X) - Y
    assert e == pytest.approx(3.5 * float(np.vdot(R, R)) + 0.5 * float(prec @ (w * w)), rel=1e-12)


# -- Neal's priors ------------------------------------------------------------------------


def test_prior_constants_of_the_thesis_script():
    p = mlp_prior.NealPrior(mlp.MlpShape(8, 6))
    assert p.noise_mean == pytest.approx(400)
    assert p.bh_mean == pytest.approx(100)
    assert p.ho_mean == pytest.approx(400 * 6)  # 400 H, not the OCR's 100/H (docs/methods/mlp.md)
    assert p.ard_mean == pytest.approx(25 * 64)  # 25 I^2
    assert mlp_prior.scaled_precision(1.0, 10, 4.0) == pytest.approx(20.0)
    assert mlp_prior.scaled_precision(1.0, 10, 2.0) == pytest.approx(10 * math.log(10))
    h = p.initial_hypers()
    prec = p.precisions(h)
    ix = p.index
    for g, want in [("ih", 100), ("bh", 100), ("ho", 4), ("io", 4), ("bo", 1)]:
        np.testing.assert_allclose(prec[ix[g]], want, rtol=1e-12)
    assert h.noise[0] == pytest.approx(400)


def test_gamma_conditional_matches_its_closed_form_moments():
    rng = np.random.default_rng(0)
    # prior Gamma(mean 100, alpha 0.5) and 25 values with SS = 0.3:
    # Gamma(shape 12.75, rate (0.005 + 0.3)/2), mean 12.75 / 0.1525
    t = mlp_prior.gamma_conditional(rng, 100.0, 0.5, 25, 0.3 * np.ones(40000))
    assert t.mean() == pytest.approx(12.75 / 0.1525, rel=0.01)
    assert t.var() == pytest.approx(12.75 / 0.1525**2, rel=0.04)


@pytest.mark.slow
def test_top_level_sampler_matches_the_grid_normalised_density():
    rng = np.random.default_rng(1)
    taus = np.array([30.0, 2.0, 500.0, 7.0])
    mu0, a0, a1 = 25 * 16.0, 0.5, 1.0
    p, a, b = 0.5 * (a0 - 4 * a1), a0 / mu0, a1 * taus.sum()

    def logdens(om):  # product of the 4 Gamma(om, 1) densities of taus times the prior
        lik = sum(
            0.5 * a1 * np.log(a1 / (2 * om)) + (a1 / 2 - 1) * np.log(t) - t * a1 / (2 * om)
            for t in taus
        )
        return lik + (a0 / 2 - 1) * np.log(om) - om * a0 / (2 * mu0)

    xs = np.logspace(-3, 6, 20001)
    d = np.exp(logdens(xs) - logdens(xs).max())
    z = integrate.trapezoid(d, xs)
    mean = integrate.trapezoid(d * xs, xs) / z
    cdf = integrate.cumulative_trapezoid(d, xs, initial=0) / z
    s = np.array([mlp_prior.top_level_conditional(rng, taus, mu0, a0, a1) for _ in range(8000)])
    # the same exponents as the GIG form of mlp_prior.top_level_conditional
    assert logdens(3.0) - logdens(1.0) == pytest.approx(
        (p - 1) * np.log(3.0) - 0.5 * (a * 2.0 + b * (1 / 3 - 1)), rel=1e-10
    )
    assert np.log(s).mean() == pytest.approx(integrate.trapezoid(d * np.log(xs), xs) / z, abs=0.03)
    assert np.median(s) == pytest.approx(np.interp(0.5, cdf, xs), rel=0.04)
    assert s.mean() == pytest.approx(mean, rel=0.1)


@pytest.mark.slow
def test_gibbs_sweep_leaves_the_prior_invariant():
    """A ``sample_sigmas`` sweep started from an exact draw of the prior
    (hyperparameters, then weights) must again give draws of the prior. Independent
    replications, so E[log tau] = digamma(alpha/2) - log(alpha / (2 mean)) is checked
    without autocorrelation, for a single precision, the top-level ARD precision and a
    per-input ARD precision."""
    s = mlp.MlpShape(2, 3)
    prior = mlp_prior.NealPrior(s)
    rng = np.random.default_rng(2)
    a0, a1 = prior.ard_alpha_top, prior.ard_alpha_input

    def draw(mean, alpha, size=None):
        return rng.gamma(alpha / 2, 2 * mean / alpha, size)

    out = []
    for _ in range(6000):
        h = prior.initial_hypers()
        h.bh, h.ho = draw(prior.bh_mean, 0.5), draw(prior.ho_mean, 0.5)
        h.ih_top, h.io_top = draw(prior.ard_mean, a0), draw(prior.ard_mean, a0)
        h.ih, h.io = draw(h.ih_top, a1, 2), draw(h.io_top, a1, 2)
        w = rng.standard_normal(s.n_weights) / np.sqrt(prior.precisions(h))
        prior.sample_sigmas(rng, h, w)
        out.append([h.bh, h.ho, h.ih_top, h.io_top, h.ih[0], h.io[1]])
    L = np.log(np.array(out))

    def elog(mean, alpha):
        return special.digamma(alpha / 2) - math.log(alpha / (2 * mean))

    top = elog(prior.ard_mean, a0)
    # a per-input precision given omega has E[log tau] = elog(omega, 1); average over omega
    per_input = special.digamma(a1 / 2) - math.log(a1 / 2) + top
    want = [elog(prior.bh_mean, 0.5), elog(prior.ho_mean, 0.5), top, top]
    want += [per_input, per_input]
    # sd of log tau is about 4 (trigamma(1/4) = 17.2): standard error about 0.06
    np.testing.assert_allclose(L.mean(axis=0), want, atol=0.25)
    # the spread is the prior's too
    np.testing.assert_allclose(L[:, 0].std(), math.sqrt(special.polygamma(1, 0.25)), rtol=0.06)


def test_step_scales_follow_neals_heuristic():
    s = mlp.MlpShape(2, 3)
    prior = mlp_prior.NealPrior(s)
    h = prior.initial_hypers()
    h.noise = np.array([10.0])
    h.ho, h.bh = 4.0, 9.0
    h.ih, h.io = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    sx2 = np.array([20.0, 40.0])
    e = prior.step_scales(h, 50, sx2)
    ix = prior.index
    s_h = 10.0 / 4.0
    assert e[ix["ih"][1, 2]] == pytest.approx((2.0 + 40 * s_h) ** -0.5)
    assert e[ix["bh"][0]] == pytest.approx((9.0 + 50 * s_h) ** -0.5)
    assert e[ix["ho"][1, 0]] == pytest.approx((4.0 + 500) ** -0.5)
    assert e[ix["io"][0, 0]] == pytest.approx((3.0 + 200) ** -0.5)
    assert e[ix["bo"][0]] == pytest.approx((1.0 + 500) ** -0.5)


# -- mixtures and sample selection ---------------------------------------------------------


def test_thinned_store_keeps_evenly_spaced_states_and_selection_skips_the_first_third():
    st = _Store(keep=10)

    class S:
        def __init__(self, it):
            self.iteration, self.fraction = it, it / 1000

    for it in range(1, 1001):
        if st.wants(it):
            st.add(S(it))
    its = [s.iteration for s in st.items]
    assert 10 <= len(its) <= 20 and len(set(np.diff(its))) == 1
    sel = select_states(st.items, n_use=5)
    assert len(sel) == 5 and sel[0].fraction >= 1 / 3 and sel[-1] is st.items[-1]


# -- the methods on real data ----------------------------------------------------------------


def _instance(instance, task="kin-8nm/std.64", i=0):
    e = instance(task, i)
    return e.X_train, e.y_train, e.X_test, e.y_test_encoded


@pytest.mark.slow  # an ensemble on kin, 1.1 CPU s; the contract fits mlp-ese-1 in the fast loop
def test_mlp_ese_1_follows_the_ensemble_rules_on_kin(instance):
    X, y, Xt, yt = _instance(instance)
    total = 4000
    m = MlpEse()
    info = fit_method(m, X, y, Budget(mode="work", work=total)).info
    assert info["hidden_units"] == mlp.ese_hidden_units(64, 8) == 4  # Nt = 43
    assert info["n_validation"] == 21
    k = info["ensemble_size"]
    assert 3 <= k <= 50 and m.members_.shape == (k, m.shape_.n_weights)
    for it, best, stop, ev in zip(
        info["iterations"], info["best_iteration"], info["stop"], info["epochs"], strict=True
    ):
        assert ev <= total / 3 + 20  # a line search may overrun the per-net limit
        if stop == "early":
            assert it >= 250 and it >= 1.5 * best and ev >= total / 50
    assert sum(info["epochs"]) <= total + 20 * k
    pred = m.predict(Xt)
    assert pred.median is None and pred.density is None and "L" not in m.losses
    assert np.mean((pred.mean - yt) ** 2) < 0.7 * np.var(yt)
    again = MlpEse()
    fit_method(again, X, y, Budget(mode="work", work=total))
    np.testing.assert_array_equal(again.predict(Xt).mean, pred.mean)  # reproducible


def test_mlp_ese_1_validation_picks_the_earliest_best_weights(instance):
    X, y, _, _ = _instance(instance)
    m = MlpEse(max_ensemble=3, min_iteration=10)
    info = fit_method(m, X, y, Budget(mode="work", work=600), seed=4).info
    # the stored member is the best-validation state, not the last one
    assert all(b <= it for b, it in zip(info["best_iteration"], info["iterations"], strict=True))
    assert info["ensemble_size"] == 3 and info["nets_trained"] == 3


@pytest.mark.slow  # 1 CPU s; the contract fits mlp-mc-1 in the fast loop
def test_mlp_mc_1_samples_well_and_predicts_a_mixture_on_kin(instance):
    X, y, Xt, yt = _instance(instance)
    m = MlpMc()
    info = fit_method(m, X, y, Budget(mode="work", work=160), seed=1).info
    assert info["hidden_units"] == 6 and info["iterations"] == 150
    assert info["init_acceptance_rate"] >= 0.8
    assert info["acceptance_rate"] >= 0.9  # the thesis: rejection rate below ~5 %
    assert info["states_used"] == 100 and info["first_used_iteration"] >= (160 / 3) - 10
    assert len(info["ard_input_hidden"]) == 8
    pred = m.predict(Xt)
    assert pred.density.means.shape == (len(Xt), 100)
    assert np.all(np.isfinite(pred.density.logpdf(yt)))
    assert np.mean((pred.mean - yt) ** 2) < 0.8 * np.var(yt)
    # the mixture median is a median of the mixture
    from scipy.special import ndtr

    sd = np.sqrt(pred.density.vars)
    cdf = (ndtr((pred.median[:, None] - pred.density.means) / sd)).mean(axis=1)
    np.testing.assert_allclose(cdf, 0.5, atol=1e-9)


@pytest.mark.slow
def test_mlp_mc_1_ard_switches_off_an_irrelevant_input():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100, 3))
    y = np.sin(1.5 * X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.standard_normal(100)  # x3 unused
    m = MlpMc()
    info = fit_method(m, X, y, Budget(mode="work", work=300), seed=2).info
    ih = info["ard_input_hidden"]
    assert ih[2] < 0.3 * ih[0]


@pytest.mark.slow
def test_delve_run_end_to_end(tmp_path):
    from click.testing import CliRunner

    from delve_bench.cli import cli

    runner = CliRunner()
    for name in ("mlp-ese-1", "mlp-mc-1"):
        r = runner.invoke(
            cli,
            ["--root", str(tmp_path), "run", name, "kin-8nm/std.64", "--instances", "0",
             "--budget-mode", "work", "--quiet"],
        )  # fmt: skip
        assert r.exit_code == 0, r.output
        meta = json.loads(
            (tmp_path / "results" / name / "kin-8nm/dist/std.64/0/meta.json").read_text()
        )
        assert meta["status"] == "ok"
        if name == "mlp-ese-1":
            assert meta["losses_available"] == ["S", "A"]
            assert meta["info"]["ensemble_size"] >= 3
        else:
            assert meta["losses_available"] == ["S", "A", "L"]
            assert meta["info"]["acceptance_rate"] > 0.9
            assert len(meta["info"]["ard_input_hidden"]) == 8
