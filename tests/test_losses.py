"""Z, Q and L per case and their standardisation, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from delve_bench.losses import P_FLOOR, class_losses, standardizer, task_losses


def test_class_losses_by_hand():
    P = np.array([[0.7, 0.2, 0.1], [0.7, 0.2, 0.1], [0.25, 0.5, 0.25], [1.0, 0.0, 0.0]])
    t = np.array([0, 2, 1, 1])
    out = class_losses(t, P)
    assert out["Z"].tolist() == [0.0, 1.0, 0.0, 1.0]
    # Q = sum_c (p_c - [c = t])^2
    assert out["Q"] == pytest.approx(
        [0.09 + 0.04 + 0.01, 0.49 + 0.04 + 0.81, 0.0625 * 2 + 0.25, 2.0]
    )
    assert out["L"][:3] == pytest.approx([-math.log(0.7), -math.log(0.1), -math.log(0.5)])
    # a zero probability of the true class: the floor gives a large finite loss
    assert out["L"][3] == pytest.approx(-math.log(P_FLOOR)) == pytest.approx(27.631021115928547)


def test_zero_one_ties_share_the_loss():
    P = np.array([[0.5, 0.5], [0.5, 0.5]])
    out = class_losses(np.array([0, 1]), P)
    assert out["Z"].tolist() == [0.5, 0.5]  # expected 0/1 loss when the tie is broken at random
    P3 = np.array([[0.4, 0.4, 0.2], [0.4, 0.4, 0.2], [1 / 3, 1 / 3, 1 / 3]])
    assert class_losses(np.array([0, 2, 2]), P3)["Z"] == pytest.approx([0.5, 1.0, 2 / 3])


def test_class_losses_score_many_predictions_at_once():
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=(5, 4))  # 5 cases x 4 predictions x 3 classes
    t = rng.integers(0, 3, 5)
    many = class_losses(t, P)
    for k in range(4):
        one = class_losses(t, P[:, k])
        for loss in "ZQL":
            assert many[loss][:, k] == pytest.approx(one[loss])


def test_classification_standardisation_by_hand():
    codes = np.array([0, 0, 0, 1, 1, 2, 0, 1])  # frequencies 1/2, 3/8, 1/8
    f = np.array([0.5, 0.375, 0.125])
    z = standardizer("Z", codes, categorical=True)
    assert (z.scale, z.shift) == (0.5, 0.0)  # 1 - largest class frequency
    q = standardizer("Q", codes, categorical=True)
    assert q.scale == pytest.approx(1 - np.sum(f**2))
    ll = standardizer("L", codes, categorical=True)
    assert ll.scale == 1.0 and ll.shift == pytest.approx(-np.sum(f * np.log(f)))
    # expected losses: (x - shift) / scale; spreads only divided
    assert z.mean(0.25) == 0.5 and z.spread(0.1) == pytest.approx(0.2)
    assert ll.mean(ll.shift) == 0.0 and ll.spread(0.3) == 0.3


def test_guessing_the_class_frequencies_scores_one_and_zero():
    """The baselines the standardisation is built on: always the commonest class gives
    standardised Z = 1; predicting the class frequencies gives Q = 1 and L = 0."""
    rng = np.random.default_rng(1)
    t = rng.choice(3, size=400, p=[0.6, 0.3, 0.1])
    f = np.bincount(t, minlength=3) / len(t)
    P = np.tile(f, (len(t), 1))
    out = class_losses(t, P)
    assert standardizer("Z", t, True).mean(out["Z"].mean()) == pytest.approx(1.0)
    assert standardizer("Q", t, True).mean(out["Q"].mean()) == pytest.approx(1.0)
    assert standardizer("L", t, True).mean(out["L"].mean()) == pytest.approx(0.0, abs=1e-12)


def test_losses_belong_to_their_task_kind():
    assert task_losses(False) == ("S", "A", "L") and task_losses(True) == ("Z", "Q", "L")
    with pytest.raises(ValueError, match="not a classification loss"):
        standardizer("S", np.array([0, 1]), categorical=True)
    with pytest.raises(ValueError, match="not a regression loss"):
        standardizer("Z", np.array([0.0, 1.0]))
