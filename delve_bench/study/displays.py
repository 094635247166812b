"""The displays of a study beyond the per-prototask report: the thesis' chapter-5 figures
and tables (Rasmussen 1996, Figs. 5.2 and 5.14-5.19) and Barrio et al.'s (2009) Tables 2,
4 and 6, each beside the published numbers where the paper prints any.

Every display is built from :class:`~delve_bench.analysis.collect.PrototaskReport` objects
(the numbers of ``delve report``) and the results' meta.json files, and written as
Markdown + CSV tables (:mod:`delve_bench.report.tables`) and SVG + PNG figures rendered
with the DELVE diagram's fixed fonts and metadata, so regeneration is byte-identical.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.figure import Figure

from ..analysis.collect import PrototaskReport, TaskReport, method_order, p_digit
from ..analysis.overview import overview as make_overview
from ..report import tables as tb
from ..report.build import Planned
from ..report.diagram import colours
from ..report.figures import save_figure
from ..run.output import write_file
from ..run.sources import packed, study_dir_of
from ..run.store import read_meta, result_dir
from ..stats.summary import DESIGN_TESTS
from ..tasks.instances import task_layout
from ..tasks.names import TaskRef
from ..tasks.spec import prototask_spec
from ..workspace import WorkspaceDirs
from . import published as pub

_KIN_PUMA = re.compile(r"^(kin|pumadyn)-(8|32)([fn])([mh])$")
CHARACTERISTICS = (
    # (figure, title, index into the name's groups, {value: label})
    ("5.14", "number of inputs", 1, {"8": "8 inputs", "32": "32 inputs"}),
    ("5.15", "linearity", 2, {"f": "fairly linear", "n": "non-linear"}),
    ("5.16", "data family", 0, {"kin": "kin", "pumadyn": "pumadyn"}),
    ("5.17", "noise level", 3, {"m": "medium noise", "h": "high noise"}),
)


@dataclass
class StudyView:
    """What displays read: the per-prototask reports of every result name for S, and the
    result store they came from (for meta.json)."""

    ws: WorkspaceDirs
    reports: list[PrototaskReport]  # loss S, main methods and snapshots
    methods: list[str]  # main methods in display order
    #: every task of the study, with results or not (the reports hold only tasks with
    #: results): what a display that counts tasks counts against, so a study still running
    #: shows "2/5 tasks" instead of a complete-looking mean over the finished ones. Empty:
    #: the tasks of the reports.
    study_tasks: tuple[TaskRef, ...] = ()
    #: the instances the study means a method to run on a task (None: all of them; no
    #: callable: every method runs every instance), so a task a study runs on one of its
    #: instances counts as finished when that instance is
    planned: Planned | None = None
    #: the study's tasks each method runs (its ``skip_sizes`` left out); a method not
    #: named runs every task of the study
    method_tasks: dict[str, frozenset[TaskRef]] = field(default_factory=dict)

    def finished(self, t: TaskReport, m: str) -> bool:
        """Whether ``m`` has every instance of ``t`` the study means it to run."""
        c = t.cells.get(m)
        if c is None or c.status == "ok":
            return c is not None
        want = self.planned(m, t.ref) if self.planned is not None else None
        return want is not None and set(c.used) == want

    def task_count(self, keep, method: str | None = None) -> int:
        """How many of the study's tasks (those ``method`` runs, when given) satisfy
        ``keep(ref)``; those of the reports when the view has no task list."""
        if method in self.method_tasks:
            refs: Iterable[TaskRef] = self.method_tasks[method]
        else:
            refs = self.study_tasks or tuple(t.ref for t in self.tasks())
        return sum(1 for r in refs if keep(r))

    def tasks(self, kin_puma_only: bool = False) -> list[TaskReport]:
        return [
            t
            for r in self.reports
            for t in r.tasks
            if not kin_puma_only or _KIN_PUMA.match(t.ref.dataset)
        ]

    def metas(self, name: str, t: TaskReport) -> list[dict]:
        """meta.json of the finished instances of ``name`` on task ``t``."""
        return [m for m in self.recorded_metas(name, t) if m.get("status") == "ok"]

    def recorded_metas(self, name: str, t: TaskReport) -> list[dict]:
        """meta.json of every recorded instance (finished or failed) of ``name`` on ``t``,
        in instance order: from the committed meta lines where the view reads a study's
        packed files (:mod:`delve_bench.run.sources`), else from the result store."""
        layout = task_layout(
            self.ws, prototask_spec(self.ws, t.ref.dataset, t.ref.prototask), t.ref.size
        )
        sd = study_dir_of(self.ws, name)
        if sd is not None:
            recorded = packed(sd, name, t.ref.dataset, t.ref.prototask).metas
            found = (recorded.get((t.ref.size, inst.index)) for inst in layout.instances)
        else:
            found = (read_meta(result_dir(self.ws, name, t.ref, i.index)) for i in layout.instances)
        return [m for m in found if m]


# ---- writing ----------------------------------------------------------------------


def _write_table(
    out: Path, stem: str, table: tb.Table, head: list[str], rows: list[list]
) -> list[str]:
    files = {f"{stem}.md": tb.to_markdown(table).encode(), f"{stem}.csv": tb.to_csv(head, rows)}
    for rel, data in files.items():
        write_file(out / rel, data)
    return list(files)


def _write_figure(out: Path, stem: str, draw) -> list[str]:
    """PNG only: the committed results must stay small."""
    return [str(p.relative_to(out)) for p in save_figure(draw, out / stem, ("png",))]


def reused_cpu_seconds(meta: dict) -> float:
    """CPU seconds of a shared training stage that the run read from the stage store
    instead of computing (the ABF width stage: ``info.width_cpu_seconds`` when
    ``info.width_reused``; :mod:`delve_bench.methods.basis.widths`): what its measured CPU
    time leaves out of the training time a method costs on its own, 0 when nothing was
    reused. Displays of training time add it, so methods compare with each other and with
    published times whichever of them computed the stage."""
    info = meta.get("info") or {}
    v = info.get("width_cpu_seconds")
    if info.get("width_reused") is True and isinstance(v, int | float) and not isinstance(v, bool):
        return float(v)
    return 0.0


def _f(x: float | None, fmt: str = ".3g") -> str:
    return "" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


# ---- geometric averages (Figs. 5.14-5.17) --------------------------------------------


def characteristic(dataset: str, idx: int) -> str | None:
    """Family, inputs, linearity or noise (idx 0-3) of a kin/pumadyn dataset name."""
    m = _KIN_PUMA.match(dataset)
    return m.group(idx + 1) if m else None


def geometric(points: Iterable[tuple[float | None, float | None]]) -> tuple[float, float] | None:
    """Geometric average of losses y_i and the SE of its log (Rasmussen 1996, §5.4):
    exp(mean log y_i) and sqrt(sum (s_i / y_i)^2) / n, for (y_i, s_i) pairs."""
    pts = [(float(y), float(s)) for y, s in points if y is not None and s is not None]
    if not pts or any(y <= 0 for y, _ in pts):
        return None
    n = len(pts)
    g = math.exp(sum(math.log(y) for y, _ in pts) / n)
    return g, math.sqrt(sum((s / y) ** 2 for y, s in pts)) / n


def _group_values(view: StudyView, names: list[str], tasks: list[TaskReport]):
    """{(name, size): (G, se_log, k)} over ``tasks``; only when every task has a value."""
    out = {}
    sizes = sorted({t.ref.size for t in tasks})
    for m in names:
        for n in sizes:
            ts = [t for t in tasks if t.ref.size == n and m in t.cells]
            cells = [t.cells[m] for t in ts]
            if ts and all(c.has_value for c in cells):
                g = geometric((c.mean, c.se) for c in cells)
                if g:
                    out[(m, n)] = (*g, len(ts))
    return out


def _bars(ax, view, names, values, sizes, col) -> None:
    M = len(names)
    for k, m in enumerate(names):
        xs, ys, lo, hi = [], [], [], []
        for j, n in enumerate(sizes):
            if (m, n) in values:
                g, se, _ = values[(m, n)]
                xs.append(j + (k - (M - 1) / 2) * 0.8 / max(M, 1))
                ys.append(g)
                lo.append(g - g * math.exp(-se))
                hi.append(g * math.exp(se) - g)
        if xs:
            ax.errorbar(xs, ys, yerr=[lo, hi], fmt="_", ms=7, mew=2, lw=1.1, color=col[m], label=m)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([str(n) for n in sizes])
    ax.set_yscale("log")
    ax.set_xlabel("training cases")
    ax.yaxis.grid(True, color="#e6e6e6", lw=0.6)
    ax.set_axisbelow(True)


def write_geometric(view: StudyView, out: Path) -> list[str]:
    """Figs. 5.14-5.17: geometric averages of standardised S over the kin/pumadyn
    prototasks sharing one value of a characteristic, per method and size, ±1 SE."""
    tasks = view.tasks(kin_puma_only=True)
    if not tasks:
        return []
    names = view.methods
    col = colours(tuple(names))
    sizes = sorted({t.ref.size for t in tasks})
    files, head, rows = (
        [],
        [
            "figure",
            "characteristic",
            "value",
            "method",
            "train_size",
            "geometric_mean",
            "se_log",
            "prototasks",
        ],
        [],
    )
    for fig_no, title, idx, labels in CHARACTERISTICS:
        groups = {v: [t for t in tasks if characteristic(t.ref.dataset, idx) == v] for v in labels}
        if sum(1 for g in groups.values() if g) < 2:
            continue

        def draw(groups=groups, labels=labels, fig_no=fig_no, title=title) -> Figure:
            fig = Figure(figsize=(10, 3.8))
            axes = fig.subplots(1, 2, sharey=True)
            for ax, (v, ts) in zip(axes, groups.items(), strict=True):
                values = _group_values(view, names, ts)
                protos = sorted({t.ref.dataset for t in ts})
                _bars(ax, view, names, values, sizes, col)
                ax.set_title(f"{labels[v]} ({len(protos)} prototasks)", fontsize=9)
                for (m, n), (g, se, k) in sorted(
                    values.items(), key=lambda kv: (names.index(kv[0][0]), kv[0][1])
                ):
                    rows.append([fig_no, title, labels[v], m, n, g, se, k])
            axes[0].set_ylabel("geometric average standardised S")
            axes[1].legend(fontsize=6.5, loc="best")
            fig.suptitle(f"Fig. {fig_no}: by {title} (±1 approximate SE)", fontsize=10)
            return fig

        files += _write_figure(out, f"figures/geometric-{fig_no.replace('.', '-')}", draw)
    table = tb.Table(
        title="Geometric averages of standardised S by data characteristic (Figs. 5.14-5.17)",
        columns=("figure", "value", "method", "size", "geometric S", "SE (log)", "prototasks"),
        align="lllrrrr",
        rows=tuple(
            (r[0], r[2], r[3], str(r[4]), _f(r[5], ".4g"), _f(r[6], ".2g"), str(r[7])) for r in rows
        ),
        notes=(
            "exp(mean log y) over the prototasks with the value; SE of the log average "
            "sqrt(sum (s_i/y_i)^2)/n; a point is shown only when the method has every "
            "prototask of the group at that size.",
        ),
    )
    return files + _write_table(out, "tables/geometric", table, head, rows)


# ---- CPU time (Fig. 5.18) ---------------------------------------------------------------


def write_cpu_time(view: StudyView, out: Path) -> list[str]:
    """Fig. 5.18 beside ours: mean measured CPU minutes (training + prediction) per
    instance over the kin/pumadyn tasks, with the thesis' 1996 minutes and the ratio."""
    tasks = view.tasks(kin_puma_only=True)
    sizes = sorted({t.ref.size for t in tasks})
    head = [
        "method",
        "train_size",
        "instances",
        "cpu_minutes",
        "thesis_minutes",
        "budget_mode",
        "time_scale",
    ]
    rows, disp = [], []
    for m in view.methods:
        line = [m]
        for n in sizes:
            metas = [x for t in tasks if t.ref.size == n for x in view.metas(m, t)]
            th = pub.THESIS_CPU_MINUTES.get(m, (None,) * 5)
            thesis = th[pub.SIZES.index(n)] if n in pub.SIZES else None
            if not metas:
                line.append("–")
                continue
            cpu = [(x.get("cpu_seconds") or 0.0) + reused_cpu_seconds(x) for x in metas]
            mins = float(np.mean(cpu)) / 60
            b = metas[0].get("budget") or {}
            rows.append([m, n, len(metas), mins, thesis, b.get("mode"), b.get("time_scale")])
            line.append(f"{mins:.3g}" + (f" ({thesis:g})" if thesis is not None else ""))
        disp.append(tuple(line))
    table = tb.Table(
        title="CPU minutes per instance (training + prediction): ours (thesis Fig. 5.18)",
        columns=("method", *map(str, sizes)),
        align="l" + "r" * len(sizes),
        rows=tuple(disp),
        notes=(
            "Ours: mean measured CPU time of the finished instances on this machine, one "
            "core. In brackets: the thesis' approximate minutes on a 200 MHz R4400 (< 0.01 "
            "shown as 0.005). Methods with a CPU budget fill it: their time is the budget "
            "(see the study file's time scales).",
        ),
    )
    return _write_table(out, "tables/cpu-time", table, head, rows)


