"""Plain-text tables: columns as wide as their longest cell, and the lines a listing prints
under a row (``delve status``'s errors, ``delve methods``' summaries, ``delve study
status``'s first three stale reasons and failures)."""

from __future__ import annotations

from pathlib import Path

from delve_bench.report.commands import format_study_status
from delve_bench.report.plaintext import table
from delve_bench.study.run import Progress, StudyStatus


def test_table_prints_each_rows_notes_under_it_and_sizes_columns_without_them():
    out = table(("a", "bb"), [("x", "1"), ("yyy", "22")], "lr", notes=[["  long note"], []])
    assert out == "a    bb\nx     1\n  long note\nyyy  22\n"
    assert table(("a", "bb"), [("x", "1")], "lr") == "a  bb\nx   1\n"


def test_study_status_shows_three_reasons_and_counts_the_rest():
    rows = (
        Progress(
            name="lin-1",
            plan=None,  # type: ignore[arg-type]  # the listing does not read it
            done=2,
            stale=5,
            cpu_done=90.0,
            stale_reasons=[f"kin-8nm/dist/std.64 #{i}: params" for i in range(5)],
            failures=["boston/price/std.32 #0: MemoryError"],
        ),
    )
    st = StudyStatus(study="s", results=Path("results/s"), rows=rows, committed_bytes=0, cores=1)
    assert format_study_status(st).splitlines()[1:7] == [
        "lin-1      2      5       0        0     2 min       0 s",
        "    stale: kin-8nm/dist/std.64 #0: params",
        "    stale: kin-8nm/dist/std.64 #1: params",
        "    stale: kin-8nm/dist/std.64 #2: params",
        "    ... and 2 more stale",
        "    boston/price/std.32 #0: MemoryError",
    ]
