"""The modern baselines' tuning protocol (delve_bench.methods.modern.search and .space),
checked with a learner whose validation curves are known in closed form."""

from __future__ import annotations

import time

import numpy as np
import pytest

from delve_bench.methods.base import Budget
from delve_bench.methods.modern.search import TunedMethod, cv_score, kfold, search_done
from delve_bench.methods.modern.space import configuration, parse_space

SPACE = {
    "a": ["uniform", -1.0, 1.0],
    "b": ["log", 0.01, 10.0],
    "c": ["int", 2, 5],
    "d": ["logint", 1, 32],
    "e": ["choice", "x", "y", "z"],
}


def test_space_draws_stay_in_range_and_cover_it():
    dims = parse_space(SPACE)
    draws = [configuration(dims, 7, i, {}) for i in range(1, 400)]
    a = np.array([d["a"] for d in draws])
    b = np.array([d["b"] for d in draws])
    assert a.min() >= -1 and a.max() < 1 and b.min() >= 0.01 and b.max() < 10
    # log-uniform: about half the draws below the geometric midpoint sqrt(0.01 * 10)
    assert 0.4 < np.mean(b < np.sqrt(0.1)) < 0.6
    assert {d["c"] for d in draws} == {2, 3, 4, 5}
    assert {d["d"] for d in draws} <= set(range(1, 33)) and {1, 32} <= {d["d"] for d in draws}
    assert all(isinstance(d["c"], int) and isinstance(d["d"], int) for d in draws)
    assert {d["e"] for d in draws} == {"x", "y", "z"}


def test_configuration_zero_is_the_defaults_and_each_draw_depends_only_on_its_index():
    dims = parse_space(SPACE)
    assert configuration(dims, 7, 0, {"lr": 0.03}) == {"lr": 0.03}
    assert configuration(dims, 7, 5, {}) == configuration(dims, 7, 5, {"lr": 0.03})
    assert configuration(dims, 7, 5, {}) != configuration(dims, 8, 5, {})
    assert configuration(dims, 7, 5, {}) != configuration(dims, 7, 6, {})


@pytest.mark.parametrize(
    "space, needle",
    [
        ({"a": ["normal", 0, 1]}, "kind one of"),
        ({"a": "log"}, "kind one of"),
        ({"a": ["uniform", 1.0, 1.0]}, "must be below"),
        ({"a": ["log", 0.0, 1.0]}, "low > 0"),
        ({"a": ["int", 1.5, 4]}, "whole numbers"),
        ({"a": ["uniform", 0.0]}, "two numbers"),
        ({"a": ["choice"]}, "at least one value"),
        (["a"], "mapping"),
    ],
)
def test_a_malformed_space_is_one_line_naming_the_dimension(space, needle):
    with pytest.raises(ValueError, match=needle) as e:
        parse_space(space)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("n, k", [(64, 5), (10, 10), (103, 3)])
def test_kfold_partitions_the_training_cases(n, k):
    splits = kfold(n, k, seed=3)
    vals = np.concatenate([v for _, v in splits])
    assert np.array_equal(np.sort(vals), np.arange(n))
    sizes = [len(v) for _, v in splits]
    assert max(sizes) - min(sizes) <= 1
    for tr, va in splits:
        assert len(np.intersect1d(tr, va)) == 0 and len(tr) + len(va) == n
    assert kfold(n, k, 3)[0][1].tolist() != kfold(n, k, 4)[0][1].tolist()


def test_cv_score_pools_each_fold_at_its_best_round():
    # fold 1 (3 cases) is best at round 1 and stopped early; fold 2 (5 cases) at round 4
    c1 = np.array([0.5, 0.6, 0.7])
    c2 = np.array([2.0, 1.5, 1.2, 1.0, 1.1, 1.3])
    score, rounds = cv_score([c1, c2], [3, 5])
    assert score == pytest.approx((3 * 0.5 + 5 * 1.0) / 8)
    assert rounds == 3  # (1 + 4) / 2 = 2.5, rounded half up
    assert cv_score([np.array([0.2])] * 5, [4] * 5) == (pytest.approx(0.2), 1)
    with pytest.raises(ValueError, match="no validation loss"):
        cv_score([c1, np.array([])], [3, 5])


