"""mars3.6-1 and mars3.6-bag-1 through the harness on real data (kin-8nm)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from delve_bench.methods.base import Budget, FitContext
from delve_bench.methods.mars import MarsSettings, fit_mars
from delve_bench.methods.mars.plugins import Mars, MarsBag
from delve_bench.run import load_instance
from delve_bench.run.job import Job, RunOptions, execute
from delve_bench.tasks import TaskRef


def run(tmp_path, method: str, n: int = 64, instance: int = 0, force: bool = False):
    ref = TaskRef("kin-8nm", "dist", n)
    r = execute(str(tmp_path), Job(method, ref, instance), RunOptions(mode="work", force=force))
    assert r.status == "ok", r.error
    d = tmp_path / "results" / method / "kin-8nm" / "dist" / f"std.{n}" / str(instance)
    return json.loads((d / "meta.json").read_text()), pd.read_csv(d / "losses.csv"), d


def test_mars_runs_on_kin8nm_and_records_its_model(tmp_path, ws):
    meta, losses, _ = run(tmp_path, "mars3.6-1")
    info = meta["info"]
    assert meta["losses_available"] == ["S", "A"] and losses["L"].isna().all()
    bfs = info["basis_functions"]
    assert len(bfs) == 15 and info["n_selected"] == sum(b["selected"] for b in bfs) >= 1
    assert {"input", "knot", "sign", "parent", "linear"} <= set(bfs[0])
    assert all(0 <= b["parent"] < b["bf"] for b in bfs)
    assert info["gcv_linear"] > 0 and info["gcv_cubic"] > 0
    # the plugin predicts what fit_mars fits on the encoded instance
    e = load_instance(ws, "kin-8nm/std.64", 0)
    fit = fit_mars(e.X_train, e.y_train, MarsSettings())
    pred = e.coding.decode(fit.predict(e.X_test))
    np.testing.assert_allclose(losses["S"], (pred - e.y_test) ** 2, rtol=1e-9)
    # better than predicting the training mean
    assert losses["S"].mean() < np.var(e.y_test)


@pytest.mark.slow  # 50 MARS fits per instance, twice
def test_bagged_mars_is_seeded_and_records_the_mean_size(tmp_path):
    meta, losses, d = run(tmp_path, "mars3.6-bag-1")
    info = meta["info"]
    assert info["bags"] == 50 and len(info["n_selected"]) == 50
    assert info["mean_n_selected"] == pytest.approx(np.mean(info["n_selected"]))
    first = (d / "predictions.csv").read_bytes()
    run(tmp_path, "mars3.6-bag-1", force=True)
    assert (d / "predictions.csv").read_bytes() == first  # same seed, same bootstrap samples


def test_bag_draws_bootstrap_samples_from_the_instance_generator():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(80, 3))
    y = np.sin(3 * X[:, 0]) + X[:, 1] + 0.05 * rng.normal(size=80)
    ctx = FitContext(rng=np.random.default_rng(11), budget=Budget(mode="work"), kinds=["real"] * 3)
    bag = MarsBag(bags=3)
    bag.fit(X, y, ctx)
    draw = np.random.default_rng(11)
    fits = []
    for _ in range(3):
        i = draw.integers(0, 80, size=80)
        fits.append(fit_mars(X[i], y[i]))
    Xt = rng.uniform(size=(10, 3))
    np.testing.assert_allclose(bag.predict(Xt).mean, np.mean([f.predict(Xt) for f in fits], axis=0))
    one = Mars()
    one.fit(
        X,
        y,
        FitContext(rng=np.random.default_rng(0), budget=Budget(mode="work"), kinds=["real"] * 3),
    )
    assert one.predict(Xt).median is not None


@pytest.mark.slow
def test_delve_run_both_methods_on_kin8nm(delve):
    delve("run", "mars3.6-1", "mars3.6-bag-1", "kin-8nm/std.64", "-q", check=True)
    r = delve("compare", "mars3.6-1", "mars3.6-bag-1", "kin-8nm/std.64", check=True)
    assert "t-test" in r.stdout and "8 disjoint training sets" in r.stdout
