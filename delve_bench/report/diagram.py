"""The DELVE diagram of one prototask and loss (Rasmussen 1996 Figs. 5.3-5.13).

* One box per task (training-set size, printed above it). Inside, one mark per method
  in display order and a fixed colour: a short horizontal line at the standardised
  expected loss crossed by a vertical bar of ± one standard error (each method's own SE,
  eq. 2.4 / 2.20). Markers that are not results sit outside the data area, so none can be
  read as a loss: ``∅`` under the box's axis (not run, or the method gives no such loss),
  ``↑`` with the value above the box (off the top of the graph); a red ``!`` marks fewer
  instances than the task (above the bar, or beside the ``∅``/``↑``; listed below). The
  first line under the diagram is the legend of the markers.
* The y axis is log-scaled when all losses are positive and span a decade or more, as
  in the thesis figures; otherwise linear.
* Under each box, the matrix of pairwise p-values of the design's test (paired t-test or
  Lindman's quasi-F): p in percent rounded up to one digit (1 = p <= 1 %, 9 = p <= 9 %),
  blank above 9 %, written in the winner's column and the loser's row; dots fill the
  other off-diagonal cells (our reading of the thesis' figures). A p the design only
  reports as ``p < 0.05`` (quasi-F, fewer than 4 instances) is an italic 5.

Rendering is deterministic: fixed font (DejaVu Sans, shipped with matplotlib), glyphs as
paths, a fixed SVG hash salt and no dates in the metadata, so regenerated SVGs are
byte-identical. Text artists carry ids (``p-<size>-<row>-<col>``, ``empty-<size>-<method>``,
``partial-<size>-<method>``) so tests can read the matrix back from the SVG.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

from ..analysis.collect import THESIS_ORDER, PrototaskReport, TaskReport
from ..losses import LOSS_NAMES
from ..stats.summary import DESIGN_TESTS
from .figures import save_figure
from .notes import budget_note, cell_note

THESIS_COLOURS = dict(
    zip(
        THESIS_ORDER,
        ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"),
        strict=True,
    )
)
OTHER_COLOURS = ("#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39")
WARN = "#c00000"


def colours(methods: tuple[str, ...]) -> dict[str, str]:
    """Thesis methods keep their colour in every diagram; others take the next free one."""
    others = [m for m in methods if m not in THESIS_COLOURS]
    out = {m: THESIS_COLOURS[m] for m in methods if m in THESIS_COLOURS}
    out.update({m: OTHER_COLOURS[i % len(OTHER_COLOURS)] for i, m in enumerate(others)})
    return out


def _is_log(means: list[float]) -> bool:
    return min(means) > 0 and max(means) / min(means) >= 10.0


def y_axis(points: list[tuple[float, float]]) -> tuple[str, float, float, float]:
    """Scale, lower and upper limit, and the clip level (losses above it get an arrow).

    ``points`` are (loss, SE). Log scale when every loss is positive and they span at
    least a decade. A loss is off the top when, in the axis' units, it lies more than
    three times the span of the bars of the (at least 3) remaining marks above them; at
    most half the marks are. The scale is then chosen again for the marks that remain."""
    if not points:
        return "linear", 0.0, 1.0, math.inf

    def axis_fns(log: bool):
        if log:
            return math.log10, (lambda v: 10.0**v)
        return (lambda v: v), (lambda v: v)

    def bar_range(pts, log, f):
        tops = [f(m + s) for m, s in pts]
        lows = [f(m - s) if not log or m - s > 0 else f(m) - 0.05 for m, s in pts]
        return min(lows), max(tops)

    log = _is_log([m for m, _ in points])
    f, _ = axis_fns(log)
    order = sorted(points, key=lambda p: p[0], reverse=True)
    kept, clip = order, math.inf
    for k in range(len(order) // 2):
        rest = order[k + 1 :]
        bottom, top = bar_range(rest, log, f)
        if len(rest) >= 3 and top > bottom and f(order[k][0]) - top > 3 * (top - bottom):
            kept, clip = rest, order[k][0]
        else:
            break
    if clip < math.inf:
        log = _is_log([m for m, _ in kept])
    f, finv = axis_fns(log)
    bottom, top = bar_range(kept, log, f)
    span = top - bottom or (abs(top) * 0.1 or 1.0)
    hi, lo = top + 0.1 * span, bottom - 0.08 * span
    if clip < math.inf:
        clip = finv(hi)
    return ("log" if log else "linear"), finv(lo), finv(hi), clip


def _footnotes(r: PrototaskReport, width_in: float) -> list[tuple[str, bool]]:
    """Wrapped legend lines, each with whether it belongs to the partial-results warning."""
    test = DESIGN_TESTS[r.design]
    lines = [
        f"Marks: standardised expected loss ± 1 SE. Under the axis, ∅: not run, or no {r.loss} "
        "loss (no result). Above the box, ↑ and the value: off the top. Red !: fewer "
        f"instances than the task. Matrices: {test} p-values in percent, rounded up, in the "
        "winner's column and the loser's row; blank above 9 %; italic 5: p < 0.05 is all the "
        "quasi-F may say with fewer than 4 instances.",
        budget_note(r.tasks, r.methods),
    ]
    partial = [
        f"{c.method} at {t.ref.size}: {len(c.used)} of {c.task_instances} instances "
        f"({cell_note(c, r.loss)})"
        for t, c in r.partial_cells()
    ]
    if partial:
        lines.append("! fewer instances than the task: " + "; ".join(partial) + ".")
    chars = max(60, int(width_in * 72 / 3.9))
    return [(w, k == 2) for k, line in enumerate(lines) for w in textwrap.wrap(line, chars)]


#: where a marker outside the data area stands: (y in axes coordinates, vertical alignment)
_OUTSIDE = {"under": (-0.025, "top"), "over": (1.01, "bottom")}


def _draw_box(ax, t: TaskReport, methods, col, scale, lo, hi, clip, loss) -> None:
    below = blended_transform_factory(ax.transData, ax.transAxes)
    for i, m in enumerate(methods):
        c = t.cells[m]
        mean, se = c.mean, c.se
        outside = None  # where a marker outside the data area went: 'under' or 'over'
        if mean is None or se is None or mean > clip:
            # under the axis, ∅: no result; above the box, ↑ and the value: off the top
            if mean is None or se is None:
                outside, text, size, tag = "under", "∅", 11.0, "empty"
            else:
                outside, text, size, tag = "over", f"↑{mean:.3g}", 6.5, "off"
            y, va = _OUTSIDE[outside]
            ax.text(
                i,
                y,
                text,
                transform=below,
                ha="center",
                va=va,
                fontsize=size,
                color=col[m],
                clip_on=False,
                gid=f"{tag}-{t.ref.size}-{m}",
            )
            bar_top = None
        else:
            down = mean - se if scale == "linear" or mean - se > 0 else lo
            ax.vlines(i, down, mean + se, color=col[m], lw=1.2)
            ax.hlines(mean, i - 0.3, i + 0.3, color=col[m], lw=2.2)
            bar_top = mean + se
        if c.absent and c.status not in ("not run", "no loss"):
            kw = dict(ha="center", va="bottom", color=WARN, fontweight="bold", fontsize=9)
            gid = f"partial-{t.ref.size}-{m}"
            if bar_top is not None and bar_top < hi:
                ax.annotate(
                    "!", (i, bar_top), xytext=(0, 1.5), textcoords="offset points", gid=gid, **kw
                )
            else:  # beside the marker outside the data area
                y, va = _OUTSIDE[outside or "over"]
                kw["va"] = va
                ax.text(i + 0.36, y, "!", transform=below, clip_on=False, gid=gid, **kw)
    ax.set_xlim(-0.6, len(methods) - 0.4)
    ax.set_xticks(range(len(methods)))
    ax.tick_params(axis="x", labelbottom=False, length=2)
    ax.set_title(str(t.ref.size), fontsize=9, pad=12)  # room for the ↑ markers
    ax.yaxis.grid(True, color="#e6e6e6", lw=0.6)
    ax.set_axisbelow(True)


def _draw_matrix(mx, t: TaskReport, methods, col, labels: bool) -> None:
    M = len(methods)
    mx.set_xlim(-0.6, M - 0.4)
    mx.set_ylim(M - 0.5, -0.5)
    mx.axis("off")
    dots = []
    for ri, r in enumerate(methods):
        if labels:
            mx.text(-0.75, ri, r, ha="right", va="center", color=col[r], fontsize=8)
        for ci, c in enumerate(methods):
            if ri == ci:
                continue
            p = t.pair(r, c)
            if p is not None and p.digit is not None and p.winner == c:
                mx.text(
                    ci,
                    ri,
                    str(p.digit),
                    ha="center",
                    va="center",
                    fontsize=8,
                    style="italic" if p.bounded else "normal",
                    gid=f"p-{t.ref.size}-{ri}-{ci}",
                )
            else:
                dots.append((ci, ri))
    if dots:
        x, y = zip(*dots, strict=True)
        mx.scatter(x, y, s=1.5, color="#808080", linewidths=0)


def draw(r: PrototaskReport) -> Figure:
    """The diagram of one prototask report as a matplotlib Figure (no pyplot state)."""
    methods, K = r.methods, len(r.tasks)
    M = len(methods)
    col = colours(methods)
    left = max(1.0, 0.3 + 0.062 * max(len(m) for m in methods))
    box_w, gap, right = max(1.1, 0.42 * M + 0.35), 0.2, 0.25
    title = f"{r.name}: {LOSS_NAMES[r.loss]} ({r.loss}), {r.design} design"
    box_w = max(box_w, (0.3 + 0.085 * len(title) - left - (K - 1) * gap - right) / K)
    width = left + K * box_w + (K - 1) * gap + right
    notes = _footnotes(r, width)
    # mid: the strip under the boxes' axes that holds the ∅ markers
    top, plot_h, mid, mat_h = 0.7, 3.0, 0.36, 0.2 * M + 0.05
    foot = 0.14 * len(notes) + 0.2
    height = top + plot_h + mid + mat_h + foot
    points = [
        (c.mean, c.se)
        for t in r.tasks
        for c in t.cells.values()
        if c.mean is not None and c.se is not None
    ]
    scale, lo, hi, clip = y_axis(points)

    fig = Figure(figsize=(width, height))
    fig.text(
        0.12 / width, 1 - 0.12 / height, title, ha="left", va="top", fontsize=10, fontweight="bold"
    )
    first = None
    for k, t in enumerate(r.tasks):
        x0 = left + k * (box_w + gap)
        y_plot = foot + mat_h + mid
        ax = fig.add_axes(
            (x0 / width, y_plot / height, box_w / width, plot_h / height), sharey=first
        )
        if first is None:
            first = ax
            ax.set_yscale(scale)
            ax.set_ylim(lo, hi)
            ax.set_ylabel(f"standardised {r.loss} loss")
        else:
            ax.tick_params(axis="y", labelleft=False)
        _draw_box(ax, t, methods, col, scale, lo, hi, clip, r.loss)
        mx = fig.add_axes((x0 / width, foot / height, box_w / width, mat_h / height))
        _draw_matrix(mx, t, methods, col, labels=k == 0)
    for i, (line, warn) in enumerate(notes):
        fig.text(
            0.12 / width,
            (foot - 0.12 - 0.14 * i) / height,
            line,
            ha="left",
            va="top",
            fontsize=6.5,
            color=WARN if warn else "#333333",
        )
    return fig


def write_diagram(
    r: PrototaskReport, plots: Path, formats: tuple[str, ...] = ("svg", "png")
) -> list[Path]:
    """Write ``<stem>.svg`` and ``<stem>.png`` of the diagram (or the given ``formats``);
    returns the paths."""
    return save_figure(lambda: draw(r), plots / r.stem, formats)