class Quadratic(TunedMethod):
    """A learner whose validation MSE after round r is (a - 0.3)^2 + (r - 7)^2 / 100 + 1,
    independent of the data; the refit predicts the configuration's ``a`` everywhere."""

    label = "quadratic"
    burn = 0.0  # CPU seconds each curve spends (the cpu-mode test)

    def curve(self, params, X, y, Xv, yv, seed):
        t = time.process_time()
        while time.process_time() - t < self.burn:
            pass
        a = params.get("a", 0.0)
        r = np.arange(1, min(self.max_rounds, 7 + self.patience) + 1)
        return (a - 0.3) ** 2 + (r - 7) ** 2 / 100 + 1

    def refit(self, params, rounds, X, y, seed):
        self.refitted = (params, rounds, len(y))
        return params.get("a", 0.0)

    def predict_model(self, model, X):
        return np.full(len(X), model)

    def library_version(self):
        return "quadratic 1"


def fit_quadratic(make_ctx, budget, seed=0):
    m = Quadratic(space={"a": ["uniform", -1.0, 1.0]}, max_rounds=50, patience=5)
    ctx = make_ctx(2, budget=budget, seed=seed)
    rng = np.random.default_rng(1)
    m.fit(rng.normal(size=(40, 2)), rng.normal(size=40), ctx)
    return m, ctx


def test_the_search_refits_the_best_configuration_at_its_best_round(make_ctx):
    m, ctx = fit_quadratic(make_ctx, Budget(mode="work", work=20))
    dims = parse_space({"a": ["uniform", -1.0, 1.0]})
    space_seed = int(np.random.default_rng(0).integers(2**31 - 1, size=3)[0])
    a = [0.0] + [configuration(dims, space_seed, i, {})["a"] for i in range(1, 20)]
    best = int(np.argmin([(x - 0.3) ** 2 for x in a]))
    assert ctx.info["configurations"] == 20 and ctx.info["chosen"] == best
    assert m.refitted == ({"a": a[best]}, 7, 40)  # all 40 training cases, round 7
    assert ctx.info["cv_mse"] == pytest.approx((a[best] - 0.3) ** 2 + 1)
    assert ctx.info["default_cv_mse"] == pytest.approx(0.09 + 1)
    assert np.all(m.predict(np.zeros((3, 2))).mean == a[best])


def test_a_smaller_work_budget_searches_a_prefix_of_the_same_sequence(make_ctx):
    small, c1 = fit_quadratic(make_ctx, Budget(mode="work", work=3))
    large, c2 = fit_quadratic(make_ctx, Budget(mode="work", work=30))
    assert c1.info["configurations"] == 3 and c2.info["configurations"] == 30
    assert c2.info["cv_mse"] <= c1.info["cv_mse"]
    if c2.info["chosen"] < 3:  # the best of the first three is the best of the prefix
        assert c1.info["chosen"] == c2.info["chosen"]


def test_the_search_needs_a_finite_budget(make_ctx):
    with pytest.raises(ValueError, match="quadratic needs a finite budget"):
        fit_quadratic(make_ctx, Budget(mode="work"))


def test_cpu_mode_stops_the_search_before_the_budget_is_spent(make_ctx):
    Quadratic.burn = 0.01  # five folds: about 0.05 s per configuration
    try:
        t = time.process_time()
        m, ctx = fit_quadratic(make_ctx, Budget(mode="cpu", cpu_seconds=0.5))
        used = time.process_time() - t
    finally:
        Quadratic.burn = 0.0
    assert 2 <= ctx.info["configurations"] <= 10
    assert used < 0.5 + 0.1  # stopped within the budget, give or take one configuration


def test_search_done_in_each_mode():
    assert not search_done(Budget(mode="work", work=3), 2, 3)
    assert search_done(Budget(mode="work", work=3), 3, 3)
    # 8 s used over 4 configurations: a fifth (2 s) would reach 10 s > 0.9 x 10 s
    b = Budget(mode="cpu", cpu_seconds=10.0, start_cpu=time.process_time() - 8.0)
    assert search_done(b, 4, 10.0)
    b = Budget(mode="cpu", cpu_seconds=100.0, start_cpu=time.process_time() - 8.0)
    assert not search_done(b, 4, 100.0)


@pytest.mark.parametrize(
    "kw, needle",
    [({"folds": 1}, "folds"), ({"max_rounds": 0}, "max_rounds"), ({"patience": 2.5}, "patience")],
)
def test_bad_protocol_parameters_are_refused(kw, needle):
    with pytest.raises(ValueError, match=needle):
        Quadratic(space={}, **kw)
