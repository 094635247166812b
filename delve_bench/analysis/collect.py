"""Gather what a report shows: per task, each method's standardised expected loss and
each pair's paired test, read once from the result store.

The numbers come from the harness' own statistics (:func:`delve_bench.stats.summary.summarize`
and :func:`~delve_bench.stats.summary.compare`, the functions behind ``delve stats`` and
``delve compare``), applied to the loss matrices read by :mod:`delve_bench.run.store`; the
words for them (what a cell lacks, budgets) are :mod:`delve_bench.report.notes`.
Nothing is dropped silently: instances that are missing, failed, corrupt or lack the loss
are kept in :class:`MethodCell` and shown by every output.

Partial results (a reading the spec leaves open): a method's expected loss uses all its
complete instances (at least 2, as ``delve stats`` needs); a pair is compared on the
instances both have, so ``delve compare`` gives the same numbers once the same instances
exist for both.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import DelveError, TamperedResults, suggest
from ..run.store import read_task_results
from ..stats.ranking import block_ranks
from ..stats.summary import compare, summarize
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs
from .task import budget_settings, layout_of, paired_instances, task_standardizer

if TYPE_CHECKING:
    from ..stats.results import Comparison, Summary

# The thesis' display order (Rasmussen 1996 Figs. 5.3-5.13); other methods follow alphabetically.
THESIS_ORDER = (
    "lin-1",
    "knn-cv-1",
    "mars3.6-bag-1",
    "mlp-ese-1",
    "gp-map-1",
    "gp-mc-1",
    "mlp-mc-1",
)
REPORT_DIRS = ("tables", "plots")  # generated output inside results/, never a method


def method_order(methods: Iterable[str]) -> list[str]:
    """Methods in display order: the thesis' seven first, then the others alphabetically."""
    ms = set(methods)
    return [m for m in THESIS_ORDER if m in ms] + sorted(ms - set(THESIS_ORDER))


def result_methods(ws: WorkspaceDirs) -> list[str]:
    """Methods with at least one task directory under results/, and those read from the
    reference study (``--with``), in display order."""
    from ..run.sources import reference_methods

    found = []
    if ws.results.is_dir():
        found = [
            d.name
            for d in ws.results.iterdir()
            if d.is_dir() and d.name not in REPORT_DIRS and any(d.glob("*/*/std.*"))
        ]
    return method_order(found + reference_methods(ws))


def result_tasks(ws: WorkspaceDirs, methods: Iterable[str]) -> list[TaskRef]:
    """Tasks holding any result of ``methods`` (:func:`~delve_bench.run.sources.method_tasks`)."""
    from ..run.sources import method_tasks

    return sorted({r for m in methods for r in method_tasks(ws, m)})


def p_digit(p: float | None, bounded: bool = False) -> int | None:
    """The one-digit p-value of the DELVE diagram (Rasmussen 1996 Figs. 5.3-5.13).

    p in percent rounded *up* (p <= 1 % gives 1, 8 % < p <= 9 % gives 9); None (blank) above
    9 % or when p is undefined. A p that the design only reports as ``p < 0.05`` (quasi-F
    with fewer than 4 instances) is shown as 5 (the most the
    design may claim; docs/statistics.md)."""
    if bounded:
        return 5
    if p is None or not math.isfinite(p):
        return None
    digit = max(1, math.ceil(round(100.0 * p, 9)))
    return digit if digit <= 9 else None


