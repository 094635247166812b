"""Statistics of stored results: one method on a task, or two methods compared.

:func:`summarize` and :func:`compare` work on loss matrices and return plain dicts (the
report uses them); :func:`task_summary` and :func:`task_comparison` read a task's results
and return :class:`~.results.StatsResult` / :class:`~.results.ComparisonResult` (the
``--json`` records) holding raw and standardised numbers.
Standardisation uses the raw test targets of all the task's instances pooled
(:mod:`delve_bench.losses`).

The design decides the analysis: the ANOVA and the paired t-test (hierarchical) or
Lindman's quasi-F (2-way) of Rasmussen (1996) §2.4-2.5; Nadeau & Bengio's corrected
resampled t-test (resampled: published, overlapping realisations); test-case statistics
only (fixed: one published split). Every comparison also carries the exact sign-flip
permutation test over instances (:mod:`.permutation`) when there are 2 or more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..data import load_dataset
from ..errors import DelveError
from ..losses import Standardizer, standardizer
from ..run.store import read_task_results
from ..tasks.instances import TaskLayout, task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs
from .anova import Anova, anova
from .bayes import posterior
from .fixed import fixed_estimate, fixed_split_t
from .permutation import sign_flip_test
from .resampled import corrected_resampled_t_test, resampled_estimate
from .results import ComparisonResult, StatsResult
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


def layout_of(ws: WorkspaceDirs, ref: TaskRef) -> TaskLayout:
    return task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)


def pooled_test_targets(ws: WorkspaceDirs, layout: TaskLayout) -> np.ndarray:
    """The raw test targets of every instance pooled (the common test set once)."""
    proto = layout.proto
    values = load_dataset(ws, proto.dataset).values[:, proto.targets[0]]
    if layout.design in ("2-way", "fixed"):
        return values[layout.instances[0].test]
    return values[np.concatenate([i.test for i in layout.instances])]


def task_standardizer(ws: WorkspaceDirs, layout: TaskLayout, loss: str) -> Standardizer:
    """The task's standardisation of ``loss``; a one-line error for a loss the task lacks."""
    check_loss(layout, loss)
    return standardizer(loss, pooled_test_targets(ws, layout), layout.proto.categorical)


def check_loss(layout: TaskLayout, loss: str) -> None:
    losses = layout.proto.losses
    if loss not in losses:
        kind = "classification" if layout.proto.categorical else "regression"
        raise DelveError(
            f"{layout.full_name} is a {kind} task: its losses are {', '.join(losses)}, not {loss}"
        )


def default_loss(layout: TaskLayout) -> str:
    """S for regression tasks, Z for classification tasks."""
    return layout.proto.losses[0]


class LossMatrix(NamedTuple):
    """One method's losses on one task, as the ANOVA takes them."""

    used: list[int]  # the finished instances, in order
    y: np.ndarray  # (instances used, test cases)
    states: dict[str, list[int]]  # the other instances: missing, failed, corrupt, stale
    budget: dict | None = None  # the budget the used instances were made with


def loss_matrix(
    ws: WorkspaceDirs, method: str, ref: TaskRef, layout: TaskLayout, loss: str
) -> LossMatrix:
    """The finished instances' ``loss`` losses; an error if fewer than 2 or any corrupt."""
    results, states = read_task_results(ws, method, ref, layout)
    if states["corrupt"]:
        raise DelveError(
            f"{method} on {ref.full_name}: instance {states['corrupt'][0]} has a corrupt "
            "losses.csv (checksum differs from meta.json); rerun it with --force"
        )
    if not results and states["stale"]:
        raise DelveError(
            f"{method} on {ref.full_name}: every finished instance is stale (made under other "
            f"settings: `delve status {method} {ref.full_name}` shows which); rerun them with "
            f"`delve run {method} {ref.full_name}`"
        )
    if not results:
        from ..study.beside import next_command

        raise DelveError(
            f"no results of {method} on {ref.full_name}; {next_command(ws, method, ref)}"
        )
    if len(results) < 2 and layout.design != "fixed":
        stale = f" ({len(states['stale'])} more are stale)" if states["stale"] else ""
        raise DelveError(
            f"{method} on {ref.full_name}: only {len(results)} instance finished{stale}; "
            "the analysis needs at least 2"
        )
    rows = [r.losses[loss] for r in results]
    present = [row for row in rows if row is not None]
    if len(present) < len(rows):
        raise DelveError(
            f"{method} gives no {loss} loss on {ref.full_name} "
            "(it has no predictive distribution there)"
        )
    return LossMatrix(
        used=[r.instance for r in results],
        y=np.vstack(present),
        states=states,
        budget=budget_settings(results[0].meta),
    )


