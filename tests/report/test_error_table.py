"""The error-rate table of Hong, Chen et al. (2014), Tables 2-10, from hand-made Z loss
matrices: mean ± SD (N-1) over instances of 100 x the mean zero-one loss and of the
model size, with the marks for partial and missing cells."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.analysis.collect import MethodCell, PrototaskReport, TaskReport
from delve_bench.report.classification import error_records, error_table
from delve_bench.report.tables import NOT_RUN
from delve_bench.tasks.names import TaskRef

# 3 instances x 4 test cases: error rates 25 %, 50 %, 0 % (mean 25, SD 25)
Z_A = np.array([[0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]], dtype=float)
# 2 of the 3 instances: 100 %, 0 % (mean 50, SD 50 sqrt 2 = 70.71)
Z_B = np.array([[1, 1, 1, 1], [0, 0, 0, 0]], dtype=float)


def _report(loss: str = "Z") -> PrototaskReport:
    cells = {
        "a": MethodCell(
            method="a", status="ok", task_instances=3, used=(0, 1, 2), y=Z_A, sizes=(4, 5, 6)
        ),
        "b": MethodCell(
            method="b",
            status="partial",
            task_instances=3,
            used=(0, 1),
            missing=(2,),
            y=Z_B,
            sizes=(7, None),  # one instance records no size: no size for the method
        ),
        "c": MethodCell(method="c", status="not run", task_instances=3, missing=(0, 1, 2)),
    }
    task = TaskReport(
        ref=TaskRef("banana", "ida", 400),
        design="resampled",
        task_instances=3,
        test_size=4,
        cells=cells,
        pairs={},
    )
    return PrototaskReport(
        dataset="banana", prototask="ida", loss=loss, methods=("a", "b", "c"), tasks=(task,)
    )


def test_error_table_mean_and_sd_over_instances():
    t = error_table(_report())
    assert t.columns == ("method", "std.400 error (%)", "std.400 size")
    assert t.rows[0] == ("a", "25.0 ± 25.0", "5.0 ± 1.0")
    assert t.rows[1] == ("b", "50.0 ± 70.7 !", "n/a")
    assert t.rows[2] == ("c", NOT_RUN, "")
    assert "resampled design" in t.notes[0] and "std.400: 3" in t.notes[0]


def test_one_instance_has_no_spread():
    cell = MethodCell(method="a", status="ok", task_instances=1, used=(0,), y=Z_A[1:2], sizes=(4,))
    task = TaskReport(
        ref=TaskRef("ripley", "orig", 250),
        design="fixed",
        task_instances=1,
        test_size=4,
        cells={"a": cell},
        pairs={},
    )
    r = PrototaskReport(dataset="ripley", prototask="orig", loss="Z", methods=("a",), tasks=(task,))
    assert error_table(r).rows == (("a", "50.0", "4.0"),)


def test_error_records_full_precision():
    head, rows = error_records(_report())
    assert head[:4] == ["task", "method", "instances", "error_rate_mean"]
    a, b, c = rows
    assert a == ["banana/ida/std.400", "a", 3, 25.0, 25.0, 5.0, 1.0]
    assert b[:4] == ["banana/ida/std.400", "b", 2, 50.0]
    assert b[4] == pytest.approx(50 * np.sqrt(2), rel=1e-15) and b[5:] == [None, None]
    assert c[2:] == [0, None, None, None, None]


def test_error_table_needs_the_z_report():
    with pytest.raises(ValueError, match="Z report"):
        error_table(_report("Q"))
