"""``delve report``: write every table, optionally every diagram, and the HTML index.

Output (under ``out``, default the workspace's ``results/``; README "Reports"):

* ``tables/<dataset>-<prototask>-<loss>.{md,csv,tex}``: per task and method;
* ``tables/<dataset>-<prototask>-error.{md,csv,tex}``: for classification prototasks, the
  error rate (%) and model size, mean ± SD over instances (Hong, Chen et al. 2014's
  Tables 2-10), made with the Z report;
* ``tables/{summary,ranks,wins}-<loss>.{md,csv,tex}``: across the reported prototasks;
* ``tables/{rankings,disagree,pairs,tests}-<loss>.{md,csv,tex}``: rankings with
  multiplicity-corrected per-task tests, against the Friedman/critical-difference view;
* ``plots/cd-<loss>.{png,svg}`` with ``plot``: the critical-difference diagram beside the
  grouping by the corrected DELVE tests;
* ``plots/<dataset>-<prototask>-<loss>.{png,svg}`` with ``plot``: the DELVE diagrams;
* ``index.html`` linking them all.

Every file is a deterministic function of the result files (no dates, no absolute
paths), so a rerun gives byte-identical tables, SVGs and index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..analysis.collect import PrototaskReport, collect, result_tasks, select_methods
from ..analysis.overview import overview
from ..analysis.rankings import rankings
from ..errors import DelveError
from ..run.output import write_file
from ..tasks.names import TaskRef, resolve_tasks
from ..workspace import WorkspaceDirs
from . import tables as tb
from .classification import error_records, error_table
from .html import LossSummary, Section, render_index
from .notes import cell_note
from .rankings import (
    disagree_records,
    disagree_table,
    family_records,
    family_table,
    pairs_records,
    pairs_table,
    rankings_records,
    rankings_table,
)

#: (method, task) -> the instances a caller meant the method to run there (None: all)
Planned = Callable[[str, TaskRef], "set[int] | None"]


@dataclass
class ReportFiles:
    """What ``write_report`` wrote (paths relative to ``out``; the API's
    :func:`~delve_bench.api.make_report` makes them absolute) and what it warns about."""

    out: Path
    tables: list[str] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)
    index: str = "index.html"
    warnings: list[str] = field(default_factory=list)
    reports: dict[str, list[PrototaskReport]] = field(default_factory=dict)

    def absolute(self) -> ReportFiles:
        """The same files with absolute paths (what the API returns)."""
        out = Path(self.out).resolve()
        return replace(
            self,
            out=out,
            tables=[str(out / t) for t in self.tables],
            plots=[str(out / p) for p in self.plots],
            index=str(out / self.index),
        )

    def __repr__(self) -> str:
        from .notebook import report_files_text

        return report_files_text(self)

    def _repr_html_(self) -> str:
        from .notebook import report_files_html

        return report_files_html(self)


def _write_table(out: Path, stem: str, table: tb.Table, records) -> list[str]:
    files = {
        f"tables/{stem}.md": tb.to_markdown(table).encode(),
        f"tables/{stem}.csv": tb.to_csv(*records),
        f"tables/{stem}.tex": tb.to_latex(table).encode(),
    }
    for rel, data in files.items():
        write_file(out / rel, data)
    return list(files)


def _partial_warnings(r: PrototaskReport, planned: Planned | None = None) -> list[str]:
    """A warning per cell that uses fewer instances than its task has, except a cell that
    uses exactly the instances ``planned(method, ref)`` says the caller meant to run (a
    study that runs instance 0 only at some sizes: its table notes say so; a warning per
    such cell would bury the ones that matter)."""
    return [
        f"{t.ref.full_name}: {c.method} has {len(c.used)} of {c.task_instances} instances "
        f"({cell_note(c, r.loss)})"
        for t, c in r.partial_cells()
        if planned is None or planned(c.method, t.ref) != set(c.used)
    ]


def write_report(
    ws: WorkspaceDirs,
    names: list[str] | None = None,
    methods: list[str] | None = None,
    losses: tuple[str, ...] | None = None,
    out: Path | None = None,
    plot: bool = False,
    plot_formats: tuple[str, ...] = ("svg", "png"),
    correction: str = "holm",
    posthoc: str = "nemenyi",
    unit: str = "prototask",
    planned: Planned | None = None,
) -> ReportFiles:
    """Write the report of ``methods`` (default: all with results) on the prototasks or
    tasks ``names`` (default: every task with results) for each loss; a loss is reported
    on the tasks that have it. ``losses`` None: S (regression tasks) and Z
    (classification tasks).

    ``correction`` (holm | bh), ``posthoc`` (nemenyi | holm) and ``unit`` (prototask |
    task) set the rankings across tasks (:mod:`delve_bench.analysis.rankings`).
    ``planned(method, ref)``: the instances the caller meant ``method`` to run on ``ref``
    (None: all); a cell that has exactly those is not warned about."""
    default = losses is None
    losses = ("S", "Z") if losses is None else losses
    methods = select_methods(ws, methods)
    refs = resolve_tasks(ws, names) if names else None
    out = Path(out) if out is not None else ws.results
    res = ReportFiles(out)
    if refs is not None:
        have = set(result_tasks(ws, methods))
        res.warnings += [
            f"{r.full_name}: no results of {', '.join(methods)}" for r in refs if r not in have
        ]
    summaries, sections = [], []
    for loss in dict.fromkeys(losses):
        reports = collect(ws, refs, methods, loss, res.warnings)
        if not reports:
            continue
        res.reports[loss] = reports
        for r in reports:
            table = tb.prototask_table(r)
            written = _write_table(out, r.stem, table, tb.prototask_records(r))
            extra = []
            if loss == "Z":  # classification: Hong & Chen's error-rate table beside it
                extra.append(error_table(r))
                stem = f"{r.dataset}-{r.prototask}-error"
                written += _write_table(out, stem, extra[0], error_records(r))
            drawn = []
            if plot:
                from .diagram import write_diagram

                drawn = [
                    str(p.relative_to(out)) for p in write_diagram(r, out / "plots", plot_formats)
                ]
            res.tables += written
            res.plots += drawn
            sections.append(
                Section(report=r, table=table, tables=written, plots=drawn, extra=extra)
            )
            res.warnings += _partial_warnings(r, planned)
        ov = overview(reports, methods, loss)
        parts = []
        for kind, table, records in (
            ("ranks", tb.ranks_table(ov), tb.ranks_records(ov)),
            ("wins", tb.wins_table(ov), tb.wins_records(ov)),
            ("summary", tb.summary_table(ov), tb.summary_records(ov)),
        ):
            written = _write_table(out, f"{kind}-{loss}", table, records)
            res.tables += written
            parts.append((table, written))
        rk = rankings(reports, methods, loss, unit, correction, posthoc)
        ranking_parts = []
        for kind, table, records in (
            ("rankings", rankings_table(rk), rankings_records(rk)),
            ("disagree", disagree_table(rk), disagree_records(rk)),
            ("pairs", pairs_table(rk), pairs_records(rk)),
            ("tests", family_table(rk), family_records(rk)),
        ):
            written = _write_table(out, f"{kind}-{loss}", table, records)
            res.tables += written
            ranking_parts.append((table, written))
        cd_plots: list[str] = []
        if plot:
            from .cd import write_cd_diagram

            cd_plots = [
                str(p.relative_to(out)) for p in write_cd_diagram(rk, out / "plots", plot_formats)
            ]
            res.plots += cd_plots
        summaries.append(
            LossSummary(overview=ov, tables=parts, rankings=ranking_parts, plots=cd_plots)
        )
    if not res.reports:
        asked = "" if default else f" with loss {', '.join(losses)}"
        raise DelveError(
            f"no results of {', '.join(methods)} on "
            f"{' '.join(names) if names else 'any task'}{asked}; nothing to report"
        )
    mine = set(res.tables) | set(res.plots)
    others = sorted(
        str(p.relative_to(out))
        for sub in ("tables", "plots")
        for p in (out / sub).glob("*")
        if p.is_file() and not p.name.startswith(".") and str(p.relative_to(out)) not in mine
    )
    page = render_index(summaries, sections, res.warnings, others)
    write_file(out / res.index, page.encode())
    return res
