"""lin-1 and knn-cv-1 against independent computations (numpy lstsq, a literal transcription
of the thesis' knn-cv-1 pseudo-code, scikit-learn's KNeighborsRegressor)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from delve_bench.methods.knn import KnnCv, loo_losses
from delve_bench.methods.lin import Lin


def kin(instance, n=256, i=0):
    """Encoded training and test data of instance ``i`` of kin-8nm/dist/std.<n>."""
    e = instance(f"kin-8nm/dist/std.{n}", i)
    return e.X_train, e.y_train, e.X_test, e.y_test_encoded


# ---------------------------------------------------------------- lin-1


def test_lin1_equals_least_squares_on_real_data(instance, make_ctx):
    X, y, Xt, _ = kin(instance)
    m = Lin()
    m.fit(X, y, make_ctx(8))
    w, *_ = np.linalg.lstsq(np.hstack([X, np.ones((len(X), 1))]), y, rcond=None)
    pred = m.predict(Xt)
    assert np.allclose(pred.mean, np.hstack([Xt, np.ones((len(Xt), 1))]) @ w, atol=1e-10)
    resid = np.hstack([X, np.ones((len(X), 1))]) @ w - y
    assert m.sigma2_ == pytest.approx(resid @ resid / (256 - 9))
    # the thesis' predictive variance: sigma^2 + x~^T A^-1 x~ (not scaled by sigma^2)
    Xa = np.hstack([Xt, np.ones((len(Xt), 1))])
    A = np.hstack([X, np.ones((len(X), 1))]).T @ np.hstack([X, np.ones((len(X), 1))])
    quad = np.einsum("ij,ij->i", Xa, np.linalg.solve(A, Xa.T).T)
    assert np.allclose(pred.density.var, m.sigma2_ + quad)


def test_lin1_drops_a_duplicated_input_direction(make_ctx):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    X = np.hstack([X, X[:, :1]])
    y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=50)
    m = Lin()
    with np.errstate(all="raise"):
        m.fit(X, y, make_ctx(4))
        p = m.predict(X[:5])
    assert m.num_fit_ == 4  # m + 1 = 5 directions, one dropped
    assert np.all(np.isfinite(p.mean)) and np.all(np.isfinite(p.density.var))


def test_lin1_has_no_density_when_n_is_at_most_m_plus_1(make_ctx):
    rng = np.random.default_rng(2)
    m = Lin()
    c = make_ctx(5)
    m.fit(rng.normal(size=(6, 5)), rng.normal(size=6), c)
    assert m.predict(rng.normal(size=(3, 5))).density is None and "warning" in c.info


# ---------------------------------------------------------------- knn-cv-1

TOL = 1e-6


def _find_neighbours(d, y, k):
    """The thesis' ``find_neighbors`` (§3.4, App. A.2), literally (true mean of the tied block)."""
    nbr = y[:k].copy()
    before = [i for i in range(k) if d[k - 1] - d[i] < TOL]
    after = [i for i in range(k, len(d)) if d[i] - d[k - 1] < TOL]
    if len(before) + len(after) > 1:
        nbr[before] = np.mean(y[before + after])
    return nbr


def _reference_loo(X, y):
    """Thesis §3.4 as written: loops over cases and k, a full recomputation for each."""
    n = len(y)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    per = []
    for c in range(n):
        idx = np.array([j for j in range(n) if j != c])
        o = np.argsort(D[c, idx], kind="stable")
        per.append((D[c, idx][o], y[idx][o]))
    vs2 = np.mean([(y[c] - _find_neighbours(*per[c], 1)[0]) ** 2 for c in range(n)])
    loo = np.zeros((3, n - 1))
    for c in range(n):
        for k in range(1, n):
            nb = _find_neighbours(*per[c], k)
            m = nb.mean()
            v = (vs2 + (nb**2).sum()) / k - m * m
            loo[:, k - 1] += [
                (m - y[c]) ** 2,
                abs(np.median(nb) - y[c]),
                np.log(2 * np.pi * v) + (m - y[c]) ** 2 / v,
            ]
    return loo, vs2


@pytest.mark.parametrize("ties", [False, True])
def test_knn_loo_equals_the_literal_algorithm(ties):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(45, 3)), rng.normal(size=45)
    if ties:  # exact duplicates and near-ties within the tolerance
        X[5] = X[3]
        X[7] = X[3]
        X[10] = X[11]
        X[12] = X[13] + 1e-9
        y[7] = 2.0
    fast, vs2 = loo_losses(X, y)
    ref, vs2_ref = _reference_loo(X, y)
    assert vs2 == pytest.approx(vs2_ref, rel=1e-12)
    assert np.allclose(fast, ref, rtol=1e-10, atol=1e-10)
    assert np.array_equal(fast.argmin(1), ref.argmin(1))