@dataclass(frozen=True)
class MethodCell:
    """One method on one task: its statistics (``summary``) or why there are none.

    ``status``: ``ok`` (every instance), ``partial`` (fewer instances than the task),
    ``not run`` (no complete instance), ``too few`` (one instance: no ANOVA), ``no loss``
    (finished, but the method gives no such loss, e.g. no predictive density for L)."""

    method: str
    status: str
    task_instances: int
    used: tuple[int, ...] = ()
    missing: tuple[int, ...] = ()
    failed: tuple[int, ...] = ()
    corrupt: tuple[int, ...] = ()
    no_loss: tuple[int, ...] = ()
    stale: tuple[int, ...] = ()
    budget: dict | None = None
    summary: Summary | None = None
    y: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the model size each used instance records in meta.json (``info.model_size``, or
    #: ``info.n_basis``), None where it records none
    sizes: tuple[float | None, ...] = ()

    @property
    def has_value(self) -> bool:
        return self.summary is not None

    @property
    def mean(self) -> float | None:
        return self.summary.standardized["mean"] if self.summary else None

    @property
    def rankable(self) -> bool:
        """Has a finite standardised value (a constant target leaves it undefined, NaN)."""
        return self.has_value and math.isfinite(self.mean if self.mean is not None else math.nan)

    @property
    def se(self) -> float | None:
        return self.summary.standardized["se"] if self.summary else None

    @property
    def absent(self) -> tuple[int, ...]:
        """Instances of the task that this cell's statistics do not use."""
        return tuple(sorted(self.missing + self.failed + self.corrupt + self.no_loss + self.stale))


@dataclass(frozen=True)
class PairCell:
    """The paired test of methods ``a`` and ``b`` (a before b in display order) on the
    instances both have: ``comparison`` is :func:`compare`'s A - B, or None (too few)."""

    a: str
    b: str
    instances: tuple[int, ...]
    comparison: Comparison | None

    @property
    def p(self) -> float | None:
        return self.comparison.p if self.comparison else None

    @property
    def p_text(self) -> str:
        return self.comparison.p_text if self.comparison else ""

    @property
    def bounded(self) -> bool:
        return bool(self.comparison and self.comparison.bounded)

    @property
    def winner(self) -> str | None:
        """The method with the lower expected loss on the shared instances."""
        if not self.comparison or self.comparison.difference == 0:
            return None
        return self.a if self.comparison.difference < 0 else self.b

    @property
    def loser(self) -> str | None:
        w = self.winner
        return None if w is None else (self.b if w == self.a else self.a)

    @property
    def significant(self) -> bool:
        """One method is better, significantly at 5 %
        (:attr:`~delve_bench.stats.results.Comparison.significant`)."""
        return self.winner is not None and bool(self.comparison and self.comparison.significant)

    @property
    def digit(self) -> int | None:
        return p_digit(self.p, self.bounded) if self.winner else None


@dataclass(frozen=True)
class TaskReport:
    """One task: its layout facts, a cell per method, a paired test per pair."""

    ref: TaskRef
    design: str
    task_instances: int
    test_size: int
    cells: dict[str, MethodCell]
    pairs: dict[tuple[str, str], PairCell]

    def pair(self, m1: str, m2: str) -> PairCell | None:
        return self.pairs.get((m1, m2)) or self.pairs.get((m2, m1))

    def ranks_among(self, methods: Iterable[str] | None = None) -> dict[str, float]:
        """Rank of each of ``methods`` (default: all) that has a value here; 1 = lowest
        standardised loss, ties share the mean rank."""
        names = self.cells if methods is None else methods
        have = [m for m in names if self.cells[m].rankable]
        r = block_ranks(np.array([[self.cells[m].mean for m in have]]))[0] if have else []
        return {m: float(x) for m, x in zip(have, r, strict=True)}


@dataclass(frozen=True)
class PrototaskReport:
    """Every reported task of one prototask, for one loss, for the methods in order."""

    dataset: str
    prototask: str
    loss: str
    methods: tuple[str, ...]
    tasks: tuple[TaskReport, ...]

    @property
    def name(self) -> str:
        return f"{self.dataset}/{self.prototask}"

    @property
    def stem(self) -> str:
        """File name stem: ``<dataset>-<prototask>-<loss>``."""
        return f"{self.dataset}-{self.prototask}-{self.loss}"

    @property
    def design(self) -> str:
        return self.tasks[0].design

    def partial_cells(self) -> list[tuple[TaskReport, MethodCell]]:
        """Cells whose statistics use fewer instances than the task has (warnings)."""
        return [
            (t, c)
            for t in self.tasks
            for c in t.cells.values()
            if c.absent and c.status not in ("not run", "no loss")
        ]


def model_size(meta: dict) -> float | None:
    """The model size an instance's meta.json records (``info.model_size``: centres,
    relevance or support vectors; ``info.n_basis`` for the regression basis methods)."""
    info = meta.get("info") or {}
    v = info.get("model_size", info.get("n_basis"))
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def method_cell(ws: WorkspaceDirs, method: str, ref: TaskRef, layout, loss: str, st) -> MethodCell:
    """Read one method's instances of a task and summarise those that have ``loss``."""
    results, states = read_task_results(ws, method, ref, layout)
    common: dict[str, Any] = dict(
        method=method,
        task_instances=len(layout.instances),
        missing=tuple(states["missing"]),
        failed=tuple(states["failed"]),
        corrupt=tuple(states["corrupt"]),
        stale=tuple(states["stale"]),
        budget=budget_settings(results[0].meta) if results else None,
    )
    with_loss = [r for r in results if r.losses[loss] is not None]
    no_loss = tuple(r.instance for r in results if r.losses[loss] is None)
    if not results:
        return MethodCell(status="not run", **common)
    if not with_loss:
        return MethodCell(status="no loss", no_loss=no_loss, **common)
    used = tuple(r.instance for r in with_loss)
    if len(with_loss) < min_instances(layout.design):
        return MethodCell(status="too few", used=used, no_loss=no_loss, **common)
    y = np.vstack([x for r in with_loss if (x := r.losses[loss]) is not None])
    summary = summarize(y, layout.design, st, layout.size)
    status = "ok" if len(used) == len(layout.instances) else "partial"
    sizes = tuple(model_size(r.meta) for r in with_loss)
    return MethodCell(
        status=status, used=used, no_loss=no_loss, summary=summary, y=y, sizes=sizes, **common
    )


def min_instances(design: str) -> int:
    """Instances the design's statistics need: 1 for a fixed split, else 2."""
    return 1 if design == "fixed" else 2


def pair_cell(a: MethodCell, b: MethodCell, design: str, st, n_train: int) -> PairCell:
    """The design's paired test of A - B on the instances both have (None if too few)."""
    shared = tuple(paired_instances(list(a.used), list(b.used)))
    if a.y is None or b.y is None or len(shared) < min_instances(design):
        return PairCell(a=a.method, b=b.method, instances=shared, comparison=None)
    ya = a.y[[a.used.index(i) for i in shared]]
    yb = b.y[[b.used.index(i) for i in shared]]
    return PairCell(
        a=a.method,
        b=b.method,
        instances=shared,
        comparison=compare(ya, yb, design, st, n_train=n_train),
    )


def task_report(ws: WorkspaceDirs, ref: TaskRef, methods: list[str], loss: str) -> TaskReport:
    layout = layout_of(ws, ref)
    st = task_standardizer(ws, layout, loss)
    cells = {m: method_cell(ws, m, ref, layout, loss, st) for m in methods}
    pairs = {
        (a, b): pair_cell(cells[a], cells[b], layout.design, st, layout.size)
        for i, a in enumerate(methods)
        for b in methods[i + 1 :]
    }
    return TaskReport(
        ref=ref,
        design=layout.design,
        task_instances=len(layout.instances),
        test_size=layout.test_size,
        cells=cells,
        pairs=pairs,
    )


def select_methods(ws: WorkspaceDirs, requested: list[str] | None) -> list[str]:
    """The methods to report, in display order: the requested ones (each must be a known
    method or have results), else every method with results."""
    available = result_methods(ws)
    if not requested:
        if not available:
            raise DelveError("no results to report; run some first, e.g. `delve run lin-1 kin-8nm`")
        return available
    from ..methods.registry import method_names

    known = set(method_names(ws)) | set(available)
    for m in requested:
        if m not in known:
            raise DelveError(f"unknown method {m!r}{suggest(m, known)}; `delve methods` lists them")
    return method_order(requested)


def collect(
    ws: WorkspaceDirs,
    refs: list[TaskRef] | None,
    methods: list[str],
    loss: str,
    warnings: list[str] | None = None,
) -> list[PrototaskReport]:
    """Reports per prototask for ``loss``. ``refs`` None: every task with results of
    ``methods``; otherwise the given tasks that hold any result of them (a task with no
    result at all has nothing to show; the caller lists it). Result directories that name
    no valid task (e.g. a prototask spec since removed) are skipped with a warning."""
    have = set(result_tasks(ws, methods))
    chosen = sorted(have if refs is None else set(refs) & have)
    by_proto: dict[tuple[str, str], list[TaskReport]] = {}
    for ref in chosen:
        try:
            if loss not in layout_of(ws, ref).proto.losses:
                continue  # e.g. S on a classification task: reported under its own losses
        except DelveError:
            pass  # task_report below turns this into the warning
        try:
            t = task_report(ws, ref, methods, loss)
        except TamperedResults:
            raise  # an edited committed file stops the report, as it stops compare
        except DelveError as e:
            if warnings is not None:
                warnings.append(f"{ref.full_name}: skipped ({e})")
            continue
        by_proto.setdefault((ref.dataset, ref.prototask), []).append(t)
    return [
        PrototaskReport(
            dataset=ds, prototask=pt, loss=loss, methods=tuple(methods), tasks=tuple(ts)
        )
        for (ds, pt), ts in sorted(by_proto.items())
    ]
