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
p = 0.05 (so it can never fail the gate alone). Where the quasi-F is liberal at the
estimated variance components (:mod:`.level`), its calibrated p is used (the test reads
``F (calibrated)``). Baseline instances that are missing,
failed, corrupt or stale in the workspace fail the gate too.

**Changed specs.** The baseline's results are read with their *own* fingerprints, never
against today's method files (which would make every baseline result of a changed method
stale and drop it without a word). Each baseline instance is paired with the workspace's
instance and their fingerprints are compared field by field (method version, params,
budget rule and budget, task spec, splits and data; docs/provenance.md). A method whose
fields differ is still compared, and its row reads ``changed spec (field ...)``: it fails
the gate unless the method is accepted (``--accept-changed METHOD``), and an accepted
method is then judged like any other (a worse one still fails). When the task's instances
themselves changed, the losses cannot be paired and the row says so. A method with results
on only one side is listed: ``missing`` (baseline only, fails) or ``new`` (workspace only).

**Unchanged** means the current losses equal the baseline's at the baseline's precision
(:func:`same_losses`): a study commits its losses in float32, so an untouched rerun
checked ``--with`` it differs from them only by that rounding, and is unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..defaults import ALPHA, DEFAULT_LOSSES
from ..errors import DelveError
from ..run.store import InstanceResult, read_recorded, read_task_results, task_instances
from ..stats.anova import anova
from ..stats.multiple import adjust
from ..stats.resampled import corrected_resampled_t_test
from ..stats.tests import TestResult, compare_test
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs
from .collect import result_methods, result_tasks
from .task import layout_of, task_standardizer

MARGIN = 0.01


def same_losses(current: np.ndarray, baseline: np.ndarray) -> bool:
    """Whether ``current`` equals ``baseline`` (same shape) at the baseline's precision:
    exactly, or -- where every baseline value is a float32 (a packed study's committed
    losses, written as the doubles holding them) -- once ``current`` is rounded to float32
    as the study would commit it. A full-precision baseline is compared exactly."""
    if np.array_equal(current, baseline, equal_nan=True):
        return True
    packed = baseline.astype(np.float32).astype(np.float64)
    if not np.array_equal(packed, baseline, equal_nan=True):
        return False
    return np.array_equal(current.astype(np.float32).astype(np.float64), baseline, equal_nan=True)


@dataclass(frozen=True)
class ResultsTree(WorkspaceDirs):
    """The workspace's specs with another ``results/`` directory (the baseline)."""

    results_dir: Path = Path("results")

    @property
    def results(self) -> Path:
        return self.results_dir


def baseline_tree(ws: WorkspaceDirs, path: str | Path) -> ResultsTree:
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
    status: str  # unchanged | better | worse | changed | missing | changed spec | new
    instances: int  # compared
    missing: tuple[int, ...]  # baseline instances the workspace lacks
    why: str  # for missing instances: their state in the workspace (missing, failed, corrupt)
    baseline: float | None = None  # standardised expected loss
    current: float | None = None
    change: float | None = None  # relative change of the raw expected loss (S, A); nats (L)
    margin: float | None = None  # delta, raw units
    test: str = ""
    p: float | None = None  # non-inferiority test (two-sided p of mu = delta)
    p_adjusted: float | None = None
    p_change: float | None = None  # the design's test of mu = 0
    #: fingerprint fields that differ between the baseline's instances and the workspace's
    spec_change: tuple[str, ...] = ()
    #: the method was accepted with --accept-changed: ``status`` is the comparison's verdict
    accepted: bool = False
    #: the verdict of the comparison itself (unchanged | better | worse | changed), also for
    #: a row whose status is ``changed spec``; '' where nothing could be compared
    comparison: str = ""


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
    def changed_spec(self) -> list[CheckRow]:
        return [r for r in self.rows if r.status == "changed spec"]

    @property
    def failed(self) -> bool:
        return bool(self.worse or self.missing or self.changed_spec)

    def __repr__(self) -> str:
        counts: dict[str, int] = {}
        for r in self.rows:
            counts[r.status] = counts.get(r.status, 0) + 1
        summary = ", ".join(f"{n} {s}" for s, n in counts.items())
        return (
            f"CheckResult({'FAILED' if self.failed else 'ok'} against {self.baseline}: {summary})"
        )

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
    from scipy import stats as sps  # here: scipy.stats only for a check on one instance

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
    a = anova(d, design)
    res = compare_test(a)
    if res.test == "F" and res.p is not None:
        # the quasi-F is liberal in some designs: decide on its calibrated p there
        # (stats.level), never on a p smaller than the one it reports
        from ..stats.level import calibrated_p, is_liberal
        from ..stats.power import VarianceComponents

        vc = VarianceComponents.from_anova(a)
        if is_liberal(vc, a.I, a.J):
            p = max(res.p_reported or 0.0, calibrated_p(vc, a.I, a.J, res.p))
            return TestResult(test="F (calibrated)", statistic=res.statistic, df=res.df, p=p)
    return res


