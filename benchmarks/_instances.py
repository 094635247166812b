"""Load one encoded DELVE task instance the way the harness does (for benchmarks)."""

from __future__ import annotations

import numpy as np

from delve_bench.run import load_instance
from delve_bench.workspace import WorkspaceDirs


def encoded_instance(task: str, instance: int):
    """(Xtr, ytr, Xte, yte_raw, coding) of ``task`` instance ``instance``; X, y encoded by
    DELVE's default coding fitted on the training set, test targets raw."""
    e = load_instance(WorkspaceDirs.from_env(), task, instance)
    return e.X_train, e.y_train, e.X_test, e.y_test, e.coding


def standardised_S(yte: np.ndarray, pred_raw: np.ndarray) -> float:
    """Mean squared error over the variance of the test targets (one instance)."""
    return float(np.mean((yte - pred_raw) ** 2) / np.var(yte, ddof=1))
