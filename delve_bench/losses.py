"""The losses S, A, L per test case and DELVE's standardisation of them.

* S: squared error of the predictive mean; A: absolute error of the predictive median;
  L: negative log predictive density. All in the original target units.
* Standardisation (spec/delve-original.md §6.3) uses the raw test targets of all the
  task's instances pooled (the common test set once for the 2-way design), N-1 divisors:
  S divides by their variance, A by their absDev (sum |t - median| / (N-1)); L subtracts
  the negative log density of a Gaussian with their mean and variance,
  ``0.5 * (log(2 pi var) + 1)``, from expected losses only (not from SDs, SEs or
  differences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data.encoding import abs_dev

LOSSES = ("S", "A", "L")
LOSS_NAMES = {
    "S": "Squared error",
    "A": "Absolute error",
    "L": "Negative Log probability",
    "Z": "Zero-one",
    "Q": "Squared Probability",
}


def case_losses(
    t: np.ndarray, mean: np.ndarray, median: np.ndarray, log_density: np.ndarray | None
) -> dict[str, np.ndarray | None]:
    """Per-case S, A and L (None where the method has no density)."""
    return {
        "S": (t - mean) ** 2,
        "A": np.abs(t - median),
        "L": None if log_density is None else -log_density,
    }


@dataclass(frozen=True)
class Standardizer:
    """How one loss is standardised on one task: ``(x - shift) / scale`` for expected
    losses; differences, SEs and SDs are only divided by ``scale``."""

    loss: str
    scale: float
    shift: float

    def mean(self, x: float) -> float:
        return (x - self.shift) / self.scale

    def spread(self, x: float) -> float:
        return x / self.scale


def standardizer(loss: str, pooled_targets: np.ndarray) -> Standardizer:
    """The standardisation of ``loss`` from the task's pooled raw test targets."""
    t = np.asarray(pooled_targets, dtype=float)
    var = float(np.var(t, ddof=1))
    if loss == "S":
        return Standardizer("S", var, 0.0)
    if loss == "A":
        return Standardizer("A", float(abs_dev(t)), 0.0)
    if loss == "L":
        return Standardizer("L", 1.0, 0.5 * (np.log(2 * np.pi * var) + 1.0))
    raise ValueError(f"unknown loss {loss!r}")
