"""``delve check``: did a method get worse than in a baseline results tree?

For every method and task of the baseline, the current losses are paired with the
baseline's, instance by instance and test case by test case (same task layout), and
the difference ``current - baseline`` is analysed with the design's test (Rasmussen 1996
§2.4-2.5): DELVE's t-test (hierarchical) or Lindman's quasi-F (2-way). With one
instance, a paired t-test over the test cases (conditional on that training set).

The question is one-sided and has a margin: "is the current expected loss worse than the
baseline's by more than ``margin``?" (a non-inferiority test). The design's test is
applied to ``d - delta`` (delta = margin x the baseline's expected loss for S and A, or
``margin`` nats for L), and a method is *worse* when ``mean(d) > delta`` and the test's
two-sided p, Holm-adjusted over every comparison checked, is below alpha. Without the
margin a change that scales every loss by 1.005 would be "significant" on any task (its
difference has no noise of its own); ``--margin 0`` asks exactly that question.

A quasi-F with fewer than 4 instances may only claim ``p < 0.05`` and is counted as
p = 0.05 (so it can never fail the gate alone). Baseline instances that are missing,
failed or corrupt in the workspace fail the gate too.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sps

from ..errors import DelveError
from ..run.store import read_task_results
from ..tasks.names import TaskRef
from ..workspace import Workspace
from .anova import anova
from .multiple import adjust
from .resampled import corrected_resampled_t_test
from .summary import layout_of, task_standardizer
from .tests import TestResult, compare_test

MARGIN = 0.01
ALPHA = 0.05


@dataclass(frozen=True)
class ResultsTree(Workspace):
    """The workspace's specs with another ``results/`` directory (the baseline)."""

    results_dir: Path = Path("results")

    @property
    def results(self) -> Path:
        return self.results_dir


def baseline_tree(ws: Workspace, path: str | Path) -> ResultsTree:
    """A baseline given as a workspace (with ``results/``) or as a results directory."""
    p = Path(path).expanduser().resolve()
    if not p.is_dir():
        raise DelveError(f"baseline {path}: no such directory")
    res = p / "results" if (p / "results").is_dir() else p
    if not any(res.glob("*/*/*/std.*")):
        raise DelveError(
            f"baseline {path}: no results (expected <method>/<dataset>/<prototask>/std.<n>/)"
        )
    if res.resolve() == ws.results.resolve():
        raise DelveError(f"baseline {path} is the workspace's own results directory")
    return ResultsTree(root=ws.root, results_dir=res)


@dataclass(frozen=True)
class CheckRow:
    """One method on one task and loss: baseline against current."""

    method: str
    task: str
    loss: str
    design: str
    status: str  # unchanged | better | worse | changed | missing
    instances: int  # compared
    missing: tuple[int, ...]  # baseline instances the workspace lacks
    why: str  # for missing instances: their state in the workspace (missing, failed, corrupt)
    baseline: float | None  # standardised expected loss
    current: float | None
    change: float | None  # relative change of the raw expected loss (S, A); nats (L)
    margin: float | None  # delta, raw units
    test: str
    p: float | None  # non-inferiority test (two-sided p of mu = delta)
    p_adjusted: float | None
    p_change: float | None  # the design's test of mu = 0


@dataclass(frozen=True)
class CheckResult:
    baseline: str
    alpha: float
    margin: float
    rows: tuple[CheckRow, ...]

    @property
    def worse(self) -> list[CheckRow]:
        return [r for r in self.rows if r.status == "worse"]

    @property
    def missing(self) -> list[CheckRow]:
        return [r for r in self.rows if r.status == "missing"]

    @property
    def failed(self) -> bool:
        return bool(self.worse or self.missing)

    def to_dict(self) -> dict:
        return {
            "baseline": self.baseline,
            "alpha": self.alpha,
            "margin": self.margin,
            "correction": "holm",
            "failed": self.failed,
            "rows": [asdict(r) for r in self.rows],
        }


def _test_over_cases(d: np.ndarray) -> TestResult:
    """One instance: paired t-test over its test cases (J - 1 d.o.f.)."""
    x = d[0]
    J = len(x)
    sd = x.std(ddof=1)
    if sd == 0:
        return TestResult(test="t (test cases)", statistic=None, df=(J - 1,), p=None)
    t = x.mean() / (sd / np.sqrt(J))
    return TestResult(
        test="t (test cases)", statistic=float(t), df=(J - 1,), p=float(2 * sps.t.sf(abs(t), J - 1))
    )