def _baseline_results(
    base: ResultsTree, method: str, ref: TaskRef, layout
) -> tuple[list[InstanceResult], str, list[int]]:
    """Every complete instance of the baseline, read with its own fingerprint (``ok`` or
    ``stale`` against today's specs alike); '' or why its losses cannot be paired with
    today's test sets (the task's instances changed); the baseline's own corrupt
    instances (a damaged file, or one that is not a regular file), which hold nothing to
    compare and are named in the row."""
    out: list[InstanceResult] = []
    corrupt: list[int] = []
    for st in task_instances(base, method, ref, layout):
        if st.state == "corrupt":
            corrupt.append(st.index)
        if st.state not in ("ok", "stale"):
            continue
        try:
            # a study baseline (check --with STUDY) holds packed files, not instance folders
            out.append(read_recorded(base, method, ref, layout, st))
        except DelveError as e:
            return out, str(e), corrupt
    return out, "", corrupt


def spec_difference(recorded: dict | None, current: dict | None) -> list[str]:
    """Fingerprint fields whose values differ between two instances' meta.json
    fingerprints (``["fingerprint"]`` where either has none)."""
    if not isinstance(recorded, dict) or not isinstance(current, dict):
        return ["fingerprint"]
    return sorted(k for k in recorded.keys() | current.keys() if recorded.get(k) != current.get(k))


def _row(ws, base, method, ref, loss, margin, accepted: bool) -> CheckRow | None:
    """``method`` on ``ref`` and ``loss``, baseline against workspace; None where the
    baseline holds no such losses. A compared row's status is ``changed`` until
    :func:`_judged` has every row's p."""
    layout = layout_of(ws, ref)
    if loss not in layout.proto.losses:
        return None  # e.g. S on a classification task
    base_res, unpaired, base_corrupt = _baseline_results(base, method, ref, layout)
    noted = [f"baseline corrupt, not compared: {_numbers(base_corrupt)}"] if base_corrupt else []
    cur_res, states = read_task_results(ws, method, ref, layout)
    cur = {r.instance: r for r in cur_res}
    changed = _spec_changes(base_res, cur)
    common = dict(method=method, task=ref.full_name, loss=loss, design=layout.design)
    common |= dict(spec_change=changed, accepted=accepted)  # every row says how its spec changed
    if unpaired:
        if not changed:
            raise DelveError(unpaired)
        # the task's instances changed: the losses cannot be paired case by case
        return CheckRow(
            **common,
            status="accepted" if accepted else "changed spec",
            instances=0,
            missing=(),
            why=f"not comparable: {unpaired}",
        )
    wanted = [r for r in base_res if r.losses[loss] is not None]
    if not wanted:
        return None  # nothing of this loss in the baseline to hold the workspace to
    missing = tuple(
        r.instance for r in wanted if r.instance not in cur or cur[r.instance].losses[loss] is None
    )
    st = task_standardizer(ws, layout, loss)
    yb = _stacked(wanted, loss)
    if missing:
        return CheckRow(
            **common,
            status="missing",
            instances=len(wanted) - len(missing),
            missing=missing,
            why="; ".join(_missing_groups(missing, states, loss) + noted),
            baseline=st.mean(float(yb.mean())),
        )
    yc = _stacked([cur[r.instance] for r in wanted], loss)
    if same_losses(yc, yb):
        yc = yb  # equal at the committed precision: no change, to the last digit shown
    return CheckRow(
        **common,
        instances=len(wanted),
        missing=(),
        why="; ".join(noted),
        baseline=st.mean(float(yb.mean())),
        current=st.mean(float(yc.mean())),
        **_compared(yb, yc, loss, margin, layout.design, layout.size),
    )


