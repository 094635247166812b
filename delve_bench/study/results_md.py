"""``RESULTS.md`` of a study: its budgets, the summary of standardised S by method and
task, links to every display, and the published claims beside what the committed results
show, the test behind each and its verdict (:mod:`.claims`)."""

from __future__ import annotations

from pathlib import Path

from ..analysis.overview import Overview
from ..report.tables import md_cell
from ..run.output import write_file
from .claims import CLAIMS, evaluate
from .displays import StudyView
from .spec import Study


def _summary(view: StudyView) -> tuple[list[str], bool]:
    """The table of S by task and method, and whether some cell has too few instances
    for an estimate (shown as ``(1/8)``, instances run of the task's: a study that runs
    one instance at a size, not a method that was not run)."""
    ms = view.methods
    lines = ["| task | " + " | ".join(map(md_cell, ms)) + " |", "|---|" + "---:|" * len(ms)]
    too_few = False
    for r in view.reports:
        for t in r.tasks:
            if not any(m in t.cells for m in ms):
                continue
            cells = []
            for m in ms:
                c = t.cells.get(m)
                if c is not None and c.has_value:
                    cells.append(f"{c.mean:.3g}")
                elif c is not None and c.status == "too few":
                    cells.append(f"({len(c.used)}/{c.task_instances})")
                    too_few = True
                else:
                    cells.append("–")
            lines.append(f"| {md_cell(t.ref.full_name)} | " + " | ".join(cells) + " |")
    return lines, too_few


# per-prototask tables are linked from the diagrams' reports, not listed as displays
_PER_PROTOTASK = ("kin-", "pumadyn-", "boston-", "bank-", "hwang-")

# what each figure shows, by file stem (the thesis' numbering); a table's title is its
# own first line
_FIGURE_TITLES = {
    "anytime": "Fig. 5.19: accuracy against CPU time, from the snapshots",
    "geometric-5-14": "Fig. 5.14: geometric average by number of inputs",
    "geometric-5-15": "Fig. 5.15: geometric average by linearity",
    "geometric-5-16": "Fig. 5.16: geometric average by family",
    "geometric-5-17": "Fig. 5.17: geometric average by noise",
    "scaling": "Barrio et al. Figs. 3-4: training CPU time and #BF against n, fitted exponents",
}


def _display_title(out: Path, f: str) -> str:
    """What display ``f`` (relative to ``out``) shows, for its link in RESULTS.md."""
    if f.endswith(".md"):
        first = (out / f).read_text().split("\n", 1)[0].lstrip("# ").strip()
        return first or f
    return _FIGURE_TITLES.get(Path(f).stem, f)


def write_results_md(
    study: Study, view: StudyView, ov: Overview, out: Path, files: list[str]
) -> str:
    """Write ``RESULTS.md``; returns its name."""
    lines = [f"# Study `{study.name}`", ""]
    if study.description:
        lines += [study.description, ""]
    lines += [
        "## Budgets",
        "",
        "| method | budget mode | time scale | snapshots | sizes skipped |",
        "|---|---|---:|---|---|",
    ]
    for p in study.methods:
        lines.append(
            f"| {p.name} | {p.budget_mode} | {p.describe_time_scale()} | "
            f"{', '.join(format(f, 'g') for f in p.snapshots) or '–'} | "
            f"{', '.join(map(str, p.skip_sizes)) or '–'} |"
        )
    lines += ["", "## Standardised squared error (S) by method and task", ""]
    table, too_few = _summary(view)
    lines += table
    lines += [
        "",
        "Expected loss divided by the variance of the task's test targets; ± SE, "
        "ranks and paired tests in `tables/summary-S.md` and the per-prototask tables."
        + (
            " (k/n): k of the task's n instances finished, too few for DELVE's estimate "
            "over training sets (a study may run one instance at a size for its time and "
            "model size only); –: no result."
            if too_few
            else ""
        ),
        "",
    ]
    plots = sorted(f for f in files if "plots/" in f and f.endswith(".png"))
    if plots:
        lines += ["## DELVE diagrams", ""]
        for f in plots:
            # a prototask with more losses has a report of its own (boston: S, A, L)
            sub = f.split("/plots/")[0] if "/plots/" in f else ""
            lines.append(f"* [{Path(f).stem}]({f})" + (f" (report `{sub}/`)" if sub else ""))
        lines.append("")
    shown = sorted(
        f
        for f in files
        if (f.startswith("tables/") and f.endswith(".md"))
        or (f.startswith("figures/") and f.endswith(".png"))
    )
    shown = [f for f in shown if not Path(f).stem.startswith(_PER_PROTOTASK)]
    if shown:
        lines += ["## Displays", ""]
        lines += [f"* [{_display_title(out, f)}]({f})" for f in shown]
        lines.append("")
    claims = [c for who in study.claims for c in CLAIMS[who]]
    if claims:
        planned = {p.name: len(study.method_refs(view.ws, p)) for p in study.methods}
        found = evaluate(claims, view, ov, planned)
        lines += [
            "## Published claims and what these results show",
            "",
            "Each verdict follows the rule in its test column; a provisional one may still "
            "change while the claim's methods have results to come.",
            "",
            "| claim | these results | test | verdict |",
            "|---|---|---|---|",
        ]
        for e in found:
            said, test = (
                (e.finding.shown, e.finding.test) if e.finding else ("not enough results yet", "")
            )
            lines.append(f"| {e.claim.text} | {said} | {test} | {e.verdict} |")
        lines.append("")
    write_file(out / "RESULTS.md", ("\n".join(lines) + "\n").encode())
    return "RESULTS.md"
