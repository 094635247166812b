"""Statistics of loss matrices: one method's (:func:`summarize`) or two methods' paired
(:func:`compare`), raw and standardised, as :class:`~.results.Summary` and
:class:`~.results.Comparison`. Numbers in, results out: reading them from the result store
is :mod:`delve_bench.analysis.task`.

The design decides the analysis: the ANOVA and the paired t-test (hierarchical) or
Lindman's quasi-F (2-way) of Rasmussen (1996) §2.4-2.5; Nadeau & Bengio's corrected
resampled t-test (resampled: published, overlapping realisations); test-case statistics
only (fixed: one published split). Every comparison also carries the exact sign-flip
permutation test over instances (:mod:`.permutation`) when there are 2 or more.
"""

from __future__ import annotations

import numpy as np

from ..losses import Standardizer
from .anova import Anova, anova
from .bayes import posterior
from .fixed import fixed_estimate, fixed_split_t
from .permutation import sign_flip_test
from .resampled import corrected_resampled_t_test, resampled_estimate
from .results import Comparison, PermutationTest, Summary
from .tests import TestResult, compare_test

#: what each design's test is called in the outputs
TEST_NAMES = {
    "t": "paired t-test",
    "F": "Lindman's quasi-F test",
    "corrected t": "corrected resampled t-test (Nadeau & Bengio 2003)",
    "case t": "paired t-test over test cases (one training set)",
}
DESIGN_TESTS = {
    "hierarchical": TEST_NAMES["t"],
    "2-way": TEST_NAMES["F"],
    "resampled": TEST_NAMES["corrected t"],
    "fixed": TEST_NAMES["case t"],
}


def _anova_fields(a: Anova) -> dict:
    """Mean, SE and the SDs named for what they measure (:mod:`.results`); the SDs that do
    not belong to the design are None."""
    hier = a.design == "hierarchical"
    return {
        "mean": a.mean,
        "se": a.se,
        "sd_train": a.sd_train,
        "sd_test": a.sd_test if hier else None,
        "sd_cases": None if hier else a.sd_cases,
        "sd_interaction": None if hier else a.sd_interaction,
    }


def _spread(st: Standardizer, x: float | None) -> float | None:
    return None if x is None else st.spread(x)


def _estimate(y: np.ndarray, design: str, n_train: int | None):
    """The design's estimate of the mean of ``y`` (I x J): (fields, object for the test)."""
    if design in ("hierarchical", "2-way"):
        a = anova(y, design)
        return _anova_fields(a), a
    if n_train is None:
        raise ValueError(f"the {design} design needs the training-set size")
    if design == "resampled":
        r = resampled_estimate(y, n_train)
        fields = {
            "mean": r.mean,
            "se": r.se,
            "se_uncorrected": r.se_uncorrected,
            "sd_realisations": r.sd_realisations,
            "sd_test": r.sd_test,
        }
        return fields, r
    if design == "fixed":
        f = fixed_estimate(y, n_train)
        return {"mean": f.mean, "se": f.se, "sd_test": f.sd_test}, f
    raise ValueError(f"unknown design {design!r}")


def _test(est, design: str) -> TestResult:
    if design == "resampled":
        return corrected_resampled_t_test(est.realisation_means, est.n_train, est.n_test)
    if design == "fixed":
        return fixed_split_t(est)
    return compare_test(est)


def summarize(y: np.ndarray, design: str, st: Standardizer, n_train: int | None = None) -> Summary:
    """Raw and standardised statistics of one method's loss matrix ``y`` (I x J);
    ``n_train`` (the training-set size) is needed by the resampled and fixed designs."""
    fields, _ = _estimate(y, design, n_train)
    std = {k: (st.mean(v) if k == "mean" else _spread(st, v)) for k, v in fields.items()}
    return Summary(
        **fields,
        standardized=std,
        standardization={"scale": st.scale, "shift": st.shift},
    )


def permutation_test(ya: np.ndarray, yb: np.ndarray) -> PermutationTest | None:
    """The sign-flip test over instances of A - B, None with one instance."""
    if len(ya) < 2:
        return None
    r = sign_flip_test((ya - yb).mean(axis=1))
    I = len(ya)
    assert r.p is not None  # a sign-flip p is always defined
    return PermutationTest(
        test=r.test,
        p=r.p,
        exact=r.test == "sign-flip",
        patterns=int(r.df[0]),
        min_p=2.0 / 2.0**I,
        instances=I,
    )


def compare(
    ya: np.ndarray,
    yb: np.ndarray,
    design: str,
    st: Standardizer,
    bayes: bool = False,
    n_train: int | None = None,
) -> Comparison:
    """Paired comparison of two loss matrices: A - B, the design's estimate and test, and
    the sign-flip permutation test over instances."""
    fields, est = _estimate(ya - yb, design, n_train)
    test = _test(est, design)
    mean_a, mean_b = float(ya.mean()), float(yb.mean())
    std = {k: _spread(st, v) for k, v in fields.items()}
    std.update(mean_a=st.mean(mean_a), mean_b=st.mean(mean_b))
    extra: dict = {}
    if design == "2-way" and isinstance(est, Anova) and test.test == "F":
        # the quasi-F is approximate: its level at the estimated components (stats.level)
        from .level import level_fields
        from .power import VarianceComponents

        extra.update(level_fields(VarianceComponents.from_anova(est), est.I, est.J, test.p))
    if bayes:
        extra.update(_posterior_fields(est, design))
    return Comparison(
        mean_a=mean_a,
        mean_b=mean_b,
        difference=fields["mean"],
        **fields,
        standardized=std,
        test=test.test,
        test_name=TEST_NAMES[test.test],
        statistic=test.statistic,
        df=list(test.df),
        instances=len(ya),
        p=test.p,
        permutation=permutation_test(ya, yb),
        standardization={"scale": st.scale, "shift": st.shift},
        **extra,
    )


def _posterior_fields(est, design: str) -> dict:
    """``--bayes``: the posterior of A - B (DELVE's two designs), or why there is none."""
    if not isinstance(est, Anova):
        return {
            "bayes_note": (
                f"no posterior for the {design} design: the posterior (eq. 2.16 and its 2-way "
                "counterpart) rests on the ANOVA of disjoint training sets"
            )
        }
    try:
        post = posterior(est, grid=0)
    except ValueError as e:  # e.g. identical methods: every difference is 0
        return {"bayes_note": f"{e}"}
    out = {
        "posterior_prob_negative": post.prob_negative,
        "posterior_prob_positive": post.prob_positive,
        "posterior_opposite_sign": post.opposite,
        "posterior_method": post.method,
    }
    if design == "2-way":
        out["bayes_note"] = BAYES_2WAY_NOTE
    return out


#: what ``--bayes`` gives on a 2-way task, where the thesis has no posterior
BAYES_2WAY_NOTE = (
    "the thesis derives eq. 2.16 for the hierarchical design only; on this 2-way task "
    "(one common test set) the posterior extends its construction to the test cases as a "
    "second random effect (delve_bench.stats.bayes)"
)
