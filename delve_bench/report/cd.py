"""The critical-difference diagram (Demšar 2006, Fig. 1 style) beside the same methods
grouped by the corrected per-task DELVE tests.

Both panels share the axis of average ranks over the units (1 = best, at the left).
Each method hangs from its rank on a line to its name (the better half at the left, the
rest at the right). Thick bars join methods the panel's test cannot separate:

* top: Friedman test with Nemenyi's critical difference (the CD is drawn to scale) or
  Holm's post-hoc z-tests;
* bottom: the per-task paired tests of the DELVE design, corrected for multiplicity,
  aggregated per unit (prototask by default): two methods are joined when no task
  separates them.

Files: ``plots/cd-<loss>.{png,svg}``; deterministic like every figure of the report."""

from __future__ import annotations

import textwrap
from pathlib import Path

from matplotlib.figure import Figure

from ..analysis.rankings import Rankings
from .figures import save_figure
from .rankings import CORRECTION_SHORT

LINE = 0.32  # vertical spacing of the method names (axes units)


def _panel(ax, names: list[str], ranks: dict[str, float], k: int, bars, title: str, cd=None):
    ax.set_xlim(0.5, k + 0.5)
    ax.set_ylim(-(len(names) + 1) / 2 * LINE - 0.9, 0.75)
    ax.axis("off")
    ax.plot([1, k], [0, 0], color="k", linewidth=0.8)
    for r in range(1, k + 1):
        ax.plot([r, r], [0, 0.08], color="k", linewidth=0.8)
        ax.text(r, 0.13, str(r), ha="center", va="bottom", fontsize=7)
    half = (len(names) + 1) // 2
    for i, m in enumerate(names):
        x = ranks[m]
        left = i < half
        row = i if left else len(names) - 1 - i
        y = -0.35 - row * LINE - 0.25 * len(bars) * 0.45
        xe = 0.55 if left else k + 0.45
        ax.plot([x, x, xe], [0, y, y], color="#444444", linewidth=0.7)
        ax.text(
            xe + (-0.03 if left else 0.03),
            y,
            f"{m} ({x:.2f})" if left else f"({x:.2f}) {m}",
            ha="right" if left else "left",
            va="center",
            fontsize=7,
        )
    for j, g in enumerate(bars):
        lo, hi = min(ranks[m] for m in g), max(ranks[m] for m in g)
        y = -0.12 - j * 0.11
        ax.plot(
            [lo - 0.03, hi + 0.03], [y, y], color="#c00000", linewidth=2.2, solid_capstyle="butt"
        )
    if cd is not None:
        ax.plot([1, 1 + cd], [0.55, 0.55], color="k", linewidth=1.2)
        for x in (1, 1 + cd):
            ax.plot([x, x], [0.5, 0.6], color="k", linewidth=1.0)
        ax.text(1 + cd / 2, 0.62, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=7)
    if not bars:
        title += " (none: every pair is told apart)"
    ax.set_title(textwrap.fill(title, 100), fontsize=8, loc="left")


def draw_cd(rk: Rankings) -> Figure:
    f = rk.friedman
    assert f is not None
    names = rk.order
    ranks = dict(zip(f.methods, f.average_ranks, strict=True))
    k = len(f.methods)
    corr = CORRECTION_SHORT[rk.correction]
    n = len(names)
    height_panel = 1.2 + 0.16 * n + 0.08 * max(len(rk.cd_groups()), len(rk.delve_groups()))
    fig = Figure(figsize=(7.0, 2 * height_panel + 0.9))
    top, bottom = fig.subplots(2, 1)
    post = (
        f"Nemenyi, alpha = {f.alpha:g}"
        if f.cd is not None
        else f"{'Wilcoxon + Holm' if f.posthoc == 'wilcoxon' else 'Holm post-hoc'}, alpha = {f.alpha:g}"
    )
    _panel(
        top,
        names,
        ranks,
        k,
        rk.cd_groups(),
        f"Friedman test over {f.blocks} {rk.unit}s (p = {f.p_chi2:.2g}) with {post}: "
        "bars join methods whose average ranks do not differ significantly",
        cd=f.cd,
    )
    _panel(
        bottom,
        names,
        ranks,
        k,
        rk.delve_groups(),
        f"DELVE paired tests per task, {corr}-corrected, per {rk.unit}: bars join methods "
        "that no task separates",
    )
    unit_note = (
        "one block per prototask: its tasks share nested training sets, so they are not independent"
        if rk.unit == "prototask"
        else "one block per task (tasks of a prototask are dependent: optimistic)"
    )
    fig.text(
        0.01,
        0.005,
        textwrap.fill(f"Average rank (1 = lowest loss), {unit_note}. Loss {rk.loss}.", 120),
        fontsize=6.5,
        color="#444444",
        va="bottom",
    )
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    return fig


def write_cd_diagram(
    rk: Rankings, plots: Path, formats: tuple[str, ...] = ("svg", "png")
) -> list[Path]:
    """``plots/cd-<loss>.<format>`` for each of ``formats`` (nothing when there is no
    Friedman test)."""
    if rk.friedman is None:
        return []
    return save_figure(lambda: draw_cd(rk), plots / f"cd-{rk.loss}", formats)