# ---- accuracy against CPU time (Fig. 5.19) ------------------------------------------------


def write_anytime(view: StudyView, out: Path, snapshots: dict[str, list[str]]) -> list[str]:
    """Fig. 5.19: geometric average standardised S over the kin/pumadyn prototasks against
    mean training CPU seconds (log), one panel per method, one curve per size; methods
    with snapshots show one point per ``METHOD@F`` and the full run."""
    tasks = view.tasks(kin_puma_only=True)
    panels: list[str] = [
        m for m in ("mlp-ese-1", "gp-map-1", "gp-mc-1", "mlp-mc-1") if m in view.methods
    ]
    panels += [m for m in snapshots if m not in panels]
    if not tasks or not panels:
        return []
    sizes = sorted({t.ref.size for t in tasks})
    cmap = matplotlib.colormaps["viridis"]
    size_col = {n: cmap(i / max(len(sizes) - 1, 1)) for i, n in enumerate(sizes)}

    head = [
        "method",
        "result",
        "train_size",
        "fit_cpu_seconds",
        "geometric_mean",
        "se_log",
        "prototasks",
    ]
    rows: list[list] = []

    def draw() -> Figure:
        fig = Figure(figsize=(3.0 * len(panels), 3.6))
        axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True, sharex=True))
        for ax, m in zip(axes, panels, strict=True):
            names = [*snapshots.get(m, []), m]
            for n in sizes:
                ts = [t for t in tasks if t.ref.size == n]
                pts = []
                for name in names:
                    cells = [t.cells.get(name) for t in ts]
                    if not ts or not all(c is not None and c.has_value for c in cells):
                        continue
                    g = geometric((c.mean, c.se) for c in cells if c is not None)
                    cpu = [
                        (x.get("fit_cpu_seconds") or x.get("cpu_seconds") or 0.0)
                        + reused_cpu_seconds(x)
                        for t in ts
                        for x in view.metas(name, t)
                    ]
                    if g and cpu:
                        pts.append((float(np.mean(cpu)), *g))
                        rows.append([m, name, n, pts[-1][0], g[0], g[1], len(ts)])
                if pts:
                    x, y, se = map(np.array, zip(*pts, strict=True))
                    ax.errorbar(
                        x,
                        y,
                        yerr=[y - y * np.exp(-se), y * np.exp(se) - y],
                        marker="o",
                        ms=3,
                        lw=1,
                        color=size_col[n],
                        label=str(n),
                    )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(m, fontsize=9)
            ax.set_xlabel("training CPU seconds")
            ax.grid(True, color="#e6e6e6", lw=0.6)
        axes[0].set_ylabel("geometric average standardised S")
        # the sizes' legend on the last panel, taken from whichever panel has curves (a
        # method still running has none yet)
        found: dict[str, object] = {}
        for ax in axes:
            hs, labs = ax.get_legend_handles_labels()
            found.update(zip(labs, hs, strict=True))
        handles = {lab: found[lab] for lab in sorted(found, key=int)}
        if handles:
            axes[-1].legend(
                handles.values(), handles.keys(), title="n", fontsize=6.5, title_fontsize=7
            )
        fig.suptitle(
            "Fig. 5.19: accuracy against CPU time (kin and pumadyn, ±1 approximate SE)", fontsize=10
        )
        return fig

    files = _write_figure(out, "figures/anytime", draw)
    table = tb.Table(
        title="Accuracy against training CPU time (Fig. 5.19)",
        columns=("method", "result", "size", "CPU s", "geometric S", "SE (log)", "prototasks"),
        align="llrrrrr",
        rows=tuple(
            (r[0], r[1], str(r[2]), _f(r[3], ".4g"), _f(r[4], ".4g"), _f(r[5], ".2g"), str(r[6]))
            for r in rows
        ),
        notes=(
            "METHOD@F: the prediction the run made when F of its budget was spent "
            "(a snapshot), with the CPU time used by then.",
        ),
    )
    return files + _write_table(out, "tables/anytime", table, head, rows)