def _spec_changes(
    base_res: list[InstanceResult], cur: dict[int, InstanceResult]
) -> tuple[str, ...]:
    """Fingerprint fields that differ between any baseline instance and the workspace's."""
    fields = {
        f
        for r in base_res
        if r.instance in cur
        for f in spec_difference(r.meta.get("fingerprint"), cur[r.instance].meta.get("fingerprint"))
    }
    return tuple(sorted(fields))


def _missing_groups(missing: tuple[int, ...], states: dict, loss: str) -> list[str]:
    """The baseline instances the workspace lacks, grouped by their state there
    (``failed: 3 7``); one with no such state has no ``loss`` loss."""
    state = {i: k for k, idx in states.items() for i in idx}
    groups: dict[str, list[int]] = {}
    for i in missing:
        groups.setdefault(state.get(i, f"no {loss} loss"), []).append(i)
    return [f"{k}: {_numbers(v)}" for k, v in groups.items()]


def _numbers(instances: Iterable[int]) -> str:
    return " ".join(map(str, instances))


def _stacked(results: list[InstanceResult], loss: str) -> np.ndarray:
    """The ``loss`` losses of ``results`` that have them, shape (instances, test cases)."""
    return np.vstack([x for r in results if (x := r.losses[loss]) is not None])


def _compared(
    yb: np.ndarray, yc: np.ndarray, loss: str, margin: float, design: str, n_train: int
) -> dict[str, Any]:
    """The comparison's fields of a row, for the paired raw losses ``yb`` (baseline) and
    ``yc`` (workspace), each of shape (instances, test cases).

    Returns
    -------
    dict
        ``status`` (``unchanged``, or ``changed`` until the p are adjusted), ``change``,
        ``margin`` (delta in raw units), ``test``, ``p`` (the non-inferiority test of
        mu = delta; 1 where the mean difference is within the margin) and ``p_change``
        (the design's test of mu = 0).
    """
    mb, mc = float(yb.mean()), float(yc.mean())
    change = (mc - mb) if loss == "L" else ((mc / mb - 1) if mb != 0 else None)
    delta = margin if loss == "L" else margin * abs(mb)
    if np.array_equal(yc, yb):
        return dict(status="unchanged", change=change, margin=delta, test="", p=None)
    d = yc - yb
    plain = _test(d, design, n_train)
    if d.mean() > delta:
        shifted = _test(d - delta, design, n_train)
        test, p = shifted.test, shifted.p_reported
    else:  # not worse by more than the margin: nothing to test (a huge margin would
        # overflow the shifted test's statistic); the design's test is the same one
        test, p = plain.test, 1.0
    return dict(
        status="changed",
        change=change,
        margin=delta,
        test=test,
        p=p,
        p_change=plain.p_reported,
    )


def check_margin(margin: float) -> float:
    """The margin as a float, or one error: it must be a finite non-negative number (NaN
    would make every comparison with it false, and so switch the gate off)."""
    try:
        m = float(margin)
    except (TypeError, ValueError):
        raise DelveError(f"--margin {margin!r}: not a number") from None
    if not math.isfinite(m) or m < 0:
        raise DelveError(f"--margin {margin!r}: must be a finite number >= 0")
    return m


