"""How the API's plans, run summaries and report files show in a notebook
(``_repr_html_``) and at a prompt (``__repr__``): a plan as its job table and estimate in
words ("51 min"), a run's summary, report files as absolute paths with the plots inline.
The text forms are those the ``delve`` command prints (:mod:`.listing`); statistics and
comparisons show their one-line forms (:mod:`delve_bench.stats.results`)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from .._html import html_table, paragraph
from .plaintext import _by_task, format_run_summary


def plan_html(p: Any) -> str:
    """A :class:`~delve_bench.api.Plan`: its jobs, the skipped ones, the estimate."""
    out = [f"<p><b>Plan</b>: {len(p.todo)} job{'s' if len(p.todo) != 1 else ''} to run</p>"]
    if p.todo:
        out.append(html_table(("method", "task", "instances"), _by_task(p.todo)))
    for reason, jobs in p.skipped.items():
        if jobs:
            out.append(paragraph(f"{len(jobs)} skipped ({reason})"))
    if p.todo:
        out.append(p.estimate._repr_html_())
    return "".join(out)


def run_summary_html(s: Any) -> str:
    """A :class:`~delve_bench.api.RunSummary` as ``delve run`` prints it."""
    return "<pre>" + html.escape(format_run_summary(s)) + "</pre>"


def _abs(r: Any, name: str) -> Path:
    """A file of the report as an absolute path (``name`` absolute or relative to out)."""
    return (Path(r.out) / name).resolve()


def report_files_html(r: Any) -> str:
    """The index and tables as links, each PNG plot inline."""
    index = _abs(r, r.index)
    out = [
        f"<p><b>Report</b> in {html.escape(str(_abs(r, '.')))}: "
        f'<a href="{html.escape(index.as_uri())}">{html.escape(str(index))}</a>, '
        f"{len(r.tables)} tables, {len(r.plots)} plots</p>"
    ]
    out += [f"<p>warning: {html.escape(w)}</p>" for w in r.warnings]
    for p in r.plots:
        path = _abs(r, p)
        if path.suffix == ".png" and path.is_file():
            data = base64.b64encode(path.read_bytes()).decode()
            out.append(
                f'<figure><img src="data:image/png;base64,{data}" style="max-width:100%">'
                f"<figcaption>{html.escape(str(path))}</figcaption></figure>"
            )
    return "".join(out)


def report_files_text(r: Any) -> str:
    lines = [f"ReportFiles({_abs(r, '.')}): open {_abs(r, r.index)}"]
    lines += [f"  table {_abs(r, t)}" for t in r.tables if str(t).endswith(".md")]
    lines += [f"  plot  {_abs(r, p)}" for p in r.plots]
    lines += [f"  warning: {w}" for w in r.warnings]
    return "\n".join(lines)
