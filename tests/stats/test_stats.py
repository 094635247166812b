"""DELVE statistics against independent computations: statsmodels ANOVA tables for the sums
of squares, scipy distributions for the tests, and the worked numbers of the spec."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from delve_bench.losses import Standardizer, standardizer
from delve_bench.report import format_comparison
from delve_bench.report.mstats import _row as _mstats_row
from delve_bench.stats import anova, compare_test, posterior_opposite_mass
from delve_bench.stats.anova import Anova
from delve_bench.stats.results import ComparisonResult
from delve_bench.stats.summary import compare
from delve_bench.stats.tests import quasi_f, t_test


def _anova_table(formula: str, y) -> pd.DataFrame:
    """statsmodels' ANOVA table of an OLS fit of ``formula`` to the long form of ``y``.
    Imported here: statsmodels' API costs every test process a second when it collects."""
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    return anova_lm(ols(formula, data=_long(y)).fit())


def _long(y):
    I, J = y.shape
    return pd.DataFrame(
        {"y": y.ravel(), "i": np.repeat(np.arange(I), J), "j": np.tile(np.arange(J), I)}
    )


def test_hierarchical_mean_squares_equal_statsmodels():
    rng = np.random.default_rng(0)
    y = rng.normal(size=(6, 40)) + rng.normal(size=(6, 1))
    a = anova(y, "hierarchical")
    table = _anova_table("y ~ C(i)", y)
    assert a.ms_a == pytest.approx(table.loc["C(i)", "mean_sq"], rel=1e-12)
    assert a.ms_e == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-12)
    assert a.se == pytest.approx(np.sqrt(max((a.ms_a - a.ms_e) / 40, 0) / 6 + a.ms_e / 240))


def test_two_way_mean_squares_equal_statsmodels():
    rng = np.random.default_rng(1)
    y = rng.normal(size=(5, 30)) + rng.normal(size=(5, 1)) + rng.normal(size=(1, 30))
    a = anova(y, "2-way")
    table = _anova_table("y ~ C(i) + C(j)", y)
    assert a.ms_a == pytest.approx(table.loc["C(i)", "mean_sq"], rel=1e-12)
    assert a.ms_b == pytest.approx(table.loc["C(j)", "mean_sq"], rel=1e-12)
    assert a.ms_e == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-12)


def test_t_test_is_the_two_sided_student_t_on_instance_means():
    rng = np.random.default_rng(2)
    y = rng.normal(0.3, 1, size=(8, 50)) + rng.normal(size=(8, 1))
    r = t_test(anova(y, "hierarchical"))
    ref = st.ttest_1samp(y.mean(1), 0.0)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert r.p == pytest.approx(ref.pvalue, rel=1e-10)


def test_quasi_f_follows_lindman_with_the_upper_tail():
    rng = np.random.default_rng(3)
    y = 0.2 + rng.normal(size=(4, 60)) + 0.5 * rng.normal(size=(4, 1)) + rng.normal(size=(1, 60))
    a = anova(y, "2-way")
    I, J = y.shape
    ss = I * J * a.mean**2
    F = (ss + a.ms_e) / (a.ms_a + a.ms_b)
    nu1 = (ss + a.ms_e) ** 2 / (ss**2 + a.ms_e**2 / ((I - 1) * (J - 1)))
    nu2 = (a.ms_a + a.ms_b) ** 2 / (a.ms_a**2 / (I - 1) + a.ms_b**2 / (J - 1))
    r = quasi_f(a)
    assert r.test == "F" and r.statistic == pytest.approx(F)
    assert r.p == pytest.approx(st.f.sf(F, nu1, nu2), rel=1e-10)


def test_quasi_f_is_roughly_uniform_under_the_null_with_8_instances():
    rng = np.random.default_rng(4)
    ps = []
    for _ in range(400):
        y = (
            rng.normal(size=(8, 40))
            + 0.3 * rng.normal(size=(8, 1))
            + 0.5 * rng.normal(size=(1, 40))
        )
        ps.append(quasi_f(anova(y, "2-way")).p)
    ps = np.array(ps)
    assert 0.02 < np.mean(ps < 0.05) < 0.09  # nominal 5 %; the thesis' simulations allow 4-7 %


def test_fewer_than_4_instances_report_only_p_below_005():
    rng = np.random.default_rng(5)
    y = 3 + rng.normal(size=(2, 100)) + rng.normal(size=(1, 100))
    r = compare_test(anova(y, "2-way"))
    assert r.p < 0.05 and r.bounded and r.p_text == "< 0.05"
    y8 = 3 + rng.normal(size=(8, 100))
    assert not compare_test(anova(y8, "2-way")).bounded


def test_t_test_is_undefined_without_instance_variation():
    y = np.tile(np.arange(10.0), (4, 1))  # identical rows: MSa = 0
    r = t_test(anova(y, "hierarchical"))
    assert r.p is None and r.p_text == "= undefined"
    assert quasi_f(anova(y - 4.5, "2-way")).test == "F"  # MSb > 0 keeps the quasi-F


def test_negative_variance_estimates_are_truncated_at_zero():
    rng = np.random.default_rng(6)
    e = rng.normal(size=(8, 100))
    y = e - e.mean(1, keepdims=True)  # row means all equal: MSa = 0 < MSe
    a = anova(y, "hierarchical")
    assert a.var_a == 0 and a.sd_train == 0
    assert a.se == pytest.approx(np.sqrt(a.ms_e / 800))


