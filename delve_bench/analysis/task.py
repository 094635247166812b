"""One task's stored results: its layout and standardisation, each method's loss matrix,
two methods' losses paired on the instances both have, and the records of ``delve stats``
and ``delve compare`` (:class:`~delve_bench.stats.results.StatsResult`,
:class:`~delve_bench.stats.results.ComparisonResult`), whose numbers
:mod:`delve_bench.stats.summary` computes.

Standardisation uses the raw test targets of all the task's instances pooled
(:mod:`delve_bench.losses`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..data import load_dataset
from ..errors import DelveError
from ..losses import Standardizer, standardizer
from ..run.store import read_task_results
from ..stats.anova import Anova, anova
from ..stats.results import ComparisonResult, StatsResult
from ..stats.summary import compare, summarize
from ..tasks.instances import TaskLayout, task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs


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


def paired_instances(used_a: list[int], used_b: list[int]) -> list[int]:
    """The instances a paired comparison uses: those both methods have (current,
    complete results). The one rule of ``delve compare`` and ``delve report``."""
    return sorted(set(used_a) & set(used_b))


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


def task_summary(
    ws: WorkspaceDirs, method: str, ref: TaskRef, loss: str | None = None
) -> StatsResult:
    """Estimated expected loss of ``method`` on a task, with SE and variance components;
    ``loss`` None: the task's first loss (S, or Z for classification)."""
    layout = layout_of(ws, ref)
    loss = loss or default_loss(layout)
    st = task_standardizer(ws, layout, loss)
    lm = loss_matrix(ws, method, ref, layout, loss)
    return StatsResult.of(
        summarize(lm.y, layout.design, st, layout.size),
        method=method,
        **_common(ref, layout, loss, lm.used, lm.states),
        budget=lm.budget,
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
    ws: WorkspaceDirs,
    method_a: str,
    method_b: str,
    ref: TaskRef,
    loss: str | None = None,
    layout: TaskLayout | None = None,
) -> PairedLosses:
    """Read both methods' losses on ``ref``, paired on the instances both have
    (:func:`paired_instances`, the rule ``delve report`` uses too). ``loss`` None: the
    task's first loss (S, or Z for classification). ``layout``: the task's, when the
    caller has read it."""
    layout = layout or layout_of(ws, ref)
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
    layout: TaskLayout | None = None,
) -> ComparisonResult:
    """Paired comparison A - B on a task: difference, SE, variance components and p, on
    the instances both methods have (:func:`paired_instances`); ``layout``: the task's,
    when the caller has read it."""
    pl = paired_losses(ws, method_a, method_b, ref, loss, layout)
    return ComparisonResult.of(
        compare(pl.ya, pl.yb, pl.design, pl.st, bayes, pl.layout.size),
        method_a=method_a,
        method_b=method_b,
        **_common(ref, pl.layout, pl.loss, pl.used, pl.states),
        instances_unpaired=pl.unpaired,
        budget_a=pl.budgets[0],
        budget_b=pl.budgets[1],
    )