def _test(d: np.ndarray, design: str, n_train: int) -> TestResult:
    if d.shape[0] == 1:
        return _test_over_cases(d)
    if design == "resampled":  # overlapping training sets: Nadeau & Bengio's correction
        return corrected_resampled_t_test(d.mean(axis=1), n_train, d.shape[1])
    return compare_test(anova(d, design))


def _row(ws, base, method, ref, loss, margin) -> CheckRow | None:
    layout = layout_of(ws, ref)
    if loss not in layout.proto.losses:
        return None  # e.g. S on a classification task
    base_res, _ = read_task_results(base, method, ref, layout)
    if not base_res or all(r.losses[loss] is None for r in base_res):
        return None  # nothing of this loss in the baseline to hold the workspace to
    cur_res, states = read_task_results(ws, method, ref, layout)
    cur = {r.instance: r for r in cur_res}
    wanted = [r for r in base_res if r.losses[loss] is not None]
    missing = tuple(
        r.instance for r in wanted if r.instance not in cur or cur[r.instance].losses[loss] is None
    )
    common = dict(method=method, task=ref.full_name, loss=loss, design=layout.design)
    state = {i: k for k, idx in states.items() for i in idx}
    groups: dict[str, list[int]] = {}
    for i in missing:
        groups.setdefault(state.get(i, f"no {loss} loss"), []).append(i)
    why = "; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in groups.items())
    st = task_standardizer(ws, layout, loss)
    yb = np.vstack([x for r in wanted if (x := r.losses[loss]) is not None])
    if missing:
        return CheckRow(
            **common,
            status="missing",
            instances=len(wanted) - len(missing),
            missing=missing,
            why=why,
            baseline=st.mean(float(yb.mean())),
            current=None,
            change=None,
            margin=None,
            test="",
            p=None,
            p_adjusted=None,
            p_change=None,
        )
    yc = np.vstack([x for r in wanted if (x := cur[r.instance].losses[loss]) is not None])
    mb, mc = float(yb.mean()), float(yc.mean())
    change = (mc - mb) if loss == "L" else ((mc / mb - 1) if mb != 0 else None)
    delta = margin if loss == "L" else margin * abs(mb)
    d = yc - yb
    if np.array_equal(yc, yb):
        status, test, p, p_change = "unchanged", "", None, None
    else:
        shifted = _test(d - delta, layout.design, layout.size)
        plain = _test(d, layout.design, layout.size)
        test = shifted.test
        p = shifted.p_reported if d.mean() > delta else 1.0
        p_change = plain.p_reported
        status = "changed"
    return CheckRow(
        **common,
        status=status,
        instances=len(wanted),
        missing=(),
        why="",
        baseline=st.mean(mb),
        current=st.mean(mc),
        change=change,
        margin=delta,
        test=test,
        p=p,
        p_adjusted=None,
        p_change=p_change,
    )


def check(
    ws: Workspace,
    baseline: str | Path | Workspace,
    methods: list[str] | None = None,
    refs: list[TaskRef] | None = None,
    losses: tuple[str, ...] = ("S", "Z"),
    alpha: float = ALPHA,
    margin: float = MARGIN,
) -> CheckResult:
    """Compare the workspace's results with ``baseline`` (a path, or a workspace such as
    :func:`delve_bench.study.beside.study_baseline`) task by task (see module doc)."""
    from ..report.collect import result_methods, result_tasks

    base = baseline if isinstance(baseline, Workspace) else baseline_tree(ws, baseline)
    if base.reference is not None:
        baseline = f"study {base.reference.name} ({base.results})"
    in_base = result_methods(base)
    methods = methods or in_base
    rows: list[CheckRow] = []
    for m in methods:
        if m not in in_base:
            raise DelveError(f"{m} has no results in the baseline {baseline}")
        tasks = result_tasks(base, [m])
        if refs is not None:
            tasks = [t for t in tasks if t in set(refs)]
        for ref in tasks:
            for loss in losses:
                row = _row(ws, base, m, ref, loss, margin)
                if row is not None:
                    rows.append(row)
    if not rows:
        raise DelveError(f"nothing to check: the baseline {baseline} has no such results")
    adj = adjust([r.p for r in rows], "holm")
    adj_change = adjust([r.p_change for r in rows], "holm")
    final = []
    for r, pa, pc in zip(rows, adj, adj_change, strict=True):
        status = r.status
        if status == "changed":
            if pa is not None and pa < alpha:
                status = "worse"
            elif pc is not None and pc < alpha and (r.current or 0.0) < (r.baseline or 0.0):
                status = "better"
        final.append(CheckRow(**{**asdict(r), "status": status, "p_adjusted": pa}))
    return CheckResult(baseline=str(baseline), alpha=alpha, margin=margin, rows=tuple(final))