def budget_settings(meta: dict) -> dict:
    """The budget a result was made with: ``mode`` and ``time_scale`` (None for a method
    without a budget rule, or a result made before fingerprints were recorded)."""
    fp = meta.get("fingerprint") if isinstance(meta, dict) else None
    fp = fp if isinstance(fp, dict) else {}
    return {"mode": fp.get("budget.mode"), "time_scale": fp.get("budget.time_scale")}


def budget_label(b: dict | None) -> str:
    """``cpu x0.05``, ``work``, or ``to completion`` (no budget rule: the method runs until
    it is done): how reports show a budget."""
    if not b or not b.get("mode"):
        return "to completion"
    if b["mode"] == "cpu":
        return f"cpu x{b['time_scale']:g}" if b.get("time_scale") is not None else "cpu"
    return str(b["mode"])


def paired_instances(used_a: list[int], used_b: list[int]) -> list[int]:
    """The instances a paired comparison uses: those both methods have (current,
    complete results). The one rule of ``delve compare`` and ``delve report``."""
    return sorted(set(used_a) & set(used_b))


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


def _common(ref: TaskRef, layout: TaskLayout, loss: str, used: list[int], states: dict) -> dict:
    return {
        "task": ref.full_name,
        "loss": loss,
        "design": layout.design,
        "instances": len(used),
        "task_instances": len(layout.instances),
        "train_size": layout.size,
        "test_size": layout.test_size,
        "instances_used": used,
        "instances_missing": sorted(states["missing"] + states["failed"]),
        "instances_stale": sorted(states.get("stale", [])),
    }


def summarize(y: np.ndarray, design: str, st: Standardizer, n_train: int | None = None) -> dict:
    """Raw and standardised statistics of one method's loss matrix ``y`` (I x J);
    ``n_train`` (the training-set size) is needed by the resampled and fixed designs."""
    fields, _ = _estimate(y, design, n_train)
    std = {k: (st.mean(v) if k == "mean" else _spread(st, v)) for k, v in fields.items()}
    return {
        **fields,
        "standardized": std,
        "standardization": {"scale": st.scale, "shift": st.shift},
    }


def permutation_fields(ya: np.ndarray, yb: np.ndarray) -> dict | None:
    """The sign-flip test over instances of A - B as a dict, None with one instance."""
    if len(ya) < 2:
        return None
    r = sign_flip_test((ya - yb).mean(axis=1))
    I = len(ya)
    return {
        "test": r.test,
        "p": r.p,
        "exact": r.test == "sign-flip",
        "patterns": int(r.df[0]),
        "min_p": 2.0 / 2.0**I,
        "instances": I,
    }


def compare(
    ya: np.ndarray,
    yb: np.ndarray,
    design: str,
    st: Standardizer,
    bayes: bool = False,
    n_train: int | None = None,
) -> dict:
    """Paired comparison of two loss matrices: A - B, the design's estimate and test, and
    the sign-flip permutation test over instances."""
    fields, est = _estimate(ya - yb, design, n_train)
    test = _test(est, design)
    mean_a, mean_b = float(ya.mean()), float(yb.mean())
    std = {k: _spread(st, v) for k, v in fields.items()}
    std.update(mean_a=st.mean(mean_a), mean_b=st.mean(mean_b))
    out = {
        "mean_a": mean_a,
        "mean_b": mean_b,
        "difference": fields["mean"],
        **fields,
        "standardized": std,
        "test": test.test,
        "test_name": TEST_NAMES[test.test],
        "statistic": test.statistic,
        "df": list(test.df),
        "p": test.p,
        "p_text": test.p_text.removeprefix("= "),
        "permutation": permutation_fields(ya, yb),
        "standardization": {"scale": st.scale, "shift": st.shift},
    }
    if design == "2-way" and isinstance(est, Anova) and test.test == "F":
        # the quasi-F is approximate: its level at the estimated components (stats.level)
        from .level import level_fields
        from .power import VarianceComponents

        out.update(level_fields(VarianceComponents.from_anova(est), est.I, est.J, test.p))
    if bayes and isinstance(est, Anova):  # the posterior is for DELVE's two designs
        try:
            post = posterior(est, grid=0)
        except ValueError as e:  # e.g. identical methods: every difference is 0
            out["bayes_note"] = f"{e}"
            return out
        out.update(
            posterior_prob_negative=post.prob_negative,
            posterior_prob_positive=post.prob_positive,
            posterior_opposite_sign=post.opposite,
            posterior_method=post.method,
        )
        if design == "2-way":
            out["bayes_note"] = BAYES_2WAY_NOTE
    elif bayes:
        out["bayes_note"] = (
            f"no posterior for the {design} design: the posterior (eq. 2.16 and its 2-way "
            "counterpart) rests on the ANOVA of disjoint training sets"
        )
    return out