# ---- bagging MARS (Fig. 5.2) -----------------------------------------------------------


def write_bagging(view: StudyView, out: Path) -> list[str]:
    """Fig. 5.2: expected decrease in squared error from bagging MARS, r = 100 (Lp - Lb)/Lp,
    with the paired t-test's p (percent, rounded up) and the thesis' r."""
    plain, bag = "mars3.6-1", "mars3.6-bag-1"
    tasks = [t for t in view.tasks(kin_puma_only=True) if plain in t.cells and bag in t.cells]
    if not tasks:
        return []
    sizes = sorted({t.ref.size for t in tasks})
    protos = sorted({t.ref.dataset for t in tasks})
    head = ["prototask", "train_size", "r_percent", "p", "thesis_r_percent"]
    rows: list[list] = []
    disp: list[tuple[str, ...]] = []
    by_size: dict[int, list[float]] = {n: [] for n in sizes}
    for ds in protos:
        line = [ds]
        for n in sizes:
            t = next((t for t in tasks if t.ref.dataset == ds and t.ref.size == n), None)
            thesis = pub.THESIS_BAGGING_R.get(ds, (None,) * 5)[pub.SIZES.index(n)]
            pair = t.pair(plain, bag) if t else None
            cp, cb = (t.cells[plain], t.cells[bag]) if t else (None, None)
            if t is None or not (cp and cb and cp.summary and cb.summary):
                line.append("–")
                continue
            r = 100.0 * (cp.summary.mean - cb.summary.mean) / cp.summary.mean
            p = pair.p if pair is not None else None
            digit = p_digit(p, pair.bounded) if pair is not None and p is not None else None
            by_size[n].append(r)
            rows.append([f"{ds}/{t.ref.prototask}", n, r, p, thesis])
            pct = "" if p is None else (f"{digit}" if digit else f"{math.ceil(100 * p):d}")
            line.append(f"{r:.1f} (p {pct}%)" + (f" [{thesis:g}]" if thesis is not None else ""))
        disp.append(tuple(line))
    avg = ["average"]
    for n in sizes:
        a = by_size[n]
        th = pub.THESIS_BAGGING_AVERAGE[pub.SIZES.index(n)]
        avg.append(f"{np.mean(a):.1f} [{th:g}]" if a else "–")
    disp.append(tuple(avg))
    table = tb.Table(
        title="Bagging MARS: r = 100 (L_plain - L_bagged) / L_plain, ours [thesis Fig. 5.2]",
        columns=("prototask", *map(str, sizes)),
        align="l" + "r" * len(sizes),
        rows=tuple(disp),
        notes=(
            "r in percent of plain MARS' expected squared error; p: paired t-test of "
            "mars3.6-1 against mars3.6-bag-1, in percent rounded up; [thesis r].",
        ),
    )
    return _write_table(out, "tables/bagging", table, head, rows)