def check(
    ws: WorkspaceDirs,
    baseline: str | Path | WorkspaceDirs,
    methods: list[str] | None = None,
    refs: list[TaskRef] | None = None,
    losses: tuple[str, ...] = DEFAULT_LOSSES,
    alpha: float = ALPHA,
    margin: float = MARGIN,
    accept_changed: tuple[str, ...] = (),
) -> CheckResult:
    """Compare the workspace's results with ``baseline`` (a path, or a workspace such as
    :func:`delve_bench.study.beside.study_baseline`) task by task (see module doc).

    ``accept_changed``: methods whose changed spec is intended (their rows are judged on
    the comparison alone)."""
    margin = check_margin(margin)
    if not (0 < alpha < 1):  # NaN fails this too
        raise DelveError(f"--alpha {alpha!r}: must be a number between 0 and 1")
    base = baseline if isinstance(baseline, WorkspaceDirs) else baseline_tree(ws, baseline)
    in_base = result_methods(base)
    in_ws = result_methods(ws)
    for m in accept_changed:
        if m not in in_base and m not in in_ws:
            raise DelveError(f"--accept-changed {m}: no results of {m} on either side")
    rows: list[CheckRow] = []
    for m in methods or in_base + [m for m in in_ws if m not in in_base]:
        if m in in_base:
            for ref in _tasks(base, m, refs):
                rows += _rows(ws, base, m, ref, losses, margin, m in accept_changed)
        elif m in in_ws:
            rows += _new_rows(ws, m, refs)
        else:
            raise DelveError(f"{m} has no results in the baseline {baseline} nor here")
    if not rows:
        raise DelveError(f"nothing to check: the baseline {baseline} has no such results")
    return CheckResult(baseline=_label(base), alpha=alpha, margin=margin, rows=_judged(rows, alpha))


def _label(base: WorkspaceDirs) -> str:
    """The baseline as the result names it: its results folder, and the study it is."""
    if base.reference is None:
        return str(base.results)
    return f"study {base.reference.name} ({base.results})"


def _tasks(tree: WorkspaceDirs, method: str, refs: list[TaskRef] | None) -> list[TaskRef]:
    """The tasks ``tree`` has results of ``method`` on, of ``refs`` where given."""
    tasks = result_tasks(tree, [method])
    return tasks if refs is None else [t for t in tasks if t in set(refs)]


def _rows(ws, base, method, ref, losses, margin, accepted: bool) -> list[CheckRow]:
    """The rows of one method and task of the baseline, one per loss it has there."""
    rows = (_row(ws, base, method, ref, loss, margin, accepted) for loss in losses)
    return [r for r in rows if r is not None]


def _judged(rows: list[CheckRow], alpha: float) -> tuple[CheckRow, ...]:
    """The rows with their verdicts (:func:`_verdict`), both tests' p Holm-adjusted over
    every row."""
    adj = adjust([r.p for r in rows], "holm")
    adj_change = adjust([r.p_change for r in rows], "holm")
    return tuple(
        _verdict(r, pa, pc, alpha) for r, pa, pc in zip(rows, adj, adj_change, strict=True)
    )


def _verdict(r: CheckRow, p: float | None, p_change: float | None, alpha: float) -> CheckRow:
    """``r`` with its adjusted p (``p`` of the non-inferiority test, ``p_change`` of the
    design's test) and its verdict at ``alpha``: a ``changed`` row is ``worse``
    (non-inferiority rejected), ``better`` (a significant decrease) or stays
    ``changed``; an unaccepted changed spec reads ``changed spec`` whatever its
    comparison."""
    status = r.status
    if status == "changed":
        if p is not None and p < alpha:
            status = "worse"
        elif p_change is not None and p_change < alpha and (r.current or 0.0) < (r.baseline or 0.0):
            status = "better"
    verdict = status if status in ("unchanged", "changed", "worse", "better") else ""
    if r.spec_change and not r.accepted and status != "missing":
        status = "changed spec"
    return replace(r, status=status, p_adjusted=p, comparison=verdict)


def _new_rows(ws: WorkspaceDirs, method: str, refs: list[TaskRef] | None) -> list[CheckRow]:
    """One row per task of a method with results here but none in the baseline."""
    return [
        CheckRow(
            method=method,
            task=ref.full_name,
            loss="-",
            design="",
            status="new",
            instances=0,
            missing=(),
            why="not in the baseline",
        )
        for ref in _tasks(ws, method, refs)
    ]
