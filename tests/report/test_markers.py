"""Displays that cannot be misread: the DELVE diagram draws its markers outside the data
area (∅ under the axis, ↑ above the box), and the ranks table is computed over what each
pair shares, so it is never empty and equals the usual average rank on complete data."""

from __future__ import annotations

import numpy as np
import pytest
from support import summary

from delve_bench.analysis.collect import MethodCell, PairCell, PrototaskReport, TaskReport
from delve_bench.analysis.overview import overview
from delve_bench.report.tables import ranks_table, wins_table
from delve_bench.tasks.names import TaskRef


def _cell(method: str, mean: float | None, n: int = 8, used: int = 8) -> MethodCell:
    if mean is None:
        return MethodCell(method, "not run", n, missing=tuple(range(n)))
    absent = tuple(range(used, n))
    status = "ok" if used == n else "partial"
    return MethodCell(
        method, status, n, used=tuple(range(used)), missing=absent, summary=summary(mean)
    )


def _report(values: dict[int, dict[str, float | None]], partial=()) -> PrototaskReport:
    methods = tuple(next(iter(values.values())))
    tasks = []
    for size, row in values.items():
        cells = {m: _cell(m, v, used=5 if (size, m) in partial else 8) for m, v in row.items()}
        pairs = {
            (a, b): PairCell(a, b, (), None)
            for i, a in enumerate(methods)
            for b in methods[i + 1 :]
        }
        tasks.append(
            TaskReport(TaskRef("demo", "dist", size), "hierarchical", 8, 512, cells, pairs)
        )
    return PrototaskReport("demo", "dist", "S", methods, tuple(tasks))


def _extents(fig):
    """(gid -> text bbox, per box: (axes bbox, matrix bbox)) in display units."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    texts = {
        t.get_gid(): t.get_window_extent(r) for ax in fig.axes for t in ax.texts if t.get_gid()
    }
    boxes = fig.axes[0::2], fig.axes[1::2]
    return texts, [
        (a.get_window_extent(r), m.get_window_extent(r)) for a, m in zip(*boxes, strict=True)
    ]


def test_not_run_and_off_the_top_markers_sit_outside_the_data_area():
    r = _report(
        {
            64: {"a": 0.5, "b": 0.52, "c": 0.48, "d": 50.0, "e": None},
            128: {"a": 0.45, "b": None, "c": 0.44, "d": 0.46, "e": 0.47},
        },
        partial=[(128, "e"), (64, "d")],
    )
    # matplotlib is imported here, not at collection, where every pytest-xdist worker
    # would pay for it (about 1 CPU s) though one runs this test
    import matplotlib

    from delve_bench.report.diagram import draw
    from delve_bench.report.figures import RC

    with matplotlib.rc_context(RC):
        fig = draw(r)
        texts, boxes = _extents(fig)
    (ax64, mx64), (ax128, mx128) = boxes
    for gid, (ax, mx) in (("empty-64-e", (ax64, mx64)), ("empty-128-b", (ax128, mx128))):
        t = texts[gid]
        assert t.y1 <= ax.y0 + 0.5, gid  # under the axis, not at a loss value
        assert t.y0 >= mx.y1 - 0.5, gid  # and clear of the p-value matrix
    assert texts["off-64-d"].y0 >= ax64.y1 - 0.5  # above the box
    # the partial-results ! beside a marker outside is outside too; above a bar inside
    assert texts["partial-64-d"].y0 >= ax64.y1 - 0.5
    assert ax128.y0 < texts["partial-128-e"].y0 < ax128.y1
    legend = [t.get_text() for t in fig.texts]
    assert any("Under the axis, ∅: not run" in x and "Above the box, ↑" in x for x in legend)


def test_average_rank_uses_what_each_pair_shares_and_is_never_empty():
    # complete data: the pairwise construction is the usual average rank
    rng = np.random.default_rng(3)
    full = {
        n: dict(zip("abcd", map(float, rng.permutation(4) + 0.1), strict=True))
        for n in (64, 128, 256)
    }
    ov = overview([_report(full)], list("abcd"), "S")
    usual = np.mean(
        [[sorted(row.values()).index(row[m]) + 1 for m in "abcd"] for row in full.values()], 0
    )
    assert [ov.average_rank[m] for m in "abcd"] == pytest.approx(list(usual))
    assert "the usual average rank" in ranks_table(ov).notes[0]
    # no method covers every task: the old table ranked over "0 of 3 tasks"
    patchy = {
        64: {"a": 0.5, "b": 0.6, "c": None},
        128: {"a": 0.5, "b": None, "c": 0.4},
        256: {"a": None, "b": 0.6, "c": 0.4},
    }
    ov = overview([_report(patchy)], list("abc"), "S")
    # a beats b on their one shared task, c beats a and b on theirs
    assert ov.average_rank == {"a": 2.0, "b": 3.0, "c": 1.0}
    assert ov.field == {"a": 3, "b": 3, "c": 3} and ov.shared[("a", "b")] == 1
    rows = {row[0]: row for row in ranks_table(ov).rows}
    assert rows["a"][1:4] == ("2 of 3", "2", "3") and rows["c"][2] == "1"
    assert "Coverage differs here" in ranks_table(ov).notes[0]
    cells = {row[0]: row for row in wins_table(ov).rows}
    assert cells["a"][3] == "0 of 0 (1/1 lower)"  # c lower than a on their shared task
