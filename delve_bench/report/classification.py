"""The classification table of Hong, Chen et al. (2014), Tables 2-10: per method the test
error rate (%) as mean ± SD over the instances, and the model size likewise.

Error rate of an instance = 100 x its mean zero-one loss Z (ties counted as
:mod:`delve_bench.losses` says). The SD is the sample SD (N-1) over instances, the
spread the published tables show, not a standard error: for the SE of the expected
loss and the paired tests see the DELVE table of the Z loss beside it. Model size: what
each instance records in meta.json as ``model_size`` (RBF centres, relevance or support
vectors), "n/a" when the method records none (as the published tables do for SVMs).
"""

from __future__ import annotations

import numpy as np

from ..analysis.collect import MethodCell, PrototaskReport
from .tables import NOT_RUN, Table


def instance_error_rates(cell: MethodCell) -> np.ndarray | None:
    """Error rate (%) of each used instance, from the cell's Z loss matrix."""
    return None if cell.y is None else 100.0 * cell.y.mean(axis=1)


def _sd(v: np.ndarray) -> float:
    return float(np.std(v, ddof=1)) if len(v) > 1 else 0.0


def _mean_sd(v: np.ndarray, digits: int) -> str:
    """``mean ± SD``; the value alone for one instance (a fixed split has no spread)."""
    if len(v) == 1:
        return f"{v[0]:.{digits}f}"
    return f"{np.mean(v):.{digits}f} ± {_sd(v):.{digits}f}"


def _sizes(cell: MethodCell) -> np.ndarray | None:
    got = [s for s in cell.sizes if s is not None]
    return np.array(got) if got and len(got) == len(cell.sizes) else None


def error_table(r: PrototaskReport) -> Table:
    """Rows: methods; per task two columns, error (%) and model size, mean ± SD."""
    if r.loss != "Z":
        raise ValueError("the error-rate table is built from the Z report")
    columns: tuple[str, ...] = ("method",)
    for t in r.tasks:
        columns += (f"{t.ref.name} error (%)", f"{t.ref.name} size")
    rows = []
    for m in r.methods:
        row = [m]
        for t in r.tasks:
            c = t.cells[m]
            err = instance_error_rates(c)
            size = _sizes(c)
            if err is None:
                row += [NOT_RUN, ""]
                continue
            mark = " !" if c.absent else ""
            row += [_mean_sd(err, 1) + mark, "n/a" if size is None else _mean_sd(size, 1)]
        rows.append(tuple(row))
    t0 = r.tasks[0]
    counts = ", ".join(f"{t.ref.name}: {t.task_instances}" for t in r.tasks)
    return Table(
        title=f"{r.name}: test error rate (%) and model size",
        columns=columns,
        align="l" + "r" * (len(columns) - 1),
        rows=tuple(rows),
        notes=(
            f"{r.name}, {t0.design} design. Mean ± SD over instances ({counts}) of the "
            "test misclassification rate (100 x mean zero-one loss) and of the model size "
            "(RBF centres, relevance or support vectors; n/a: the method records none), "
            "the layout of Hong, Chen et al. (2014), Tables 2-10. SDs, not standard "
            "errors: the Z table gives the SEs and the paired tests.",
            "!: fewer instances than the task; –: not run.",
        ),
    )


def error_records(r: PrototaskReport) -> tuple[list[str], list[list]]:
    """CSV: one row per task and method, full precision."""
    head = [
        "task",
        "method",
        "instances",
        "error_rate_mean",
        "error_rate_sd",
        "model_size_mean",
        "model_size_sd",
    ]
    out = []
    for t in r.tasks:
        for m in r.methods:
            c = t.cells[m]
            err = instance_error_rates(c)
            size = _sizes(c)
            out.append(
                [
                    t.ref.full_name,
                    m,
                    len(c.used),
                    None if err is None else float(err.mean()),
                    None if err is None else _sd(err),
                    None if size is None else float(size.mean()),
                    None if size is None else _sd(size),
                ]
            )
    return head, out