# ---- Barrio et al. Tables 2, 4, 6 --------------------------------------------------------


def _wins_table(
    view: StudyView,
    out: Path,
    overview,
    order,
    published,
    published_tasks: int,
    keep,
    stem: str,
    title: str,
    note: str,
) -> list[str]:
    """Significant wins per pair (row R, column C: tasks on which C beat R) of the methods
    of ``order`` the study has results of on these tasks (a method a study does not run at
    this size is left out, not shown as never winning), ours / published, with each
    method's wins and losses among them.

    The title counts the study's tasks that satisfy ``keep(ref)``, with results or not; a
    method with results on fewer of them (a study still running) gets a ``tasks`` row,
    ``5/10``, so its wins and losses do not read as complete. The CSV always has that
    row, with the published table's task count beside each method's."""
    ms = [m for m in order if m in view.methods and overview.coverage.get(m, 0) > 0]
    n_tasks = view.task_count(keep) if view.study_tasks else len(overview.tasks)
    lab = pub.BARRIO_LABEL
    head = ["row", *ms, *(f"{m}_published" for m in ms)]
    rows, disp = [], []
    for r in ms:
        pubrow = published[r]
        ours = [None if r == c else overview.wins[(r, c)] for c in ms]
        theirs = [pubrow[order.index(c)] for c in ms]
        rows.append([r, *ours, *theirs])
        disp.append(
            (
                lab[r],
                *("–" if o is None else f"{o} / {p}" for o, p in zip(ours, theirs, strict=True)),
            )
        )
    wins = {c: sum(overview.wins[(r, c)] for r in ms if r != c) for c in ms}
    losses = {r: sum(overview.wins[(r, c)] for c in ms if c != r) for r in ms}
    pw = {c: sum(published[r][order.index(c)] or 0 for r in ms) for c in ms}
    pl = {r: sum(x or 0 for i, x in enumerate(published[r]) if order[i] in ms) for r in ms}
    disp.append(("wins", *(f"{wins[c]} / {pw[c]}" for c in ms)))
    disp.append(("losses", *(f"{losses[c]} / {pl[c]}" for c in ms)))
    coverage = [overview.coverage[m] for m in ms]
    rows.append(["tasks", *coverage, *(published_tasks for _ in ms)])
    runs = [view.task_count(keep, m) if view.study_tasks else n_tasks for m in ms]
    if any(c < n for c, n in zip(coverage, runs, strict=True)):
        disp.append(("tasks", *(f"{c}/{n}" for c, n in zip(coverage, runs, strict=True))))
    table = tb.Table(
        title=title.format(tasks=n_tasks),
        columns=("row \\ column", *(lab[m] for m in ms)),
        align="l" + "r" * len(ms),
        rows=tuple(disp),
        notes=(note,),
    )
    return _write_table(out, stem, table, head, rows)


