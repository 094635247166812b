"""The ``scaling`` display: training CPU time and model size against training-set size,
log-log, with the fitted scaling exponent per method (Barrio et al. 2009, Figs. 3 and 4).

Each panel is a group of the study's prototasks, chosen by a shell-style pattern on
``dataset`` or ``dataset/prototask`` (``{scaling: [pumadyn-8nm, kin-8nm]}`` gives Fig. 3's
two panels, ``{scaling: ["hwang-*"]}`` Fig. 4's one; plain ``scaling`` one panel over every
task of the study). A point is the mean over the group's tasks of each task's mean over its
finished instances (so a task counts once whatever its number of instances) of the
training CPU time and ``info.n_basis`` (basis functions of the final model; support vectors
for an SVM) from meta.json. The training time is ``fit_cpu_seconds`` plus the CPU seconds of
the ABF width stage when the fit reused it from another method's job
(:func:`~.displays.reused_cpu_seconds`): each method's time is then what it costs on its
own, as in the paper, whichever method computed the shared stage. The exponent b is the
least-squares slope of log(mean) on log(n) over the sizes every task of the group has
finished, so ``time ~ n^b``. Instances recorded as failed (e.g. killed at the study's hard limit) are
counted and listed, as Barrio et al. reported ABF's runs that could not finish.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..analysis.collect import TaskReport
from ..report import tables as tb
from ..report.diagram import colours
from ..tasks.names import TaskRef
from .displays import StudyView, _f, _write_figure, _write_table, reused_cpu_seconds
from .published import BARRIO_LABEL

#: (quantity key, axis label): the figure's two panels per group
QUANTITIES = (
    ("training_cpu_seconds", "training CPU seconds"),
    ("n_basis", "basis functions (#BF)"),
)
#: also tabulated: the CPU time of the ABF width stage inside the training time
#: (info.width_cpu_seconds, recorded by the basis plugins whether they computed or reused it)
WIDTH = "width_cpu_seconds"
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "h", "<", ">")


@dataclass(frozen=True)
class Point:
    """One method at one training-set size in one panel."""

    method: str
    size: int
    tasks: int  # tasks of the group with at least one finished instance
    group_tasks: int  # tasks of the group at this size
    instances: int  # finished instances over those tasks
    failed: int  # instances recorded as failed
    values: dict[str, float | None]  # quantity -> mean over tasks (None: not recorded)

    @property
    def complete(self) -> bool:
        """Every task of the group at this size has a finished instance."""
        return self.tasks == self.group_tasks


def _number(v) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def quantity(meta: dict, key: str) -> float | None:
    """``training_cpu_seconds`` (``fit_cpu_seconds`` plus a reused width stage's CPU
    seconds) or an ``info`` entry of one meta.json; None when it is not recorded."""
    if key == "training_cpu_seconds":
        fit = _number(meta.get("fit_cpu_seconds"))
        return None if fit is None else fit + reused_cpu_seconds(meta)
    return _number((meta.get("info") or {}).get(key))


def exponent(sizes: np.ndarray, values: np.ndarray) -> float | None:
    """Least-squares slope of log(values) on log(sizes): b in ``value ~ size^b``.

    Parameters
    ----------
    sizes : ndarray, shape (k,)
        Training-set sizes (positive).
    values : ndarray, shape (k,)
        The quantity at those sizes; points that are not positive are left out.

    Returns
    -------
    float or None
        The slope, or None with fewer than two distinct usable sizes.
    """
    sizes, values = np.asarray(sizes, float), np.asarray(values, float)
    ok = (sizes > 0) & (values > 0) & np.isfinite(values)
    x, y = np.log(sizes[ok]), np.log(values[ok])
    if len(np.unique(x)) < 2:
        return None
    return float(np.polyfit(x, y, 1)[0])


def matches(ref: TaskRef, pattern: str) -> bool:
    """Whether a task belongs to the group ``pattern`` (dataset or dataset/prototask)."""
    d, p = ref.dataset, ref.prototask
    return fnmatch.fnmatchcase(d, pattern) or fnmatch.fnmatchcase(f"{d}/{p}", pattern)


def points(
    view: StudyView, tasks: list[TaskReport], method: str, pattern: str | None = None
) -> list[Point]:
    """The method's points over ``tasks`` (the group's tasks with results), one per
    training-set size; a point is complete when every task of the group at that size
    (the study's, :meth:`~.displays.StudyView.task_count`, matching ``pattern``; None:
    every task of the study) has a finished instance."""
    out = []
    for n in sorted({t.ref.size for t in tasks}):
        ts = [t for t in tasks if t.ref.size == n]
        group = view.task_count(
            lambda r, n=n: r.size == n and (pattern is None or matches(r, pattern)), method
        )
        if not group and not any(view.recorded_metas(method, t) for t in ts):
            continue  # a size the study does not run the method at (its skip_sizes)
        keys = [k for k, _ in QUANTITIES] + [WIDTH]
        per_task: dict[str, list[float]] = {k: [] for k in keys}
        done = inst = failed = 0
        for t in ts:
            metas = view.recorded_metas(method, t)
            ok = [m for m in metas if m.get("status") == "ok"]
            failed += sum(m.get("status") == "failed" for m in metas)
            if not ok:
                continue
            done += 1
            inst += len(ok)
            for k in keys:
                vals = [v for m in ok if (v := quantity(m, k)) is not None]
                if vals:
                    per_task[k].append(float(np.mean(vals)))
        values = {
            k: (float(np.mean(v)) if v and len(v) == done else None) for k, v in per_task.items()
        }
        out.append(Point(method, n, done, max(group, len(ts)), inst, failed, values))
    return out


def _label(method: str) -> str:
    return BARRIO_LABEL.get(method, method)


def write_scaling(view: StudyView, out: Path, groups: tuple[str, ...] = ()) -> list[str]:
    """Figure and table: per panel (group of prototasks), mean training CPU time and mean
    #BF against training-set size for every method, log-log, with the fitted exponents."""
    tasks = view.tasks()
    panels = [(g, [t for t in tasks if matches(t.ref, g)]) for g in groups] or [
        ("all tasks", tasks)
    ]
    panels = [(g, ts) for g, ts in panels if ts]
    if not panels:
        return []
    names = view.methods
    col = colours(tuple(names))
    pts = {(g, m): points(view, ts, m, g if groups else None) for g, ts in panels for m in names}
    slopes: dict[tuple[str, str, str], float | None] = {}
    for (g, m), ps in pts.items():
        for k, _ in QUANTITIES:
            use = [p for p in ps if p.complete and p.values[k] is not None]
            slopes[(g, m, k)] = exponent(
                np.array([p.size for p in use]), np.array([p.values[k] for p in use])
            )

    def draw() -> Figure:
        fig = Figure(figsize=(9.0, 3.6 * len(panels)), layout="constrained")
        axes = np.atleast_2d(fig.subplots(len(panels), len(QUANTITIES)))
        for row, (g, ts) in zip(axes, panels, strict=True):
            for ax, (k, ylabel) in zip(row, QUANTITIES, strict=True):
                for j, m in enumerate(names):
                    use = [p for p in pts[(g, m)] if p.complete and p.values[k] is not None]
                    if not use:
                        continue
                    b = slopes[(g, m, k)]
                    lab = _label(m) + ("" if b is None else f" (b = {b:.2f})")
                    ax.plot(
                        [p.size for p in use],
                        [p.values[k] for p in use],
                        marker=MARKERS[j % len(MARKERS)],
                        ms=4,
                        lw=1.2,
                        color=col[m],
                        label=lab,
                    )
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xlabel("training cases n")
                ax.set_ylabel(ylabel)
                n_protos = len({(t.ref.dataset, t.ref.prototask) for t in ts})
                ax.set_title(f"{g} ({n_protos} prototask{'s' * (n_protos > 1)})", fontsize=9)
                ax.grid(True, color="#e6e6e6", lw=0.6)
                if ax.get_legend_handles_labels()[0]:
                    ax.legend(fontsize=6.5, loc="best")
        fig.suptitle(
            "Training CPU time and model size against n (fitted exponent b: value ~ n^b)",
            fontsize=10,
        )
        return fig

    files = _write_figure(out, "figures/scaling", draw)
    head = [
        "group",
        "method",
        "train_size",
        "tasks",
        "group_tasks",
        "instances",
        "failed",
        "training_cpu_seconds",
        "n_basis",
        "width_cpu_seconds",
    ]
    rows: list[list] = []
    disp: list[tuple[str, ...]] = []
    for g, _ in panels:
        for m in names:
            for p in pts[(g, m)]:
                t_, b_, w_ = (p.values[k] for k in ("training_cpu_seconds", "n_basis", WIDTH))
                rows.append(
                    [g, m, p.size, p.tasks, p.group_tasks, p.instances, p.failed, t_, b_, w_]
                )
                disp.append(
                    (
                        g,
                        m,
                        str(p.size),
                        f"{p.tasks}/{p.group_tasks}",
                        str(p.instances),
                        str(p.failed) if p.failed else "",
                        _f(t_, ".4g") if p.complete else f"({_f(t_, '.4g')})",
                        _f(b_, ".4g") if p.complete else f"({_f(b_, '.4g')})",
                        _f(w_, ".4g"),
                    )
                )
            bt, bb = slopes[(g, m, "training_cpu_seconds")], slopes[(g, m, "n_basis")]
            rows.append([g, m, "exponent", "", "", "", "", bt, bb, ""])
            disp.append((g, m, "exponent b", "", "", "", _f(bt, ".2f"), _f(bb, ".2f"), ""))
    table = tb.Table(
        title="Training CPU time and model size against training-set size (Barrio et al. "
        "Figs. 3-4)",
        columns=(
            "group",
            "method",
            "n",
            "tasks",
            "instances",
            "failed",
            "CPU s",
            "#BF",
            "of which widths",
        ),
        align="llrrrrrrr",
        rows=tuple(disp),
        notes=(
            "Mean over the group's tasks of each task's mean over its finished instances of "
            "the training CPU time (one core; fit_cpu_seconds, plus the ABF width stage's CPU "
            "seconds where the fit reused the stage computed by another method on the same "
            "training set) and info.n_basis (support vectors for svm-1). In brackets: not "
            "every task of the group has finished at that size (left out of the figure and "
            "of the fit). exponent b: least-squares slope of "
            "log value on log n over the complete sizes. failed: instances recorded as "
            "failed (e.g. killed at the hard limit). of which widths: mean CPU s of the ABF "
            "width stage inside the training time (computed or reused), where meta.json "
            "records it.",
        ),
    )
    return files + _write_table(out, "tables/scaling", table, head, rows)
