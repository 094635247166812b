"""The table of ``delve compare A B`` over several tasks: one row per task (the
one-line forms of :mod:`delve_bench.stats.results`), then a summary line; the full mstats
blocks are :func:`.mstats.format_comparison` (``--detail``). Every number is standardised
(as ``delve compare`` prints it beside the raw value), so rows of different tasks
compare."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..stats.results import better, marks, p_text
from .plaintext import table

if TYPE_CHECKING:
    from ..stats.results import ComparisonResult


def comparison_table(cs: Sequence[ComparisonResult]) -> str:
    """One row per task (A, B and A - B standardised, SE, p, the better method, marks),
    then a summary line counting the tasks each method wins."""
    a, b = cs[0].method_a, cs[0].method_b
    rows = [
        (
            c.task + ("" if c.loss == "S" else f" ({c.loss})"),
            str(c.instances),
            f"{c.standardized['mean_a']:.4f}",
            f"{c.standardized['mean_b']:.4f}",
            f"{c.standardized['mean']:+.4f}",
            f"{c.standardized['se']:.4f}",
            p_text(c),
            better(c) or "tie",
            marks(c),
        )
        for c in cs
    ]
    head = ("task", "inst", a, b, "A - B", "SE", "p", "better", "")
    lines = [
        f"{a} (A) - {b} (B), standardised losses; * p < 0.05, ** p < 0.01, *** p < 0.001",
        "",
        table(head, rows, "lrrrrrrll").rstrip("\n"),
        "",
        summary_line(cs),
        *counting_notes(cs),
        "(`--detail` prints each task's full mstats block)",
    ]
    return "\n".join(lines) + "\n"


def counting_notes(cs: Sequence[ComparisonResult]) -> list[str]:
    """How the summary counted a row whose nominal p does not decide (issue rule: a bounded
    or liberal result is never significant on its nominal p), only where there is one."""
    out = []
    bounded = [c.task for c in cs if c.bounded]
    if bounded:
        out.append(
            f"not counted significant: {', '.join(bounded)} (`< 0.05`: a quasi-F with fewer "
            "than 4 instances may claim no more; no report, ranking or claim counts it)"
        )
    liberal = [c.task for c in cs if c.liberal and not c.bounded and c.p is not None]
    if liberal:
        out.append(
            f"decided by the size-corrected threshold: {', '.join(liberal)} (the quasi-F is "
            "liberal there; `--detail` gives the threshold and the calibrated p)"
        )
    return out


def summary_line(cs: Sequence[ComparisonResult]) -> str:
    """``A better on 5 of 8 tasks (3 significant), B on 3 (1 significant)``."""
    a, b = cs[0].method_a, cs[0].method_b
    wins = {m: [c for c in cs if better(c) == m] for m in (a, b)}
    sig = {m: sum(c.significant for c in w) for m, w in wins.items()}
    ties = len(cs) - len(wins[a]) - len(wins[b])
    return (
        f"{a} better on {len(wins[a])} of {len(cs)} tasks ({sig[a]} significant at 0.05), "
        f"{b} on {len(wins[b])} ({sig[b]} significant)" + (f", {ties} ties" if ties else "")
    )