def write_wins(view: StudyView, out: Path, overview) -> list[str]:
    """Table 2: tasks on which the column method was significantly better (p < 0.05) than
    the row method: ours / Barrio et al.'s."""
    return _wins_table(
        view,
        out,
        overview,
        pub.BARRIO_ORDER,
        pub.BARRIO_TABLE2,
        pub.BARRIO_TABLE2_TASKS,
        lambda ref: True,
        "tables/barrio-table2",
        "Significant wins over {tasks} tasks: ours / Barrio et al. Table 2",
        "Cell (row R, column C): tasks on which C had a significantly lower expected "
        "squared error than R (DELVE's paired t-test, p < 0.05): ours / published "
        f"({pub.BARRIO_TABLE2_TASKS} tasks).",
    )


def at_size(reports: list[PrototaskReport], size: int) -> list[PrototaskReport]:
    """The reports restricted to the tasks with ``size`` training cases."""
    return [replace(r, tasks=tuple(t for t in r.tasks if t.ref.size == size)) for r in reports]


def write_hwang_wins(view: StudyView, out: Path, reports: list[PrototaskReport]) -> list[str]:
    """Table 3: significant wins at n = 8192 (Barrio et al.'s part 2, the Hwang tasks):
    ours / published. ``reports``: the main methods' reports of S."""
    ov = make_overview(at_size(reports, pub.HWANG_SIZE), view.methods, "S")
    if not ov.tasks:
        return []
    tests = sorted({t.design for t in ov.tasks})
    return _wins_table(
        view,
        out,
        ov,
        pub.HWANG_ORDER,
        pub.BARRIO_TABLE3,
        pub.BARRIO_TABLE3_TASKS,
        lambda ref: ref.size == pub.HWANG_SIZE,
        "tables/barrio-table3",
        f"Significant wins over {{tasks}} tasks with n = {pub.HWANG_SIZE}: ours / Barrio et "
        "al. Table 3",
        "Cell (row R, column C): tasks on which C had a significantly lower expected squared "
        f"error than R (p < 0.05; {'; '.join(DESIGN_TESTS[d] for d in tests)}): ours / "
        f"published ({pub.BARRIO_TABLE3_TASKS} tasks). A task with a single training set (16384 cases: one "
        "training and one test set of 8192) is tested by the paired t-test over its test "
        "cases, i.e. on the test-set averages as Barrio et al. did; it speaks of test-case "
        "variation only.",
    )


