"""Friedman's truncated cubics (1991 §3.7): C1 at both side knots, the hinge outside."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.methods.mars.basis import BasisFunction
from delve_bench.methods.mars.cubic import CubicFactor, side_knots


def hinge(x, s, t):
    return np.maximum(0.0, s * (x - t))


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("lo,t,hi", [(-1.0, 0.3, 2.0), (0.0, 0.1, 0.15), (-3.0, 2.5, 2.6)])
def test_truncated_cubic_is_c1_at_both_side_knots(sign, lo, t, hi):
    f = CubicFactor(0, sign, t, 0.5 * (lo + t), 0.5 * (t + hi))
    h = 1e-6
    for k in (f.lower, f.upper):
        left, right = f(np.array([k - h])), f(np.array([k + h]))
        assert abs(left - right) < 1e-5  # continuous
        d_left = (f(np.array([k - h])) - f(np.array([k - 2 * h]))) / h
        d_right = (f(np.array([k + 2 * h])) - f(np.array([k + h]))) / h
        assert abs(d_left - d_right) < 1e-4  # continuous first derivative
        slope_outside = sign if (k == f.upper) == (sign > 0) else 0.0
        assert d_left == pytest.approx(slope_outside, abs=1e-4)
    x = np.concatenate([np.linspace(lo - 1, f.lower, 7), np.linspace(f.upper, hi + 1, 7)])
    np.testing.assert_allclose(f(x), hinge(x, sign, t), atol=1e-12)
    # a mirror pair differs by the straight line x - t everywhere, inside the interval too
    g = CubicFactor(0, -sign, t, f.lower, f.upper)
    z = np.concatenate([x, np.linspace(f.lower, f.upper, 101)])
    np.testing.assert_allclose((f(z) - g(z)) * sign, z - t, atol=1e-12)


def test_linear_factor_stays_a_hinge_at_the_minimum():
    f = CubicFactor(0, 1, -1.0, -1.0, -1.0)
    x = np.array([-2.0, -1.0, -0.5, 3.0])
    np.testing.assert_array_equal(f(x), [0.0, 0.0, 0.5, 4.0])


def test_side_knots_come_from_the_selected_bfs_of_the_same_anova_function():
    B = [
        BasisFunction(0, 1, 0.0, 0),  # 1: x0 at 0
        BasisFunction(0, -1, 0.0, 0),  # 2
        BasisFunction(0, 1, 1.0, 0),  # 3: x0 at 1
        BasisFunction(1, 1, 0.5, 3),  # 4: x1 at .5 times bf 3 (another ANOVA function)
        BasisFunction(0, 1, -0.5, 0),  # 5: x0 at -0.5, pruned below
    ]
    xmin, xmax = np.array([-2.0, -1.0]), np.array([2.0, 1.0])
    terms = side_knots(B, [1, 2, 3, 4], xmin, xmax)
    f1 = terms[0][0]
    assert (f1.lower, f1.upper) == (-1.0, 0.5)  # knots 0 and 1 on x0 in group {x0}; 5 pruned
    f3 = terms[2][0]
    assert (f3.lower, f3.upper) == (0.5, 1.5)
    # bf 4's factors take their side knots from group {x0, x1}: only the knot at 1 on x0
    f4_x1, f4_x0 = terms[3]
    assert (f4_x1.variable, f4_x1.lower, f4_x1.upper) == (1, -0.25, 0.75)
    assert (f4_x0.variable, f4_x0.lower, f4_x0.upper) == (0, -0.5, 1.5)
