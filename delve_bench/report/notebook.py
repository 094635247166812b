"""How the API's result objects show in a notebook (``_repr_html_``) and at a prompt
(``__repr__``): a plan as its job table and estimate in words ("51 min"), a run's
summary, a statistic or a comparison as one line, report files as absolute paths with
the plots inline. The text forms are those the ``delve`` command prints
(:mod:`.listing`, :mod:`.verdicts`)."""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..run.estimate import duration

if TYPE_CHECKING:
    from ..api import Plan, RunSummary
    from ..run.estimate import Estimate
    from ..stats.results import ComparisonResult, StatsResult
    from .build import ReportFiles


def html_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain HTML table (every cell escaped)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _p(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"


def estimate_text(e: Estimate) -> str:
    """``about 51 min CPU, 26 min wall on 2 workers (cpu budget mode, time scale 0.05)``."""
    scale = f", time scale {e.time_scale:g}" if e.mode == "cpu" else ""
    more = f"; {e.unknown_jobs} jobs without an estimate" if e.unknown_jobs else ""
    return (
        f"about {duration(e.cpu_seconds)} CPU, {duration(e.wall_seconds)} wall on "
        f"{e.workers} worker{'s' if e.workers != 1 else ''} ({e.mode} budget mode{scale}){more}"
    )


def estimate_html(e: Estimate) -> str:
    rows = [
        (m.method, m.jobs, duration(m.cpu_seconds), duration(m.wall_seconds), m.basis)
        for m in e.methods
    ]
    return _p("Estimate: " + estimate_text(e)) + html_table(
        ("method", "jobs", "CPU", "wall", "from"), rows
    )


def plan_html(p: Plan) -> str:
    from .listing import _by_task

    out = [f"<p><b>Plan</b>: {len(p.todo)} job{'s' if len(p.todo) != 1 else ''} to run</p>"]
    if p.todo:
        out.append(html_table(("method", "task", "instances"), _by_task(p.todo)))
    for reason, jobs in p.skipped.items():
        if jobs:
            out.append(_p(f"{len(jobs)} skipped ({reason})"))
    if p.todo:
        out.append(estimate_html(p.estimate))
    return "".join(out)


def run_summary_html(s: RunSummary) -> str:
    from .listing import format_run_summary

    return "<pre>" + html.escape(format_run_summary(s)) + "</pre>"


def stats_line(s: StatsResult) -> str:
    """``lin-1 on kin-8nm/dist/std.64, loss S: 0.6664 ± 0.0167 (standardised; 8 of 8
    instances)``."""
    st = s.standardized
    return (
        f"{s.method} on {s.task}, loss {s.loss}: {st['mean']:.4g} ± {st['se']:.2g} "
        f"(standardised, ± one SE; raw {s.mean:.4g} ± {s.se:.2g}; {s.instances} of "
        f"{s.task_instances} instances)"
    )


def comparison_html(c: ComparisonResult) -> str:
    from .verdicts import verdict

    return _p(verdict(c))


def _abs(r: ReportFiles, name: str) -> Path:
    """A file of the report as an absolute path (``name`` absolute or relative to out)."""
    return (Path(r.out) / name).resolve()


def report_files_html(r: ReportFiles) -> str:
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


def report_files_text(r: ReportFiles) -> str:
    lines = [f"ReportFiles({_abs(r, '.')}): open {_abs(r, r.index)}"]
    lines += [f"  table {_abs(r, t)}" for t in r.tables if str(t).endswith(".md")]
    lines += [f"  plot  {_abs(r, p)}" for p in r.plots]
    lines += [f"  warning: {w}" for w in r.warnings]
    return "\n".join(lines)
