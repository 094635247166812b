"""``results/index.html``: one offline page linking every table and diagram.

Self-contained (inline CSS, relative links, no scripts, fonts or other network assets)
and free of dates and absolute paths, so it regenerates byte-identically. It starts with
a short legend on how to read DELVE diagrams (Rasmussen 1996 Figs. 5.3-5.13), then the
cross-prototask summary per loss, then one section per prototask and loss.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from ..analysis.collect import PrototaskReport
from ..analysis.overview import Overview
from ..losses import LOSS_NAMES
from .notes import budget_note
from .tables import Table, to_html

CSS = """
body { font-family: sans-serif; max-width: 80em; margin: 1em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.1em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.85em; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
th, td { border: 1px solid #ddd; padding: 0.15em 0.5em; }
th { background: #f2f2f2; } td.num { text-align: right; white-space: nowrap; }
tr.group td { border-top: 2px solid #888; }
p.note { font-size: 0.8em; color: #555; margin: 0.2em 0; }
.files a { margin-right: 0.8em; } .warn { color: #b00000; }
img { max-width: 100%; border: 1px solid #eee; }
""".strip()

LEGEND = [
    "Each box is one task (training-set size, printed above the box). Inside it every method "
    "has a mark in the same place and colour in every diagram: a short horizontal line at "
    "its standardised expected loss, crossed by a vertical bar of plus and minus one "
    "standard error.",
    "Standardised losses read the same on every task: squared error (S) divided by the "
    "variance of the test targets, so predicting their mean scores about 1; absolute error "
    "(A) divided by their mean absolute deviation from the median; for the negative log "
    "density (L) the loss of a Gaussian with the test targets' mean and variance is "
    "subtracted, so better methods are below 0. Classification: the zero-one loss (Z) "
    "divided by 1 - the largest class frequency, so always guessing the commonest class "
    "scores 1; the squared probability error (Q) divided by 1 - the sum of squared class "
    "frequencies, the score of predicting those frequencies; for L (negative log "
    "probability) the entropy of the class frequencies is subtracted.",
    "Under each box is the matrix of pairwise p-values: rows and columns are the methods in "
    "the order of the marks (names at the left). A digit is the p-value of the design's "
    "paired test (t-test for the hierarchical design, Lindman's quasi-F for the 2-way "
    "design, Nadeau & Bengio's corrected resampled t-test for published overlapping "
    "realisations, a t-test over test cases for one fixed split) in percent, rounded up: 1 means p ≤ 1 %, 9 means p ≤ 9 %; above 9 % the cell "
    "is left blank (a dot). The digit stands in the winner's column and the loser's row: "
    "read a row to see which methods beat that row's method, a column to see which methods "
    "that column's method beats. An italic 5 means p < 0.05, all the quasi-F may claim with "
    "fewer than 4 instances.",
    "Error bars and tests answer different questions: bars that overlap can still hide a "
    "highly significant paired difference, and separated bars can be insignificant when "
    "there are few training sets (the test accounts for the uncertainty of the variance "
    "estimates; the bars do not).",
    "Markers that are not results are drawn outside the boxes, so none can be read as a "
    "loss. ∅ under a box's axis: the method was not run on that task or gives no such loss "
    "(no predictive distribution for L). ↑ with a number above a box: the loss is off the "
    "top of the graph. A red !: the method has fewer finished instances than the task; the "
    "instances it lacks are listed under the diagram and in the tables. The first line "
    "under every diagram repeats this legend.",
    "Average ranks are built from the pairs: 1 + the share of tasks on which each other "
    "method was better, each pair over the tasks both have a value on. With every method "
    "on every task this is the usual average rank; otherwise no task is dropped, and the "
    "ranks table shows each method's coverage and the wins table what each pair shares.",
]


CD_LEGEND = [
    "Which method is best over many tasks? Two answers side by side. Top of the diagram: "
    "the Friedman test on the methods' average ranks and its post-hoc test (Demšar 2006); "
    "a bar joins methods whose average ranks do not differ significantly (with Nemenyi's "
    "test: by less than the critical difference CD, drawn to scale). It ignores how sure "
    "each task's result is. Bottom: the DELVE design's paired test on every task and pair, "
    "all p-values adjusted together (Holm's correction by default), so that dozens of "
    "tasks do not produce false wins; a bar joins methods that no task separates.",
    "Tasks of one prototask share nested training sets and one test pool, so they are "
    "not independent: by default the ranks and wins are aggregated per prototask (one "
    "Friedman block per prototask; a win on a prototask is a significant win on at least "
    "one of its tasks and no significant loss). The tables below list every pair, where "
    "the two views disagree and why, and every corrected test.",
]


@dataclass
class Section:
    """One prototask and loss: its report, table, and the files written for it."""

    report: PrototaskReport
    table: Table
    tables: list[str]  # relative paths
    plots: list[str] = field(default_factory=list)
    extra: list[Table] = field(default_factory=list)  # e.g. the error-rate table


@dataclass
class LossSummary:
    overview: Overview
    tables: list[tuple[Table, list[str]]]  # (table, relative paths of its md/csv/tex)
    rankings: list[tuple[Table, list[str]]] = field(default_factory=list)
    plots: list[str] = field(default_factory=list)  # the CD diagram (png, svg)


def href(path: str) -> str:
    """A relative file path as an attribute value: percent-encoded (a ``#``, ``?``, ``%``,
    space or ``:`` in a name stays part of the file name, never a fragment, query or
    scheme), then HTML-escaped."""
    from urllib.parse import quote

    return html.escape(quote(path, safe="/"))


def anchor(name: str) -> str:
    """A fragment identifier for ``name``, percent-encoded and HTML-escaped."""
    from urllib.parse import quote

    return html.escape(quote(name, safe=""))


def _links(paths: list[str]) -> str:
    e = html.escape
    items = "".join(f'<a href="{href(p)}">{e(p.rsplit(".", 1)[1])}</a>' for p in paths)
    return f'<p class="files">{items}</p>'


#: the most rows a table shows on the page; a longer one (the corrected test of every pair
#: on every task: thousands of rows with a dozen methods) is linked, which keeps the page
#: quick to open and the committed reports small
INLINE_ROWS = 400


def _table_block(table: Table, paths: list[str]) -> str:
    """``table`` with links to its files, or only a line and the links if it is long."""
    if len(table.rows) <= INLINE_ROWS:
        return to_html(table) + _links(paths)
    e = html.escape
    return (
        f"<p><b>{e(table.title)}</b>: {len(table.rows):,} rows, too many for this page; "
        "open the file:</p>\n" + _links(paths)
    )


def render_index(
    summaries: list[LossSummary],
    sections: list[Section],
    warnings: list[str],
    other_files: list[str],
) -> str:
    e = html.escape
    methods = summaries[0].overview.methods if summaries else ()
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><title>delve-bench results</title>',
        f"<style>\n{CSS}\n</style></head>",
        "<body>",
        "<h1>delve-bench results</h1>",
        f"<p>Methods: {e(', '.join(methods))}. Losses: "
        + e(", ".join(f"{s.overview.loss} ({LOSS_NAMES[s.overview.loss]})" for s in summaries))
        + f". Prototasks: {len({s.report.name for s in sections})}.</p>",
        f"<p>{e(budget_note(summaries[0].overview.tasks, methods))}</p>" if summaries else "",
        "<nav><ul>",
    ]
    for s in summaries:
        out.append(f'<li><a href="#summary-{s.overview.loss}">Summary, {s.overview.loss}</a></li>')
    for sec in sections:
        out.append(
            f'<li><a href="#{anchor(sec.report.stem)}">{e(sec.report.name)}, {sec.report.loss}</a></li>'
        )
    out += ["</ul></nav>", '<h2 id="how-to-read">How to read these diagrams</h2>']
    out += [f"<p>{e(p)}</p>" for p in LEGEND]
    if warnings:
        out.append('<h2 id="warnings">Warnings</h2><ul class="warn">')
        out += [f"<li>{e(w)}</li>" for w in warnings]
        out.append("</ul>")
    for s in summaries:
        out.append(
            f'<h2 id="summary-{s.overview.loss}">Summary across prototasks, '
            f"{e(LOSS_NAMES[s.overview.loss].lower())} ({s.overview.loss})</h2>"
        )
        for table, paths in s.tables:
            out.append(_table_block(table, paths))
        if s.rankings:
            out.append(
                f'<h3 id="rankings-{s.overview.loss}">Rankings across tasks: critical '
                "difference and corrected DELVE tests</h3>"
            )
            out += [f"<p>{e(p)}</p>" for p in CD_LEGEND]
            png = [p for p in s.plots if p.endswith(".png")]
            svg = [p for p in s.plots if p.endswith(".svg")]
            if png:
                out.append(
                    f'<a href="{href(svg[0] if svg else png[0])}"><img src="{href(png[0])}" '
                    f'alt="critical-difference diagram, loss {s.overview.loss}"></a>'
                )
                out.append(_links(s.plots))
            for table, paths in s.rankings:
                out.append(_table_block(table, paths))
    for sec in sections:
        r = sec.report
        out.append(
            f'<h3 id="{anchor(r.stem)}">{e(r.name)}: {e(LOSS_NAMES[r.loss].lower())} ({r.loss})</h3>'
        )
        png = [p for p in sec.plots if p.endswith(".png")]
        svg = [p for p in sec.plots if p.endswith(".svg")]
        if png:
            target = svg[0] if svg else png[0]
            out.append(
                f'<a href="{href(target)}"><img src="{href(png[0])}" '
                f'alt="DELVE diagram of {e(r.name)}, loss {r.loss}"></a>'
            )
        out.append(_links(sec.tables + sec.plots))
        out.append(to_html(sec.table))
        out += [to_html(t) for t in sec.extra]
    if other_files:
        out.append("<h2>Other files</h2>")
        out.append(
            "<p>Tables and diagrams in the output directory from other runs of "
            "<code>delve report</code> (other losses or selections):</p><ul>"
        )
        out += [f'<li><a href="{href(p)}">{e(p)}</a></li>' for p in other_files]
        out.append("</ul>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