def test_knn_predictions_do_not_depend_on_the_order_of_tied_cases(make_ctx):
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(60, 2)), 1)  # many exact ties
    y = rng.normal(size=60)
    Xt = np.round(rng.normal(size=(20, 2)), 1)
    a, b = KnnCv(), KnnCv()
    a.fit(X, y, make_ctx(2))
    perm = rng.permutation(60)
    b.fit(X[perm], y[perm], make_ctx(2))
    pa, pb = a.predict(Xt), b.predict(Xt)
    assert (a.k_S_, a.k_A_, a.k_L_) == (b.k_S_, b.k_A_, b.k_L_)
    assert np.allclose(pa.mean, pb.mean) and np.allclose(pa.median, pb.median)
    assert np.allclose(pa.density.var, pb.density.var)


def test_knn_matches_scikit_learn_for_the_chosen_k(instance, make_ctx):
    neighbors = pytest.importorskip("sklearn.neighbors")
    X, y, Xt, _ = kin(instance, 128)
    m = KnnCv()
    m.fit(X, y, make_ctx(8))
    ref = neighbors.KNeighborsRegressor(n_neighbors=m.k_S_).fit(X, y).predict(Xt)
    assert np.allclose(m.predict(Xt).mean, ref)
    assert 1 <= m.k_L_ <= 127 and m.vs2_ > 0


@pytest.mark.slow  # a speed check, 1.2 CPU s
def test_knn_loo_over_all_k_at_n_1024_is_fast():
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(1024, 8)), rng.normal(size=1024)
    loo_losses(X[:64], y[:64])  # warm-up
    # CPU time of one thread, so that other load on the machine does not count
    with threadpool_limits(1):
        t = time.process_time()
        loo_losses(X, y)
        assert time.process_time() - t < 1.5  # typically ~0.3 s


def test_methods_come_from_yaml_and_entry_points(ws, monkeypatch):
    from importlib import metadata

    from delve_bench.methods import registry

    class EP:
        name, value = "lin-ep-1", "delve_bench.methods.lin:Lin"

    real = metadata.entry_points
    monkeypatch.setattr(
        metadata,
        "entry_points",
        lambda **kw: [EP()] if kw.get("group") == "delve_bench.methods" else real(**kw),
    )
    registry._entry_point_specs.cache_clear()  # entry points are read once per process
    try:
        names = registry.method_names(ws)
    finally:
        registry._entry_point_specs.cache_clear()
    assert {"lin-1", "knn-cv-1", "lin-ep-1"} <= set(names)
    monkeypatch.setattr(
        registry,
        "_entry_point_specs",
        lambda: {"lin-ep-1": registry.MethodSpec("lin-ep-1", EP.value)},
    )
    assert isinstance(registry.method_spec(ws, "lin-ep-1").instantiate(), Lin)
    spec = registry.method_spec(ws, "lin-1")
    assert (
        spec.make_budget(256, "work").work is None
        and spec.make_budget(256, "cpu").cpu_seconds is None
    )


@pytest.mark.parametrize(
    "old, new",
    [
        ("delve_bench.methods.lin:Lin1", "delve_bench.methods.lin:Lin"),
        ("delve_bench.methods.knn:KnnCv1", "delve_bench.methods.knn:KnnCv"),
        ("delve_bench.methods.mlp.ese:MlpEse1", "delve_bench.methods.mlp.ese:MlpEse"),
        ("delve_bench.methods.mlp.mc:MlpMc1", "delve_bench.methods.mlp.mc:MlpMc"),
        ("delve_bench.methods.basis.plugins:Abf", "delve_bench.methods.basis.plugins.abf:Abf"),
        (
            "delve_bench.methods.basis.plugins:OrrForward",
            "delve_bench.methods.basis.plugins.orr:OrrForward",
        ),
        ("delve_bench.methods.basis.plugins:Svm", "delve_bench.methods.basis.plugins.svm:Svm"),
        (
            "delve_bench.methods.classify.knn:KnnClassCv1",
            "delve_bench.methods.classify.knn:KnnClassCv",
        ),
        (
            "delve_bench.methods.classify.logistic:Logistic1",
            "delve_bench.methods.classify.logistic:Logistic",
        ),
        ("delve_bench.methods.classify.rvm:RvmClass1", "delve_bench.methods.classify.rvm:RvmClass"),
        ("delve_bench.methods.classify.svm:SvmClass1", "delve_bench.methods.classify.svm:SvmClass"),
    ],
)
def test_the_plugin_paths_of_older_method_yamls_still_load(old, new):
    """A workspace's own method YAML may name a plugin by its path before the families were
    reshaped (versionless class names, lin and knn packages, one basis module per method)."""
    from delve_bench.methods.registry import MethodSpec

    assert MethodSpec("m", old).load_class() is MethodSpec("m", new).load_class()
