"""The one HMC sampler (Rasmussen 1996 §3.7, §4.6; Neal 1994)."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.numerics import hmc

MU = np.array([1.0, -2.0])
COV = np.array([[1.0, 0.8], [0.8, 2.0]])
PREC = np.linalg.inv(COV)


def gauss(x):
    d = x - MU
    return 0.5 * d @ PREC @ d, PREC @ d


def test_leapfrog_is_reversible():
    rng = np.random.default_rng(0)
    x0, p0 = rng.standard_normal(2), rng.standard_normal(2)
    step = np.array([0.1, 0.05])
    E0, g0 = gauss(x0)
    end = hmc.leapfrog(gauss, x0, p0, g0, step, 25)[-1]
    back = hmc.leapfrog(gauss, end.x, -end.p, end.grad, step, 25)[-1]
    np.testing.assert_allclose(back.x, x0, atol=1e-12)
    np.testing.assert_allclose(-back.p, p0, atol=1e-12)
    assert back.E == pytest.approx(E0, abs=1e-12)
    # running time backwards (negative step) from the end also returns to the start
    rev = hmc.leapfrog(gauss, end.x, end.p, end.grad, -step, 25)[-1]
    np.testing.assert_allclose(rev.x, x0, atol=1e-12)
    np.testing.assert_allclose(rev.p, p0, atol=1e-12)


def test_energy_error_is_second_order_in_the_step():
    x0, p0 = np.array([2.0, 0.0]), np.array([0.5, -1.0])
    H0 = gauss(x0)[0] + 0.5 * p0 @ p0

    def dH(eps):
        n = int(round(1.0 / eps))  # same trajectory length
        return abs(hmc.leapfrog(gauss, x0, p0, gauss(x0)[1], eps, n)[-1].H - H0)

    e1, e2 = dH(0.02), dH(0.01)
    assert e1 < 1e-3
    assert e1 / e2 == pytest.approx(4.0, rel=0.15)


@pytest.mark.parametrize(
    "kw",
    [
        pytest.param(  # gp-mc-1 style (Horowitz): 20000 trajectories; its fits in the
            # fast loop (tests/methods/gp/test_gp.py) take this path
            dict(step_size=0.5, n_steps=1, persistence=0.95),
            marks=pytest.mark.slow,
        ),
        pytest.param(  # mlp-mc-1 style
            dict(step_size=np.array([0.3, 0.4]), n_steps=20, window=4), marks=pytest.mark.slow
        ),
        dict(step_size=0.3, n_steps=10, window=1),  # plain HMC
    ],
)
def test_samples_a_known_gaussian(kw):
    rng = np.random.default_rng(1)
    s = hmc.HMC(gauss, np.zeros(2), rng, **kw)
    persistent = kw.get("persistence", 0.0) > 0
    xs = []
    n = 20000 if persistent else 4000
    for _ in range(n):
        if persistent:
            s.trajectory()
            s.refresh_momentum()
        else:
            s.step()
        xs.append(s.x)
    xs = np.array(xs[n // 10 :])
    np.testing.assert_allclose(xs.mean(0), MU, atol=0.12)
    np.testing.assert_allclose(np.cov(xs.T), COV, atol=0.2)
    assert 0.5 < s.acceptance_rate <= 1.0
    assert s.mean_accept_prob == pytest.approx(s.acceptance_rate, abs=0.05)


def test_rejection_negates_momentum_and_restores_the_state():
    rng = np.random.default_rng(2)
    s = hmc.HMC(gauss, np.array([0.0, 0.0]), rng, step_size=50.0, n_steps=3)
    s.p = np.array([1.0, 1.0])
    x, E, g = s.x.copy(), s.E, s.grad.copy()
    t = s.trajectory()
    assert not t.accepted
    np.testing.assert_array_equal(s.x, x)
    np.testing.assert_array_equal(s.p, [-1.0, -1.0])
    assert s.E == E
    np.testing.assert_array_equal(s.grad, g)  # the gradient is restored too (docs/methods/gp.md)


@pytest.mark.slow  # 4000 trajectories, 0.8 s; the fast loop samples a Gaussian above
def test_infinite_energy_is_a_rejection_not_a_crash():
    def wall(x):  # a standard normal restricted to x < 0.5
        if x[0] >= 0.5:
            return np.inf, np.full(1, np.nan)
        return 0.5 * float(x @ x), x.copy()

    rng = np.random.default_rng(3)
    s = hmc.HMC(wall, np.zeros(1), rng, step_size=0.4, n_steps=5, window=2)
    xs = []
    for _ in range(4000):
        s.step()
        xs.append(s.x[0])
    xs = np.array(xs)
    assert xs.max() < 0.5 and np.isfinite(xs).all()
    # truncated normal mean: -phi(0.5)/Phi(0.5)
    assert xs.mean() == pytest.approx(-0.35206532676429952 / 0.6914624612740131, abs=0.06)


def test_set_energy_re_evaluates_at_the_current_point():
    rng = np.random.default_rng(4)
    s = hmc.HMC(gauss, np.ones(2), rng, step_size=0.1)
    s.set_energy(lambda x: (2 * gauss(x)[0], 2 * gauss(x)[1]))
    assert s.E == pytest.approx(2 * gauss(np.ones(2))[0])


def test_partial_refresh_preserves_the_unit_gaussian():
    rng = np.random.default_rng(5)
    s = hmc.HMC(gauss, np.zeros(2), rng, step_size=0.1, persistence=0.95)
    ps = []
    for _ in range(20000):
        s.refresh_momentum()
        ps.append(s.p)
    ps = np.array(ps[2000:])
    assert ps.var(0) == pytest.approx([1, 1], abs=0.1)


def test_categorical_draw_is_generator_choice():
    """The window pick draws what ``rng.choice(k, p=...)`` draws (a seeded chain keeps
    its states), without its argument checks."""
    r, a, b = (np.random.default_rng(s) for s in (0, 7, 7))
    for _ in range(2000):
        k = int(r.integers(2, 12))
        w = np.exp(-r.standard_normal(k) * r.uniform(0, 30))
        assert int(a.choice(k, p=w / w.sum())) == hmc.categorical_draw(w / w.sum(), b)


class _Counted(hmc.Energy):
    """``gauss`` in place, counting the calls that ask for E."""

    def __init__(self, skip_energy: bool):
        self.skip, self.with_energy, self.calls = skip_energy, 0, 0

    def into(self, x, grad, with_energy=True):
        self.calls += 1
        self.with_energy += with_energy
        E, g = gauss(x)
        grad[...] = g
        return E if with_energy or not self.skip else 0.0


def test_in_place_energy_gives_the_chain_of_the_function_energy():
    """Windows of 3 in trajectories of 12: E is asked for only at the window states (6
    of 12, the start's known), and skipping it elsewhere changes nothing."""
    runs = []
    for energy in (gauss, _Counted(skip_energy=True)):
        s = hmc.HMC(energy, np.zeros(2), np.random.default_rng(9), step_size=0.3, n_steps=12,
                    window=3, persistence=0.5)  # fmt: skip
        xs = []
        for _ in range(200):
            s.step()
            xs.append(s.x.copy())
        runs.append(np.array(xs))
    np.testing.assert_array_equal(runs[0], runs[1])
    counted = energy
    assert counted.calls == 1 + 200 * 12  # the start, then one per leapfrog step
    assert counted.with_energy == 1 + 200 * 5  # windows 0..2 and 10..12, less the start


def test_non_finite_gradient_between_the_windows_rejects_the_trajectory():
    class Bad(hmc.Energy):
        def into(self, x, grad, with_energy=True):
            E, g = gauss(x)
            grad[...] = g if abs(x[0]) < 3 else np.nan  # NaN gradient, energy skipped
            return E if with_energy else 0.0

    s = hmc.HMC(Bad(), np.zeros(2), np.random.default_rng(1), step_size=0.5, n_steps=20,
                window=2)  # fmt: skip
    s.p = np.array([20.0, 0.0])  # runs out past |x| = 3 between the windows
    x0 = s.x.copy()
    t = s.trajectory()
    assert not t.accepted and t.accept_prob == 0.0
    np.testing.assert_array_equal(s.x, x0)
