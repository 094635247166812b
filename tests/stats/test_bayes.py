"""The posterior of the expected difference: eq. 2.16 in closed form (hierarchical), and
the 2-way mixture, whose sampler reproduces eq. 2.16 when applied to the hierarchical
model and whose sign probabilities match a brute-force integral."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate
from scipy.special import ndtr

from delve_bench.stats import anova, posterior
from delve_bench.stats.bayes import _theta_draws
from delve_bench.stats.simulate import matrix_with_components


def test_fig_2_3_mass_and_sign_probabilities():
    rng = np.random.default_rng(7)
    a = anova(matrix_with_components(4, 256, -39.9114, 15.3883, 271.541, rng), "hierarchical")
    post = posterior(a)
    assert post.prob_positive == pytest.approx(0.023, abs=5e-4)  # Fig. 2.3: 2.3 %
    assert post.prob_negative + post.prob_positive == pytest.approx(1.0, abs=1e-9)
    mu, dens = np.array(post.mu), np.array(post.density)
    assert mu[0] < a.mean < mu[-1] and mu[-1] > 0  # the grid shows 0
    tail = integrate.trapezoid(np.where(mu > 0, dens, 0), mu)
    assert tail == pytest.approx(post.prob_positive, abs=3e-3)


def test_the_variance_sampler_reproduces_eq_2_16_on_the_hierarchical_model():
    rng = np.random.default_rng(8)
    a = anova(matrix_with_components(4, 256, -39.9114, 15.3883, 271.541, rng), "hierarchical")
    v = _theta_draws(a, 400_000, 5)
    mc = float(np.mean(ndtr(a.mean / np.sqrt(v))))  # P(mu > 0) as a mixture
    assert mc == pytest.approx(posterior(a).prob_positive, abs=4e-4)


def brute_force_two_way(a, n=90):
    """P(mu > 0 | y) for the 2-way model on a grid over log theta_e, log theta_a,
    log theta_b (each a scaled inverse chi-square, restricted to theta_a, theta_b >=
    theta_e): an integral, independent of the sampler."""
    from scipy import stats as sps

    I, J = a.I, a.J
    nus = {"a": I - 1, "b": J - 1, "e": (I - 1) * (J - 1)}
    ms = {"a": a.ms_a, "b": a.ms_b, "e": a.ms_e}
    axes, logp = {}, {}
    for k, nu in nus.items():
        # log theta = log(SS) - log(chi2_nu): a grid covering its quantiles 1e-7 .. 1-1e-7
        q = sps.chi2.ppf([1e-7, 1 - 1e-7], nu)
        g = np.linspace(np.log(ms[k] * nu / q[1]), np.log(ms[k] * nu / q[0]), n)
        axes[k] = g
        # density of log theta: chi2 density of SS / theta, times its Jacobian
        x = ms[k] * nu / np.exp(g)
        logp[k] = sps.chi2.logpdf(x, nu) + np.log(x)
    te, ta, tb = np.meshgrid(*(np.exp(axes[k]) for k in "eab"), indexing="ij")
    w = np.exp(logp["e"][:, None, None] + logp["a"][None, :, None] + logp["b"][None, None, :])
    w = w * (ta >= te) * (tb >= te)
    v = np.maximum(ta + tb - te, 1e-300) / (I * J)  # only where w > 0 matters
    return float((w * ndtr(a.mean / np.sqrt(v))).sum() / w.sum())


def test_two_way_posterior_matches_brute_force_integration():
    rng = np.random.default_rng(4)
    y = (
        0.15
        + rng.normal(size=(4, 30))
        + 0.2 * rng.normal(size=(4, 1))
        + 0.3 * rng.normal(size=(1, 30))
    )
    a = anova(y, "2-way")
    post = posterior(a)
    assert post.prob_positive == pytest.approx(brute_force_two_way(a), abs=1e-3)
    assert "mixture" in post.method


def test_two_way_posterior_is_wider_than_ignoring_the_shared_test_set():
    rng = np.random.default_rng(5)
    y = 0.1 + rng.normal(size=(8, 100)) + 0.1 * rng.normal(size=(8, 1)) + rng.normal(size=(1, 100))
    two_way = posterior(anova(y, "2-way"))
    as_if_hier = posterior(anova(y, "hierarchical"))
    # the common test set's case effects do not average out over instances
    assert two_way.opposite > as_if_hier.opposite
