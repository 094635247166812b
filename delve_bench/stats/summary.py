"""Statistics of stored results: one method on a task, or two methods compared.

Both return plain dicts (the ``--json`` output) holding raw and standardised numbers.
Standardisation uses the raw test targets of all the task's instances pooled
(:mod:`delve_bench.losses`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import load_dataset
from ..errors import DelveError
from ..losses import Standardizer, standardizer
from ..run.store import read_task_results
from ..tasks.instances import TaskLayout, task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import Workspace
from .anova import Anova, anova
from .bayes import posterior
from .tests import compare_test


def layout_of(ws: Workspace, ref: TaskRef) -> TaskLayout:
    return task_layout(ws, prototask_spec(ws, ref.dataset, ref.prototask), ref.size)


def pooled_test_targets(ws: Workspace, layout: TaskLayout) -> np.ndarray:
    proto = layout.proto
    values = load_dataset(ws, proto.dataset).values[:, proto.targets[0]]
    if layout.design == "2-way":
        return values[layout.instances[0].test]
    return values[np.concatenate([i.test for i in layout.instances])]


def loss_matrix(ws: Workspace, method: str, ref: TaskRef, layout: TaskLayout, loss: str):
    """(instances used, I x J loss matrix, states of the other instances)."""
    results, states = read_task_results(ws, method, ref, layout)
    if states["corrupt"]:
        raise DelveError(
            f"{method} on {ref.full_name}: instance {states['corrupt'][0]} has a corrupt "
            "losses.csv (checksum differs from meta.json); rerun it with --force"
        )
    if not results:
        raise DelveError(
            f"no results of {method} on {ref.full_name}; run `delve run {method} {ref.full_name}`"
        )
    if len(results) < 2:
        raise DelveError(
            f"{method} on {ref.full_name}: only {len(results)} instance finished; "
            "the analysis needs at least 2"
        )
    missing_loss = [r.instance for r in results if r.losses[loss] is None]
    if missing_loss:
        raise DelveError(
            f"{method} gives no {loss} loss on {ref.full_name} "
            "(it has no predictive distribution there)"
        )
    used = [r.instance for r in results]
    return used, np.vstack([r.losses[loss] for r in results]), states


def _anova_fields(a: Anova) -> dict:
    out = {"mean": a.mean, "se": a.se, "sd_train": a.sd_train, "sd_test": a.sd_test}
    if a.design == "2-way":
        out["sd_cases"] = a.sd_cases
    return out


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
    }


def summarize(y: np.ndarray, design: str, st: Standardizer) -> dict:
    """Raw and standardised statistics of one method's loss matrix ``y`` (I x J)."""
    a = anova(y, design)
    fields = _anova_fields(a)
    std = {k: (st.mean(v) if k == "mean" else st.spread(v)) for k, v in fields.items()}
    return {
        **fields,
        "standardized": std,
        "standardization": {"scale": st.scale, "shift": st.shift},
    }


def compare(
    ya: np.ndarray, yb: np.ndarray, design: str, st: Standardizer, bayes: bool = False
) -> dict:
    """Paired comparison of two loss matrices: A - B, its ANOVA and the design's test."""
    d = anova(ya - yb, design)
    test = compare_test(d)
    mean_a, mean_b = float(ya.mean()), float(yb.mean())
    fields = _anova_fields(d)
    std = {k: st.spread(v) for k, v in fields.items()}
    std.update(mean_a=st.mean(mean_a), mean_b=st.mean(mean_b))
    out = {
        "mean_a": mean_a,
        "mean_b": mean_b,
        "difference": d.mean,
        **fields,
        "standardized": std,
        "test": test.test,
        "statistic": test.statistic,
        "df": list(test.df),
        "p": test.p,
        "p_text": test.p_text.removeprefix("= "),
        "standardization": {"scale": st.scale, "shift": st.shift},
    }
    if bayes:
        post = posterior(d, grid=0)
        out.update(
            posterior_prob_negative=post.prob_negative,
            posterior_prob_positive=post.prob_positive,
            posterior_opposite_sign=post.opposite,
            posterior_method=post.method,
        )
    return out


def task_summary(ws: Workspace, method: str, ref: TaskRef, loss: str = "S") -> dict:
    """Estimated expected loss of ``method`` on a task, with SE and variance components."""
    layout = layout_of(ws, ref)
    used, y, states = loss_matrix(ws, method, ref, layout, loss)
    st = standardizer(loss, pooled_test_targets(ws, layout))
    return {
        "method": method,
        **_common(ref, layout, loss, used, states),
        **summarize(y, layout.design, st),
    }


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

    @property
    def design(self) -> str:
        return self.layout.design

    def difference(self) -> Anova:
        """The ANOVA of A - B."""
        return anova(self.ya - self.yb, self.design)


def paired_losses(
    ws: Workspace, method_a: str, method_b: str, ref: TaskRef, loss: str = "S"
) -> PairedLosses:
    """Read both methods' losses on ``ref``; they must cover the same instances."""
    layout = layout_of(ws, ref)
    used_a, ya, st_a = loss_matrix(ws, method_a, ref, layout, loss)
    used_b, yb, _ = loss_matrix(ws, method_b, ref, layout, loss)
    if used_a != used_b:
        raise DelveError(
            f"{method_a} and {method_b} have results on different instances of "
            f"{ref.full_name} ({used_a} vs {used_b}); run the missing ones first"
        )
    st = standardizer(loss, pooled_test_targets(ws, layout))
    return PairedLosses(method_a, method_b, ref, layout, loss, used_a, st_a, ya, yb, st)


def task_comparison(
    ws: Workspace, method_a: str, method_b: str, ref: TaskRef, loss: str = "S", bayes: bool = False
) -> dict:
    """Paired comparison A - B on a task: difference, SE, variance components and p."""
    pl = paired_losses(ws, method_a, method_b, ref, loss)
    return {
        "method_a": method_a,
        "method_b": method_b,
        **_common(ref, pl.layout, loss, pl.used, pl.states),
        **compare(pl.ya, pl.yb, pl.design, pl.st, bayes),
    }