def _basis_table(view, out, stem, title, published, value, note) -> list[str]:
    protos = [p for p in pub.BARRIO_PROTOTASKS]
    tasks = {t.ref.dataset: t for t in view.tasks() if t.ref.size == 1024}
    ms = [m for m in pub.BARRIO_ORDER if m in view.methods and m in published]
    head = ["method", "prototask", "mean", "instances", "published"]
    rows, disp = [], []
    for m in ms:
        line = [pub.BARRIO_LABEL[m]]
        for k, p in enumerate(protos):
            t = tasks.get(p)
            vals = [v for x in (view.metas(m, t) if t else []) if (v := value(m, x)) is not None]
            if vals:
                mean = float(np.mean(vals))
                rows.append([m, p, mean, len(vals), published[m][k]])
                line.append(f"{mean:.3g} / {published[m][k]:g}")
            else:
                line.append(f"– / {published[m][k]:g}")
        disp.append(tuple(line))
    table = tb.Table(
        title=title,
        columns=("method", *protos),
        align="l" + "r" * len(protos),
        rows=tuple(disp),
        notes=(note,),
    )
    return _write_table(out, stem, table, head, rows)


def n_basis(method: str, meta: dict) -> float | None:
    """Table 4's quantity from an instance's meta.json: basis functions of the final model
    (support vectors for svm-1)."""
    return (meta.get("info") or {}).get("n_basis")


