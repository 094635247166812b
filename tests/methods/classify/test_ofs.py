"""ofs-loomi-1 and its ablations as DELVE methods, on Ripley's data."""

from __future__ import annotations

import numpy as np
import pytest
from support import class_instance

from delve_bench.losses import class_losses
from delve_bench.methods.base import Budget, FitContext
from delve_bench.methods.classify.ofs import OfsLoomi
from delve_bench.methods.classify.platt import fit_platt


def _fit(method, data):
    X, y, Xt, yt, classes = data
    ctx = FitContext(rng=np.random.default_rng(0), budget=Budget(), kinds=[], classes=classes)
    method.fit(X, y, ctx)
    return ctx.info, method.predict(Xt).categorical.probs


@pytest.fixture(scope="module")
def ripley(ws_module):
    return class_instance(ws_module, "ripley", "orig", 250, 0)


def test_ofs_loomi_on_ripley(ripley):
    info, P = _fit(OfsLoomi(), ripley)
    err = 100 * class_losses(ripley[3], P)["Z"].mean()
    # Hong, Chen et al. (2014): 9.7 % with 4 centres at their tau; our width is chosen by LOOMI
    assert err < 13.0 and 2 <= info["model_size"] <= 10
    assert info["scale"] in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4)
    assert 0 < info["loomi"] < 1 and len(info["lambdas"]) == info["model_size"]


def test_most_probable_class_is_the_sign_of_f(ripley):
    m = OfsLoomi()
    _, P = _fit(m, ripley)
    f = m.decision(ripley[2])
    assert np.array_equal(P.argmax(1), (f > 0).astype(int))
    order = np.argsort(f)
    assert np.all(np.diff(P[order, 1]) >= 0)  # P(+1) increases with f


def test_fixed_lambda_ablation_keeps_lambda_init(ripley):
    info, _ = _fit(OfsLoomi(lam_update="fixed"), ripley)
    assert np.all(np.asarray(info["lambdas"]) == 1e-6) and info["lambda_resets"] == 0


def test_loomr_ablation(ripley):
    info, P = _fit(OfsLoomi(criterion="loomr"), ripley)
    assert 0 <= info["loomr"] < 0.2 and 100 * class_losses(ripley[3], P)["Z"].mean() < 15


def test_two_classes_only():
    with pytest.raises(ValueError, match="2-class method"):
        ctx = FitContext(
            rng=np.random.default_rng(0), budget=Budget(), kinds=[], classes=("a", "b", "c")
        )
        OfsLoomi().fit(np.zeros((3, 1)), np.array([0, 1, 2]), ctx)


def test_platt_sigmoid():
    rng = np.random.default_rng(0)
    f = rng.normal(size=2000)
    y = np.where(rng.random(2000) < 1 / (1 + np.exp(-2.0 * f + 0.5)), 1, -1)
    p = fit_platt(f, y)
    assert p.A == pytest.approx(-2.0, abs=0.25) and p.B == pytest.approx(0.5, abs=0.2)
    p0 = fit_platt(f, y, intercept=False)
    assert p0.B == 0.0 and p0.A < 0
    assert p0.prob_positive(np.array([0.0]))[0] == 0.5


def test_a_tiny_decision_value_keeps_its_sign():
    """Far from every centre of a narrow kernel f is ~1e-300: P(+1) rounds to 1/2, but the
    class must stay sgn f, with sgn(0) = -1 (Hong, Chen et al. eq. 2)."""
    from delve_bench.methods.classify.platt import Platt

    m = OfsLoomi()
    m.X_, m.tau_, m.theta_, m.platt_ = np.array([[0.0]]), 1e-3, np.array([1.0]), Platt(-2.0, 0.0)
    X = np.array([[0.5], [1e9], [0.0]])
    P_pos = m.predict(X).categorical.probs
    m.theta_ = np.array([-1.0])
    P_neg = m.predict(X).categorical.probs
    assert P_pos.argmax(1).tolist() == [1, 0, 1]  # f = 0 exactly at 1e9: sgn(0) = -1
    assert P_neg.argmax(1).tolist() == [0, 0, 0]
    assert np.all(np.abs(P_pos[:2, 1] - 0.5) < 1e-15)  # moved by one unit in the last place


@pytest.fixture(scope="module")
def heart(ws_module):
    """Rätsch's first two heart realisations (published splits)."""
    return [class_instance(ws_module, "heart", "ida", 170, i) for i in (0, 1)]


def _fit_ctx(method, X, y, classes, first=None):
    ctx = FitContext(rng=np.random.default_rng(0), budget=Budget(), kinds=[], classes=classes)
    ctx.first_training = first
    method.fit(X, y, ctx)
    return ctx.info


def test_width_is_chosen_on_the_first_instance_and_reused(heart):
    """The paper's protocol: one tau per data set, chosen by LOOMI on the first
    realisation's training set and used for every realisation."""
    (X0, y0, _, _, classes), (X1, y1, _, _, _) = heart
    own0 = _fit_ctx(OfsLoomi(width_from="own"), X0, y0, classes)
    own1 = _fit_ctx(OfsLoomi(width_from="own"), X1, y1, classes)
    first1 = _fit_ctx(OfsLoomi(), X1, y1, classes, first=lambda: (X0, y0))
    assert first1["width_from"] == "first instance" and own1["width_from"] == "this training set"
    assert first1["tau"] == own0["tau"] and first1["width_curve"] == own0["width_curve"]
    # outside the runner (no first_training) and on instance 0 itself: its own training set
    alone = _fit_ctx(OfsLoomi(), X1, y1, classes)
    on0 = _fit_ctx(OfsLoomi(), X0, y0, classes, first=lambda: (X0.copy(), y0.copy()))
    assert alone["tau"] == own1["tau"] and alone["width_from"] == "this training set"
    assert on0["width_from"] == "this training set"
    assert all(np.array_equal(on0[k], own0[k]) for k in ("tau", "lambdas", "model_size", "loomi"))


def test_lambda_resets_are_recorded_by_term(heart):
    X, y, _, _, classes = heart[0]
    info = _fit_ctx(OfsLoomi(width_from="own", p_look=3), X, y, classes)
    assert 0 <= info["lambda_resets_kept"] <= info["lambda_resets"]
    kept = np.asarray(info["lambdas"])
    assert np.sum(kept == 1e-6) >= info["lambda_resets_kept"]


def test_raw_inputs_need_real_columns():
    m = OfsLoomi(inputs="raw")
    assert m.wants_raw and not OfsLoomi().wants_raw
    ctx = FitContext(
        rng=np.random.default_rng(0), budget=Budget(), kinds=["binary"] * 3, classes=("a", "b")
    )
    with pytest.raises(ValueError, match="real or binary inputs"):
        m.fit(np.zeros((4, 2)), np.array([0, 1, 0, 1]), ctx)
    for bad in ({"width_from": "all"}, {"inputs": "z"}, {"p_look": 0}):
        with pytest.raises(ValueError):
            OfsLoomi(**bad)
