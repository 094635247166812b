"""Histograms of p-values under H0 (``delve selftest``), drawn like the thesis' Figs. 2.5
and 2.6: one panel per (sigma_a, sigma_b), 100 bins on [0, 1], the uniform level dashed.
A test that keeps its promise has a flat histogram; a spike at p near 0 means false
claims of significance."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from ..stats.selftest import SelftestResult, SettingResult
from .figures import save_figure

BINS = 100


def _panel(ax, p: np.ndarray, title: str) -> None:
    ax.hist(p, bins=BINS, range=(0, 1), color="#4c72b0", linewidth=0)
    ax.axhline(len(p) / BINS, color="k", linestyle="--", linewidth=0.7)
    ax.set_xlim(0, 1)
    ax.set_title(title, fontsize=7)
    ax.tick_params(labelsize=6)


def _figure(results: list[SettingResult], test: str, title: str) -> Figure:
    sa = sorted({r.setting.sd_train for r in results})
    sb = sorted({r.setting.sd_cases for r in results})
    rows, cols = len(sa), len(sb)
    width = 2.2 * cols + 0.4
    title = textwrap.fill(title, int(width * 15))
    fig = Figure(figsize=(width, 1.8 * rows + 0.3 + 0.15 * title.count(chr(10)) + 0.4))
    axes = fig.subplots(rows, cols, squeeze=False)
    for r in results:
        s = r.setting
        ax = axes[sa.index(s.sd_train)][sb.index(s.sd_cases)]
        p = r.p_values[test]
        low = float(np.mean(p < 0.01))
        label = f"a = {s.sd_train:g}" + (f", b = {s.sd_cases:g}" if s.design == "2-way" else "")
        _panel(ax, p, f"{label}; p < 0.01: {100 * low:.1f} %")
    for ax in axes[-1]:
        ax.set_xlabel("p", fontsize=7)
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return fig


def write_null_histograms(res: SelftestResult, out: Path) -> list[Path]:
    """PNG histograms: the quasi-F per number of instances (2-way; Figs. 2.5, 2.6) and
    DELVE's t-test per number of instances (hierarchical)."""
    written: list[Path] = []
    for design, test, name in (("2-way", "quasi-F", "quasi-f"), ("hierarchical", "t", "t")):
        by_i: dict[int, list[SettingResult]] = {}
        for r in res.settings:
            if r.setting.design == design:
                by_i.setdefault(r.setting.instances, []).append(r)
        for I, rs in sorted(by_i.items()):
            s0 = rs[0].setting
            what = "Lindman's quasi-F" if test == "quasi-F" else "DELVE's t-test"
            title = (
                f"{what} p-values under H0, {design} design, {I} instances, "
                f"{s0.test_cases} test cases, sigma_e = {s0.sd_e:g} "
                f"({s0.studies} studies per panel; a = sigma_a"
                + (", b = sigma_b)" if design == "2-way" else ")")
            )
            fig_results = rs

            def draw(fig_results=fig_results, title=title, test=test) -> Figure:
                return _figure(fig_results, test, title)

            written += save_figure(draw, out / f"selftest-{name}-{I}-instances", formats=("png",))
    return written
