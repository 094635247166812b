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
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sps

from ..defaults import ALPHA, DEFAULT_LOSSES
from ..errors import DelveError
from ..run.store import InstanceResult, read_recorded, read_task_results, task_instances
from ..stats.anova import anova
from ..stats.multiple import adjust
from ..stats.resampled import corrected_resampled_t_test
from ..stats.tests import TestResult, compare_test
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs
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
    layout = layout_of(ws, ref)
    if loss not in layout.proto.losses:
        return None  # e.g. S on a classification task
    base_res, unpaired, base_corrupt = _baseline_results(base, method, ref, layout)
    noted = (
        f"baseline corrupt, not compared: {' '.join(map(str, base_corrupt))}"
        if base_corrupt
        else ""
    )
    cur_res, states = read_task_results(ws, method, ref, layout)
    cur = {r.instance: r for r in cur_res}
    changed = sorted(
        {
            f
            for r in base_res
            if r.instance in cur
            for f in spec_difference(
                r.meta.get("fingerprint"), cur[r.instance].meta.get("fingerprint")
            )
        }
    )
    common = dict(method=method, task=ref.full_name, loss=loss, design=layout.design)
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
            spec_change=tuple(changed),
            accepted=accepted,
        )
    if not base_res or all(r.losses[loss] is None for r in base_res):
        return None  # nothing of this loss in the baseline to hold the workspace to
    wanted = [r for r in base_res if r.losses[loss] is not None]
    missing = tuple(
        r.instance for r in wanted if r.instance not in cur or cur[r.instance].losses[loss] is None
    )
    state = {i: k for k, idx in states.items() for i in idx}
    groups: dict[str, list[int]] = {}
    for i in missing:
        groups.setdefault(state.get(i, f"no {loss} loss"), []).append(i)
    why = "; ".join(
        [f"{k}: {' '.join(map(str, v))}" for k, v in groups.items()] + ([noted] if noted else [])
    )
    st = task_standardizer(ws, layout, loss)
    yb = np.vstack([x for r in wanted if (x := r.losses[loss]) is not None])
    extra: dict = {"spec_change": tuple(changed), "accepted": accepted}
    if missing:
        return CheckRow(
            **common,
            status="missing",
            instances=len(wanted) - len(missing),
            missing=missing,
            why=why,
            baseline=st.mean(float(yb.mean())),
            **extra,
        )
    yc = np.vstack([x for r in wanted if (x := cur[r.instance].losses[loss]) is not None])
    unchanged = same_losses(yc, yb)
    if unchanged:
        yc = yb  # equal at the committed precision: no change, to the last digit shown
    mb, mc = float(yb.mean()), float(yc.mean())
    change = (mc - mb) if loss == "L" else ((mc / mb - 1) if mb != 0 else None)
    delta = margin if loss == "L" else margin * abs(mb)
    d = yc - yb
    if unchanged:
        status, test, p, p_change = "unchanged", "", None, None
    else:
        plain = _test(d, layout.design, layout.size)
        if d.mean() > delta:
            shifted = _test(d - delta, layout.design, layout.size)
            test, p = shifted.test, shifted.p_reported
        else:  # not worse by more than the margin: nothing to test (a huge margin would
            # overflow the shifted test's statistic); the design's test is the same one
            test, p = plain.test, 1.0
        p_change = plain.p_reported
        status = "changed"
    return CheckRow(
        **common,
        status=status,
        instances=len(wanted),
        missing=(),
        why=noted,
        baseline=st.mean(mb),
        current=st.mean(mc),
        change=change,
        margin=delta,
        test=test,
        p=p,
        p_adjusted=None,
        p_change=p_change,
        **extra,
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
    from .collect import result_methods, result_tasks

    margin = check_margin(margin)
    if not (0 < alpha < 1):  # NaN fails this too
        raise DelveError(f"--alpha {alpha!r}: must be a number between 0 and 1")
    base = baseline if isinstance(baseline, WorkspaceDirs) else baseline_tree(ws, baseline)
    label = (
        f"study {base.reference.name} ({base.results})"
        if base.reference is not None
        else str(base.results)
    )
    in_base = result_methods(base)
    in_ws = result_methods(ws)
    for m in accept_changed:
        if m not in in_base and m not in in_ws:
            raise DelveError(f"--accept-changed {m}: no results of {m} on either side")
    wanted = methods or in_base + [m for m in in_ws if m not in in_base]
    rows: list[CheckRow] = []
    for m in wanted:
        if m not in in_base:
            if m not in in_ws:
                raise DelveError(f"{m} has no results in the baseline {baseline} nor here")
            rows.extend(_new_rows(ws, m, refs))
            continue
        tasks = result_tasks(base, [m])
        if refs is not None:
            tasks = [t for t in tasks if t in set(refs)]
        for ref in tasks:
            for loss in losses:
                row = _row(ws, base, m, ref, loss, margin, m in accept_changed)
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
        verdict = status if status in ("unchanged", "changed", "worse", "better") else ""
        if r.spec_change and not r.accepted and status != "missing":
            status = "changed spec"
        final.append(
            CheckRow(**{**asdict(r), "status": status, "p_adjusted": pa, "comparison": verdict})
        )
    return CheckResult(baseline=label, alpha=alpha, margin=margin, rows=tuple(final))


def _new_rows(ws: WorkspaceDirs, method: str, refs: list[TaskRef] | None) -> list[CheckRow]:
    """One row per task of a method with results here but none in the baseline."""
    from .collect import result_tasks

    tasks = result_tasks(ws, [method])
    if refs is not None:
        tasks = [t for t in tasks if t in set(refs)]
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
        for ref in tasks
    ]
