"""MARS 3.6 reference runs A, B, C: Friedman's Fortran (single precision, compiled with
gfortran) on the problem of ``mars_reference_data``; nk = 15, unit weights, defaults
otherwise. Forward steps, backward GCVs, the selected subset and test predictions of the
piecewise-linear and piecewise-cubic models must agree (predictions to 1e-4 relative:
the Fortran computes in REAL)."""

from __future__ import annotations

import numpy as np
import pytest
from mars_reference_data import problem

from delve_bench.methods.mars import MarsSettings, fit_mars

LIN = None  # a linear step: knot at the training minimum

RUNS = {
    "A": dict(
        n=64,
        p=8,
        mi=8,
        # (variable from 1, knot or LIN, parent, basis functions added)
        steps=[
            (4, LIN, 0, (1,)),
            (2, LIN, 0, (2,)),
            (1, 0.76953125, 0, (3, 4)),
            (5, LIN, 0, (5,)),
            (3, 0.54101562, 0, (6, 7)),
            (2, 0.39160156, 0, (8, 9)),
            (1, 0.46777344, 8, (10, 11)),
            (1, LIN, 9, (12,)),
            (7, 0.38574219, 8, (13, 14)),
            (6, LIN, 13, (15,)),
        ],
        nli=14,
        c=3.142857,
        path=[
            (45.0, 3.06936),
            (41.857, 2.31439),
            (38.714, 1.82226),
            (35.571, 1.59116),
            (32.429, 1.77502),
            (29.286, 1.57882),
            (26.143, 1.72634),
            (23.0, 4.21210),
        ],
        selected=[1, 2, 4, 5, 6, 7, 10, 11, 12],
        gcv=(1.57882, 29.286),
        intercept=5.75259,
        coef=[10.1069, 8.72786, -11.3858, 5.18777, 10.9426, 7.65699, -33.0812, -16.5902, -18.2549],
        cubic_gcv=1.251,
        linear=[19.229431, 2.4697869, 15.274938, 18.151783, 18.297661],
        cubic=[19.414711, 2.8839929, 15.325704, 18.239422, 18.384958],
    ),
    "B": dict(
        n=64,
        p=8,
        mi=1,
        steps=[
            (4, LIN, 0, (1,)),
            (2, LIN, 0, (2,)),
            (1, 0.76953125, 0, (3, 4)),
            (5, LIN, 0, (5,)),
            (3, 0.54101562, 0, (6, 7)),
            (2, 0.39160156, 0, (8, 9)),
            (7, 0.38574219, 0, (10, 11)),
            (1, 0.22460938, 0, (12, 13)),
            (3, 0.21972656, 0, (14, 15)),
        ],
        nli=12,
        c=2.5,
        path=[(31.0, None)],
        selected=[1, 2, 4, 5, 7, 8, 12, 14],
        gcv=(3.02103, 21.0),
        cubic_gcv=2.916,
        linear=[18.285406, 2.9893782, 15.707582, 21.604410, 17.862089],
        cubic=[18.351667, 3.3726995, 15.970781, 21.599705, 17.997465],
    ),
    "C": dict(
        n=256,
        p=16,
        mi=8,
        steps=[
            (4, LIN, 0, (1,)),
            (1, 0.67578125, 0, (2, 3)),
            (2, 0.51464844, 0, (4, 5)),
            (3, 0.48144531, 0, (6, 7)),
            (5, LIN, 0, (8,)),
            (2, 0.53027344, 3, (9, 10)),
            (1, LIN, 5, (11,)),
            (5, 0.69140625, 9, (12, 13)),
            (15, 0.53222656, 9, (14, 15)),
        ],
        nli=15,
        c=2.8,
        path=[],
        selected=list(range(1, 15)),
        gcv=(0.97845, 40.2),
        cubic_gcv=0.9715,
        linear=[18.644150, 1.5325086, 15.111109, 18.641649, 20.017874],
        cubic=[18.471273, 1.2537332, 15.618591, 18.763927, 20.507393],
    ),
}


@pytest.fixture(scope="module", params=sorted(RUNS))
def run(request):
    r = RUNS[request.param]
    x, y, xt = problem(r["n"], r["p"])
    return r, fit_mars(x, y, MarsSettings(nk=15, mi=r["mi"])), xt


def test_forward_steps_in_order(run):
    r, fit, _ = run
    got = []
    for s in fit.forward.steps:
        knot = (
            LIN
            if s.linear
            else round(float(fit.mean[s.variable] + fit.scale[s.variable] * s.knot), 8)
        )
        got.append((s.variable + 1, knot, s.parent, s.added))
    assert got == r["steps"]
    assert fit.forward.iterations == len(r["steps"])
    # a linear step is a hinge at the training minimum: zero below it
    for s in fit.forward.steps:
        bf = fit.forward.basis[s.added[0] - 1]
        assert (bf.knot == fit.forward.xmin[bf.variable]) == s.linear


def test_backward_costs_gcvs_and_subset(run):
    r, fit, _ = run
    b = fit.backward
    assert b.n_independent == r["nli"]
    assert b.cost_per_bf == pytest.approx(r["c"], rel=1e-6)
    for (cost, gcv), (ref_cost, ref_gcv) in zip(b.path[: len(r["path"])], r["path"], strict=True):
        assert cost == pytest.approx(ref_cost, abs=1e-3)
        if ref_gcv is not None:
            assert gcv == pytest.approx(ref_gcv, rel=2e-5)
    assert fit.selected == r["selected"]
    assert b.gcv == pytest.approx(r["gcv"][0], rel=2e-5)
    assert b.cost == pytest.approx(r["gcv"][1], abs=1e-3)
    assert fit.cubic.gcv == pytest.approx(r["cubic_gcv"], abs=6e-4)
    if "coef" in r:
        assert b.intercept == pytest.approx(r["intercept"], rel=1e-5)
        # the Fortran reports coefficients in input units; ours are per standardized input
        coef = [
            b.coef[m - 1] / np.prod([fit.scale[f.variable] for f in _factors(fit, m)])
            for m in fit.selected
        ]
        np.testing.assert_allclose(coef, r["coef"], rtol=1e-5)


def _factors(fit, m):
    from delve_bench.methods.mars.basis import factors

    return factors(fit.forward.basis, m)


def test_test_predictions_linear_and_cubic(run):
    r, fit, xt = run
    np.testing.assert_allclose(fit.predict(xt, cubic=False), r["linear"], rtol=1e-4)
    np.testing.assert_allclose(fit.predict(xt), r["cubic"], rtol=1e-4)


def test_a_step_without_candidates_adds_the_previous_winner_again():
    """n = 12, one input: after x (linear) nothing new is admissible (no room for knots,
    the linear term exists). MARS 3.6 re-adds its last winner, a collinear basis function
    outside the basis, until the cost limit: 8 iterations, c = 9, the constant model
    (the Fortran, compiled with gfortran, on this data)."""
    n = 12
    x = (np.arange(n) * 7 % n) / n
    y = np.round(np.sin(3 * x) * 100) / 100 + np.round(np.cos(np.arange(n) * 2.1) * 30) / 100
    fit = fit_mars(x[:, None], y)
    assert fit.forward.iterations == 8 and fit.forward.rank == 1
    assert len({(b.variable, b.sign, b.knot, b.parent) for b in fit.forward.basis}) == 1
    assert len(fit.forward.basis) == 8
    assert fit.backward.cost_per_bf == pytest.approx(8.99999, rel=1e-5)
    assert fit.selected == []
    np.testing.assert_allclose(fit.predict(np.array([[0.05], [0.5], [0.95]])), 0.655, rtol=1e-6)