#: what ``--bayes`` gives on a 2-way task, where the thesis has no posterior
BAYES_2WAY_NOTE = (
    "the thesis derives eq. 2.16 for the hierarchical design only; on this 2-way task "
    "(one common test set) the posterior extends its construction to the test cases as a "
    "second random effect (delve_bench.stats.bayes)"
)


def task_summary(
    ws: WorkspaceDirs, method: str, ref: TaskRef, loss: str | None = None
) -> StatsResult:
    """Estimated expected loss of ``method`` on a task, with SE and variance components;
    ``loss`` None: the task's first loss (S, or Z for classification)."""
    layout = layout_of(ws, ref)
    loss = loss or default_loss(layout)
    st = task_standardizer(ws, layout, loss)
    lm = loss_matrix(ws, method, ref, layout, loss)
    return StatsResult(
        method=method,
        **_common(ref, layout, loss, lm.used, lm.states),
        budget=lm.budget,
        **summarize(lm.y, layout.design, st, layout.size),
    )


@dataclass(frozen=True)
class PairedLosses:
    """Two methods' loss matrices on the instances of a task, rows paired by instance
    and columns by test case, with the task's standardisation."""

    method_a: str
    method_b: str
    ref: TaskRef
    layout: TaskLayout
    loss: str
    used: list[int]
    states: dict
    ya: np.ndarray
    yb: np.ndarray
    st: Standardizer
    unpaired: dict = field(default_factory=dict)  # method -> its instances not paired
    budgets: tuple = (None, None)  # each method's budget settings (budget_settings)

    @property
    def design(self) -> str:
        return self.layout.design

    def difference(self) -> Anova:
        """The ANOVA of A - B (DELVE's hierarchical and 2-way designs only: the ANOVA's
        independence assumptions fail for overlapping or single training sets)."""
        if self.design not in ("hierarchical", "2-way"):
            raise DelveError(
                f"{self.ref.full_name} has the {self.design} design: the ANOVA, its power "
                "and posterior need DELVE's hierarchical or 2-way design"
            )
        return anova(self.ya - self.yb, self.design)


def paired_losses(
    ws: WorkspaceDirs, method_a: str, method_b: str, ref: TaskRef, loss: str | None = None
) -> PairedLosses:
    """Read both methods' losses on ``ref``, paired on the instances both have
    (:func:`paired_instances`, the rule ``delve report`` uses too). ``loss`` None: the
    task's first loss (S, or Z for classification)."""
    layout = layout_of(ws, ref)
    loss = loss or default_loss(layout)
    st = task_standardizer(ws, layout, loss)
    a = loss_matrix(ws, method_a, ref, layout, loss)
    b = loss_matrix(ws, method_b, ref, layout, loss)
    shared = paired_instances(a.used, b.used)
    need = 1 if layout.design == "fixed" else 2
    if len(shared) < need:
        raise DelveError(
            f"{method_a} and {method_b} have {len(shared)} instance(s) of {ref.full_name} "
            f"in common ({a.used} vs {b.used}); a paired comparison needs at least {need}"
        )
    states = {k: sorted(set(a.states.get(k, [])) | set(b.states.get(k, []))) for k in a.states}
    states["missing"] = sorted({i.index for i in layout.instances} - set(shared))
    states["failed"] = []
    return PairedLosses(
        method_a=method_a,
        method_b=method_b,
        ref=ref,
        layout=layout,
        loss=loss,
        used=shared,
        states=states,
        ya=a.y[[a.used.index(i) for i in shared]],
        yb=b.y[[b.used.index(i) for i in shared]],
        st=st,
        unpaired={
            method_a: sorted(set(a.used) - set(shared)),
            method_b: sorted(set(b.used) - set(shared)),
        },
        budgets=(a.budget, b.budget),
    )


def task_comparison(
    ws: WorkspaceDirs,
    method_a: str,
    method_b: str,
    ref: TaskRef,
    loss: str | None = None,
    bayes: bool = False,
) -> ComparisonResult:
    """Paired comparison A - B on a task: difference, SE, variance components and p, on
    the instances both methods have (:func:`paired_instances`)."""
    pl = paired_losses(ws, method_a, method_b, ref, loss)
    return ComparisonResult(
        method_a=method_a,
        method_b=method_b,
        **_common(ref, pl.layout, pl.loss, pl.used, pl.states),
        instances_unpaired=pl.unpaired,
        budget_a=pl.budgets[0],
        budget_b=pl.budgets[1],
        **compare(pl.ya, pl.yb, pl.design, pl.st, bayes, pl.layout.size),
    )
