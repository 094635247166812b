"""Result tables: one per prototask and loss, and three across prototasks.

Each table is built once as a :class:`Table` of display strings (rendered to Markdown,
LaTeX and HTML) and once as plain records of full-precision numbers (the CSV, for
machines: floats are written with ``repr``, which round-trips exactly). Nothing here
depends on the clock or on paths, so the files are byte-identical when regenerated.

Display conventions: standardised loss to 4 significant digits, SEs and p to 2; in the
p columns of a prototask table the cell of row R and column C is the standardised
difference R - C on the instances both have, then the design's p (t-test for the
hierarchical design, Lindman's quasi-F for the 2-way design, the corrected resampled
t-test for published realisations); ``*`` marks p < 0.05; for Z the exact sign-flip
permutation p follows in brackets.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis.collect import MethodCell, PrototaskReport, TaskReport
from ..analysis.overview import Overview
from ..losses import LOSS_NAMES, UNDEFINED_NOTE
from ..stats.summary import DESIGN_TESTS
from .notes import budget_note, cell_budget, cell_note

if TYPE_CHECKING:
    from ..stats.results import Comparison

EMPTY = "∅"  # the method gives no such loss
NOT_RUN = "–"
PARTIAL = "!"  # fewer instances than the task
LEGEND_P = (
    "Cell (row R, column C): standardised difference R - C on the instances both have, and "
    "the p-value of the design's paired test (t-test, hierarchical design; Lindman's "
    "quasi-F, 2-way design; Nadeau & Bengio's corrected resampled t-test, published "
    "overlapping realisations); negative: R is better. * marks p < 0.05; `< 0.05` is all the "
    "quasi-F may say with fewer than 4 instances."
)

#: said under a table only where a bounded p is in it (stats.results.is_significant)
BOUNDED_NOTE = (
    "`< 0.05` (Lindman's quasi-F on fewer than 4 instances) is never counted significant: "
    "no * and no significant win, here or in the wins tables, rankings and claims (with 2 "
    "instances the bound still rejects about 8-14 % of true nulls at the 5 % level)."
)


def has_bounded(tasks) -> bool:
    """Whether any pair of ``tasks`` (:class:`TaskReport`) has a bounded p."""
    return any(p.bounded for t in tasks for p in t.pairs.values())


@dataclass(frozen=True)
class Table:
    """A titled table of display strings; ``groups`` are row indices that start a new
    group (a rule is drawn above them)."""

    title: str
    columns: tuple[str, ...]
    align: str  # 'l' or 'r' per column
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    groups: tuple[int, ...] = ()


def loss_title(loss: str) -> str:
    return f"{LOSS_NAMES[loss].lower()} ({loss}), standardised"


def _g(x: float | None, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}g}"


def _p_short(c: Comparison) -> str:
    """``p = 0.012``, ``p < 0.05`` or ``p undefined``."""
    if c.p is None or c.bounded:
        return f"p {c.p_text}"
    # rounded first to the 9 digits the CSV shows, so that the two never disagree
    return f"p = {float(f'{c.p:.9g}'):.2g}"


def _value(cell: MethodCell) -> str:
    """``0.4993 ± 0.026`` with ``!`` when instances are absent, ∅ or – when no value."""
    if cell.status == "no loss":
        return EMPTY
    if not cell.has_value:
        return NOT_RUN
    mark = f" {PARTIAL}" if cell.absent else ""
    if cell.mean is not None and math.isnan(cell.mean):
        return f"undefined{mark}"  # a constant target: the table's notes say why
    return f"{cell.mean:.4g} ± {cell.se:.2g}{mark}"


def _instances(cell: MethodCell) -> str:
    return f"{len(cell.used)}/{cell.task_instances}"


def _pair_text(t: TaskReport, row: str, col: str, loss: str) -> str:
    p = t.pair(row, col)
    if p is None or p.comparison is None:
        return ""
    d = p.comparison.standardized["mean"] * (1 if p.a == row else -1)
    star = " *" if p.significant else ""
    perm = p.comparison.permutation
    extra = f" (sign-flip p = {perm.p:.2g})" if perm and loss == "Z" else ""
    return f"{d:+.3g}, {_p_short(p.comparison)}{star}{extra}"


def prototask_table(r: PrototaskReport) -> Table:
    """Per task and method: standardised loss ± SE, instances, rank, pairwise tests."""
    rows: list[tuple[str, ...]] = []
    groups: list[int] = []
    for t in r.tasks:
        groups.append(len(rows))
        ranks = t.ranks_among()
        for m in r.methods:
            c = t.cells[m]
            rank = ranks.get(m)
            rows.append(
                (
                    t.ref.name,
                    m,
                    cell_budget(c),
                    _value(c),
                    _instances(c),
                    "" if rank is None else f"{rank:g}",
                    *(_pair_text(t, m, o, r.loss) if o != m else "" for o in r.methods),
                    cell_note(c, r.loss),
                )
            )
    t0 = r.tasks[0]
    test = DESIGN_TESTS[t0.design]
    notes: tuple[str, ...] = (
        f"{r.name}, {t0.design} design; {test}. Expected loss ± one standard error "
        f"(eq. 2.4 / 2.20 with the design's estimates), standardised by DELVE's rule for {r.loss}.",
        LEGEND_P
        + (
            " In brackets: the exact sign-flip permutation test over instances."
            if r.loss == "Z"
            else ""
        )
        + (
            " It takes the instances as independent: here their training sets overlap, so it"
            " is anti-conservative, like an uncorrected t-test; the corrected test is the one"
            " to read."
            if r.loss == "Z" and t0.design == "resampled"
            else ""
        ),
        f"{PARTIAL}: fewer instances than the task (see note); {EMPTY}: the method gives no "
        f"{r.loss} loss; {NOT_RUN}: not run.",
        "budget: the budget mode and time scale the results were made with (cpu xF: the "
        "1996 CPU budget times F; work: fixed work units; to completion: the method has no "
        "budget rule and runs until it is done).",
    )
    if has_bounded(r.tasks):
        notes += (BOUNDED_NOTE,)
    if any(c.mean is not None and math.isnan(c.mean) for t in r.tasks for c in t.cells.values()):
        notes += (f"undefined: {UNDEFINED_NOTE}.",)
    return Table(
        title=f"{r.name}: {loss_title(r.loss)}",
        columns=("task", "method", "budget", "loss ± SE", "instances", "rank")
        + tuple(f"vs {m}" for m in r.methods)
        + ("note",),
        align="lllrrr" + "r" * len(r.methods) + "l",
        rows=tuple(rows),
        notes=notes,
        groups=tuple(groups),
    )


def prototask_records(r: PrototaskReport) -> tuple[list[str], list[list]]:
    """The CSV of a prototask: one row per task and method, full precision."""
    head = [
        "task",
        "train_size",
        "design",
        "method",
        "budget_mode",
        "time_scale",
        "status",
        "instances",
        "task_instances",
        "instances_absent",
        "standardized_loss",
        "standardized_se",
        "loss",
        "se",
        "rank",
    ]
    for m in r.methods:
        head += [f"diff_vs_{m}", f"p_vs_{m}", f"perm_p_vs_{m}"]
    out = []
    for t in r.tasks:
        ranks = t.ranks_among()
        for m in r.methods:
            c = t.cells[m]
            row = [
                t.ref.full_name,
                t.ref.size,
                t.design,
                m,
                (c.budget or {}).get("mode"),
                (c.budget or {}).get("time_scale"),
                c.status,
                len(c.used),
                c.task_instances,
                " ".join(map(str, c.absent)),
                c.mean,
                c.se,
                c.summary.mean if c.summary else None,
                c.summary.se if c.summary else None,
                ranks.get(m),
            ]
            for o in r.methods:
                p = t.pair(m, o) if o != m else None
                if p is None or p.comparison is None:
                    row += [None, None, None]
                else:
                    sign = 1 if p.a == m else -1
                    perm = p.comparison.permutation
                    row += [
                        sign * p.comparison.standardized["mean"],
                        p.p_text,
                        perm.p if perm else None,
                    ]
            out.append(row)
    return head, out


def summary_table(ov: Overview) -> Table:
    """Every task (rows) by method (columns): standardised loss ± SE and [rank]."""
    rows = []
    for t in ov.tasks:
        ranks = t.ranks_among()
        cells = []
        for m in ov.methods:
            v = _value(t.cells[m])
            cells.append(f"{v} [{ranks[m]:g}]" if m in ranks else v)
        rows.append((t.ref.full_name, t.design, *cells))
    return Table(
        title=f"All tasks: {loss_title(ov.loss)}",
        columns=("task", "design", *ov.methods),
        align="ll" + "r" * len(ov.methods),
        rows=tuple(rows),
        notes=(
            "Standardised expected loss ± one standard error; [rank] among the methods "
            f"with a value on the task (1 = lowest loss). {PARTIAL}: fewer instances than "
            f"the task; {EMPTY}: no {ov.loss} loss; {NOT_RUN}: not run.",
            budget_note(ov.tasks, ov.methods),
        ),
    )


def summary_records(ov: Overview) -> tuple[list[str], list[list]]:
    head = ["task", "design"]
    for m in ov.methods:
        head += [m, f"{m}_se", f"{m}_instances", f"{m}_rank"]
    out = []
    for t in ov.tasks:
        ranks = t.ranks_among()
        row: list[Any] = [t.ref.full_name, t.design]
        for m in ov.methods:
            c = t.cells[m]
            row += [c.mean, c.se, len(c.used), ranks.get(m)]
        out.append(row)
    return head, out


def ranks_table(ov: Overview) -> Table:
    """Each method's coverage, average rank (from the pairs, over the tasks each pair
    shares) and significant wins; never empty: every method has a row."""
    n = len(ov.tasks)
    rows = []
    for m in ov.methods:
        ranked = m in ov.average_rank
        rows.append(
            (
                m,
                f"{ov.coverage[m]} of {n}",
                _g(ov.average_rank[m], 3) if ranked else EMPTY,
                f"{ov.field[m]}" if ranked else "",
                str(ov.total_wins(m)),
                str(ov.total_losses(m)),
                f"{ov.total_wins(m) - ov.total_losses(m):+d}",
            )
        )
    full = all(ov.coverage[m] == n for m in ov.ranked)
    notes = [
        "Average rank: 1 + the share of tasks on which each other method was better (ties "
        "count 1/2), each pair over the tasks both have a value on (1 = lowest standardised "
        "loss)"
        + (
            "; every ranked method has a value on every task, so this is the usual average rank."
            if full
            else "; with every method on every task it is the usual average rank. Coverage "
            "differs here: a method is ranked among the methods it shares a task with "
            "('among'); the wins table shows what each pair shares."
        ),
        "Significant wins and losses: tasks on which the design's paired test gave p < 0.05 "
        "(Barrio et al. 2009, Table 2), not corrected for the number of tests; the rankings "
        f"table (rankings-{ov.loss}) counts them after Holm's correction, per prototask.",
    ]
    if has_bounded(ov.tasks):
        notes.append(BOUNDED_NOTE)
    unranked = [m for m in ov.methods if m not in ov.average_rank]
    if unranked:
        notes.append(f"{EMPTY}: no {ov.loss} loss on any task: {', '.join(unranked)}.")
    return Table(
        title=f"Average rank and significant wins: {loss_title(ov.loss)}",
        columns=("method", "tasks", "average rank", "among", "wins", "losses", "net"),
        align="lrrrrrr",
        rows=tuple(rows),
        notes=tuple(notes),
    )


def ranks_records(ov: Overview) -> tuple[list[str], list[list]]:
    head = ["method", "tasks_ranked", "tasks", "average_rank", "among", "wins", "losses"]
    rows = [
        [
            m,
            ov.coverage[m],
            len(ov.tasks),
            ov.average_rank.get(m),
            ov.field.get(m),
            ov.total_wins(m),
            ov.total_losses(m),
        ]
        for m in ov.methods
    ]
    return head, rows


def wins_table(ov: Overview) -> Table:
    """Cell (R, C): significant wins of C over R out of the tasks the pair was compared on,
    and the share of their shared tasks on which C had the lower loss."""

    def cell(r: str, c: str) -> str:
        if r == c:
            return "–"
        n = ov.compared[(r, c)]
        if not ov.shared[(r, c)] and not n:
            return "no shared task"
        better = ov.beaten[(r, c)]
        return f"{ov.wins[(r, c)]} of {n} ({better:g}/{ov.shared[(r, c)]} lower)"

    rows = tuple((r, *(cell(r, c) for c in ov.methods)) for r in ov.methods)
    return Table(
        title=f"Significant wins per pair: {loss_title(ov.loss)}",
        columns=("row \\ column", *ov.methods),
        align="l" + "r" * len(ov.methods),
        rows=rows,
        notes=(
            "Cell (row R, column C): the number of tasks on which C was significantly better "
            "than R (p < 0.05, uncorrected) out of the tasks on which the pair was compared "
            "(Barrio et al. 2009, Table 2); in brackets, on how many of the tasks both have a "
            "value C had the lower standardised loss (ties count 1/2), the shares the average "
            f"ranks are built from. {len(ov.tasks)} tasks reported. Column sums of the first "
            "numbers are wins, row sums losses.",
        )
        + ((BOUNDED_NOTE,) if has_bounded(ov.tasks) else ()),
    )


def wins_records(ov: Overview) -> tuple[list[str], list[list]]:
    head = ["method", *ov.methods] + [
        f"{c}_{k}" for c in ov.methods for k in ("compared", "shared", "lower")
    ]
    rows = []
    for r in ov.methods:
        row: list = [r, *(None if r == c else ov.wins[(r, c)] for c in ov.methods)]
        for c in ov.methods:
            if r == c:
                row += [None, None, None]
            else:
                row += [ov.compared[(r, c)], ov.shared[(r, c)], ov.beaten[(r, c)]]
        rows.append(row)
    return head, rows


# ---- renderers ---------------------------------------------------------------------


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.ASCII)


def csv_text(s: str) -> str:
    """A text cell that a spreadsheet will not run as a formula: one starting with ``=``,
    ``@``, a tab or a carriage return, or with ``+`` or ``-`` and not a number, gets a
    leading apostrophe (the usual defence against CSV injection, OWASP)."""
    if s[:1] in ("=", "@", "\t", "\r") or (s[:1] in ("+", "-") and not _NUMBER.fullmatch(s)):
        return "'" + s if s != "-" else s
    return s


def to_csv(head: list[str], rows: list[list]) -> bytes:
    """CSV with ``repr`` floats (exact round trip), empty cells for None, ``\\n`` lines;
    text cells never start a formula (:func:`csv_text`)."""

    def cell(x) -> str:
        if x is None:
            return ""
        if isinstance(x, float):
            return repr(float(x))
        return csv_text(str(x))

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_text(str(h)) for h in head])
    w.writerows([[cell(x) for x in row] for row in rows])
    return buf.getvalue().encode()


_MD_HTML = re.compile(r"<(?=[A-Za-z/!?])")


def md_cell(s: str) -> str:
    """Text for one Markdown table cell that renders as the text itself: ``|`` and a
    backtick escaped, line breaks as spaces, an HTML tag's ``<`` and a link's ``](``
    escaped, so a method or task name can neither break the table nor add a link, an
    image or markup. (``[4]`` and ``< 0.05``, which the tables use, stay as they are.)"""
    return md_text(s).replace("`", "\\`")


def md_text(s: str) -> str:
    """A note under a table as :func:`md_cell` escapes a cell, except that its backticks
    stay: the notes' own code spans (`` `< 0.05` ``) are markup delve writes, and a name's
    backtick can at most start a code span, in which nothing is markup."""
    s = s.replace("\\", "\\\\").replace("|", "\\|")
    s = re.sub(r"[\r\n]+", " ", s)
    return _MD_HTML.sub("&lt;", s).replace("](", "\\](")


def to_markdown(t: Table) -> str:
    esc = md_cell

    sep = ["---:" if a == "r" else "---" for a in t.align]
    lines = [f"## {md_cell(t.title)}", ""]
    lines.append("| " + " | ".join(map(esc, t.columns)) + " |")
    lines.append("|" + "|".join(sep) + "|")
    lines += ["| " + " | ".join(map(esc, row)) + " |" for row in t.rows]
    lines.append("")
    # a note names tasks and methods too: escaped like a cell, or a name adds markup
    notes = [md_text(n) for n in t.notes]
    lines += [f"{n}  " for n in notes[:-1]] + notes[-1:]
    return "\n".join(lines) + "\n"


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "±": r"$\pm$",
    "∅": r"$\emptyset$",
    "–": "--",
    "<": r"$<$",
    "*": r"$^*$",
    "`": "",
}


def tex_escape(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def to_latex(t: Table) -> str:
    """A booktabs ``table`` (needs ``\\usepackage{booktabs}``)."""
    lines = [
        "% generated by `delve report`; needs \\usepackage{booktabs}",
        "\\begin{table}[htbp]",
        "\\centering",
        f"\\caption{{{tex_escape(t.title)}}}",
        "\\begin{tabular}{" + t.align + "}",
        "\\toprule",
        " & ".join(map(tex_escape, t.columns)) + " \\\\",
        "\\midrule",
    ]
    for i, row in enumerate(t.rows):
        if i in t.groups and i > 0:
            lines.append("\\midrule")
        lines.append(" & ".join(map(tex_escape, row)) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    if t.notes:
        lines.append("\\par\\smallskip\\footnotesize " + tex_escape(" ".join(t.notes)))
    lines.append("\\end{table}")
    return "\n".join(lines) + "\n"


def to_html(t: Table) -> str:
    """An HTML ``<table>`` with a caption and the notes below it."""
    e = html.escape
    cls = ["num" if a == "r" else "" for a in t.align]
    out = [f"<table>\n<caption>{e(t.title)}</caption>"]
    out.append("<tr>" + "".join(f"<th>{e(c)}</th>" for c in t.columns) + "</tr>")
    for i, row in enumerate(t.rows):
        attr = ' class="group"' if i in t.groups and i > 0 else ""
        cells = "".join(
            f'<td class="{k}">{e(v)}</td>' if k else f"<td>{e(v)}</td>"
            for k, v in zip(cls, row, strict=True)
        )
        out.append(f"<tr{attr}>{cells}</tr>")
    out.append("</table>")
    out += [f'<p class="note">{e(n)}</p>' for n in t.notes]
    return "\n".join(out) + "\n"