def _from_sds(I, J, mean, sa, se):
    ms_e = se**2
    ms_a = J * sa**2 + ms_e
    return Anova(
        design="hierarchical",
        I=I,
        J=J,
        mean=mean,
        ms_a=ms_a,
        ms_e=ms_e,
        ms_b=None,
        var_a=sa**2,
        var_b=None,
        se=float(np.sqrt(sa**2 / I + ms_e / (I * J))),
    )


def test_thesis_figure_2_2_numbers():
    """Rasmussen (1996) Fig. 2.2: SE 11.4546 and p = 0.0399302 from SDs 15.3883 / 271.541."""
    a = _from_sds(4, 256, -39.9114, 15.3883, 271.541)
    assert a.se == pytest.approx(11.4546, abs=2e-4)
    assert t_test(a).p == pytest.approx(0.0399302, abs=5e-6)
    assert posterior_opposite_mass(a) == pytest.approx(0.023, abs=0.0015)  # Fig. 2.3: 2.3 %


def _matrix(I, J, mean, sa, se, rng):
    """Losses whose ANOVA gives exactly mean, sigma_a and sigma_e."""
    a = rng.normal(size=I)
    a = (a - a.mean()) / a.std(ddof=1)
    e = rng.normal(size=(I, J))
    e -= e.mean(1, keepdims=True)
    e /= np.sqrt((e**2).sum() / (I * (J - 1)))
    return mean + a[:, None] * np.sqrt((J * sa**2 + se**2) / J) + se * e


MSTATS_EXAMPLE = """\
/lin-1/demo/age/std.128
Loss: S (Squared error)
                                                      Raw value   Standardized

               Estimated expected loss for lin-1:   400.729718    0.81974466
           Estimated expected loss for /knn-cv-1:   368.002767   0.752797434
                   Estimated expected difference:   32.7269508  0.0669472264
          Standard error for difference estimate:   14.0749681  0.0287921744

     SD from training sets & stochastic training:   27.6978006  0.0566594468
SD from test cases & stoch. pred. & interactions:   323.514631   0.661791176

    Significance of difference (t-test), p = 0.0529880206

    Based on 8 disjoint training sets, each containing 128 cases and
             8 disjoint test sets, each containing 128 cases.
"""


def test_mstats_golden_layout_and_numbers():
    """DELVE 1.1's mstats example: rebuild the printed output from its variance components."""
    rng = np.random.default_rng(7)
    d = _matrix(8, 128, 32.7269508, 27.6978006, 323.514631, rng)
    yb = np.full((8, 128), 368.002767)
    c = compare(yb + d, yb, "hierarchical", Standardizer(loss="S", scale=488.847, shift=0.0))
    r = ComparisonResult.of(
        c,
        method_a="lin-1",
        method_b="knn-cv-1",
        task="demo/age/std.128",
        loss="S",
        instances=8,
        train_size=128,
        test_size=128,
        design="hierarchical",
        instances_missing=[],
        instances_used=list(range(8)),
        task_instances=8,
    )
    assert c.p == pytest.approx(0.05298802, abs=1e-8)
    got = format_comparison(r).splitlines()
    # the one deliberate departure from DELVE's layout: a space after every row's ':'
    # (so the number columns, and their header, sit one place further right)
    want = [
        re.sub(r"^(.{48}):", r"\1: ", w) if w[48:49] == ":" else w
        for w in MSTATS_EXAMPLE.splitlines()
    ]
    want[2] = " " + want[2]
    assert len(got) == len(want)
    num = re.compile(r"-?\d+\.\d+(?:e-?\d+)?")
    for g, w in zip(got, want, strict=True):
        assert num.sub("#", g) == num.sub("#", w)  # identical layout, column by column
        gm, wm = list(num.finditer(g)), list(num.finditer(w))
        if len(wm) == 2:  # table rows: right-aligned %13s columns
            assert [m.end() for m in gm] == [m.end() for m in wm]
        else:
            assert [m.start() for m in gm] == [m.start() for m in wm]
        for x, y in zip(num.findall(g), num.findall(w), strict=True):
            assert float(x) == pytest.approx(float(y), rel=2e-8)


def test_mstats_keeps_a_space_between_label_and_a_13_character_number():
    row = _mstats_row("SD from training sets & stochastic training", 0.00367217987, -0.00367217987)
    assert "training: 0.00367217987" in row and " -0.00367217987" in row


def test_standardisation_uses_pooled_targets_with_n_minus_1():
    t = np.array([1.0, 2.0, 4.0, 7.0])
    assert standardizer("S", t).scale == pytest.approx(np.var(t, ddof=1))
    assert standardizer("A", t).scale == pytest.approx((2 + 1 + 1 + 4) / 3)
    sl = standardizer("L", t)
    assert sl.scale == 1 and sl.shift == pytest.approx(
        0.5 * (np.log(2 * np.pi * np.var(t, ddof=1)) + 1)
    )
    # the trivial method that predicts with the pooled mean and variance scores 0 on L
    var = np.var(t, ddof=1)
    nll = 0.5 * (np.log(2 * np.pi * var) + (t - t.mean()) ** 2 / var)
    assert sl.mean(nll.mean()) == pytest.approx(0.5 * (3 / 4 - 1))