def basis_steps(method: str, meta: dict) -> float | None:
    """Table 6's quantity from an instance's meta.json: added plus removed basis functions
    (re-estimation iterations for rvm-1)."""
    info = meta.get("info") or {}
    if method == "rvm-1":
        return info.get("iterations")
    if "adds" in info and "removes" in info:
        return info["adds"] + info["removes"]
    return None


def write_basis_size(view: StudyView, out: Path) -> list[str]:
    return _basis_table(
        view,
        out,
        "tables/barrio-table4",
        "Mean number of basis functions at n = 1024: ours / Barrio et al. Table 4",
        pub.BARRIO_TABLE4,
        n_basis,
        "Mean over the 4 instances of info.n_basis in meta.json (support vectors for svm-1).",
    )


def write_basis_steps(view: StudyView, out: Path) -> list[str]:
    return _basis_table(
        view,
        out,
        "tables/barrio-table6",
        "Mean number of added plus removed basis functions at n = 1024 (RVM: re-estimation "
        "iterations): ours / Barrio et al. Table 6",
        pub.BARRIO_TABLE6,
        basis_steps,
        "Mean over the 4 instances of info.adds + info.removes (rvm-1: info.iterations).",
    )


def write_hwang_basis(view: StudyView, out: Path) -> list[str]:
    """Table 5: mean #BF of the final models and mean added plus removed BFs (RVM:
    re-estimation iterations) over the Hwang tasks with n = 8192: ours / published."""
    tasks = [t for t in view.tasks() if t.ref.size == pub.HWANG_SIZE]
    if not tasks:
        return []
    at_8192 = lambda r: r.size == pub.HWANG_SIZE  # noqa: E731
    ms = [m for m in pub.HWANG_ORDER if m in view.methods]
    skipped = [m for m in ms if view.method_tasks and not view.task_count(at_8192, m)]
    head = ["method", "quantity", "mean", "tasks", "instances", "published"]
    rows, disp = [], []
    for what, value in (("n_basis", n_basis), ("steps", basis_steps)):
        line = ["#BF" if what == "n_basis" else "#BFa/r"]
        for m in ms:
            per_task = []
            n_inst = 0
            for t in tasks:
                vals = [v for x in view.metas(m, t) if (v := value(m, x)) is not None]
                if vals:
                    per_task.append(float(np.mean(vals)))
                    n_inst += len(vals)
            theirs = pub.BARRIO_TABLE5[what].get(m)
            mean = float(np.mean(per_task)) if per_task else None
            rows.append([m, what, mean, len(per_task), n_inst, theirs])
            ours = "–" if mean is None else f"{mean:.4g}"
            n_tasks = view.task_count(at_8192, m)
            if m in skipped:
                ours += " (not run)"
            elif len(per_task) < n_tasks and (per_task or theirs is not None):
                # a quantity the method does not record (the SVM's steps) is no gap
                ours += f" ({len(per_task)}/{n_tasks} tasks)"
            line.append(ours + ("" if theirs is None else f" / {theirs:g}"))
        disp.append(tuple(line))
    table = tb.Table(
        title=f"Hwang tasks with n = {pub.HWANG_SIZE}: mean #BF and added plus removed BFs "
        "(RVM: re-estimation iterations): ours / Barrio et al. Table 5",
        columns=("", *(pub.BARRIO_LABEL[m] for m in ms)),
        align="l" + "r" * len(ms),
        rows=tuple(disp),
        notes=(
            "Mean over the tasks of info.n_basis (support vectors for svm-1) and of "
            "info.adds + info.removes (rvm-1: info.iterations) in meta.json."
            + (
                f" Not run: {', '.join(pub.BARRIO_LABEL[m] for m in skipped)}, which the "
                f"study does not run at n = {pub.HWANG_SIZE} (its skip_sizes)."
                if skipped
                else ""
            ),
        ),
    )
    return _write_table(out, "tables/barrio-table5", table, head, rows)


def display_order(names: Iterable[str]) -> list[str]:
    return method_order(names)
