"""The losses per test case and DELVE's standardisation of them: the one place for both.

Regression tasks (a real or integer target) have S, A and L; classification tasks (a
binary or nominal target) have Z, Q and L (DELVE manual; Rasmussen 1996 §3.2, §5.1).

* S: squared error of the predictive mean; A: absolute error of the predictive median;
  L: negative log predictive density. All in the original target units.
* Z: zero-one loss of the most probable class. **Ties**: when the target is one of k
  classes that share the largest probability exactly, Z = 1 - 1/k (the expected 0/1 loss
  when the tie is broken uniformly at random); Z = 1 when the target is not among them.
  Without ties this is DELVE's 1 for a wrong guess and 0 for a right one.
* Q: squared probability error, ``sum_c (p_c - [c = t])^2``, between 0 and 2.
* L (classification): ``-log max(p_t, P_FLOOR)`` in nats; the floor ``P_FLOOR = 1e-12``
  turns a zero probability of the true class into a large finite loss, -log 1e-12 = 27.63.

Standardisation (DELVE's ``Test-set-stats``, Rasmussen 1996 §5.1) uses the raw test
targets of all the task's instances pooled (the common test set once for the 2-way
design, every published test set for the resampled design), N-1 divisors. It divides
every number (expected loss, differences, SEs, SDs) by a scale, and subtracts a shift from
expected losses only:

==== =================================== ==========================================
loss scale                               shift
==== =================================== ==========================================
S    variance of the targets             0
A    absDev = sum |t - median| / (N - 1) 0
Z    1 - (largest class frequency)       0  (1: always guessing the commonest class)
Q    1 - sum_c f_c^2                     0  (1: predicting the class frequencies)
L    1                                   regression: 0.5 (log(2 pi var) + 1), the loss of
                                         a Gaussian with the targets' mean and variance;
                                         classification: -sum_c f_c log f_c, the loss of
                                         predicting the class frequencies f_c
==== =================================== ==========================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data.encoding import abs_dev
from .defaults import CLASSIFICATION_LOSSES, REGRESSION_LOSSES

LOSS_NAMES = {
    "S": "Squared error",
    "A": "Absolute error",
    "L": "Negative Log probability",
    "Z": "Zero-one",
    "Q": "Squared Probability",
}
#: the smallest probability L takes the log of: a zero gives -log(1e-12) = 27.63 nats
P_FLOOR = 1e-12


def task_losses(categorical: bool) -> tuple[str, ...]:
    """The losses of a task: Z, Q, L for a categorical target, else S, A, L."""
    return CLASSIFICATION_LOSSES if categorical else REGRESSION_LOSSES


def case_losses(
    t: np.ndarray, mean: np.ndarray, median: np.ndarray, log_density: np.ndarray | None
) -> dict[str, np.ndarray | None]:
    """Per-case S, A and L (None where the method has no density)."""
    return {
        "S": (t - mean) ** 2,
        "A": np.abs(t - median),
        "L": None if log_density is None else -log_density,
    }


def class_losses(t: np.ndarray, probs: np.ndarray) -> dict[str, np.ndarray]:
    """Per-case Z, Q and L of class probabilities.

    Parameters
    ----------
    t : (n,) int array
        The target class of each case, 0 .. C-1.
    probs : (n, C) or (n, K, C) array
        Predicted class probabilities (rows sum to 1); a middle axis scores K predictions
        of every case at once (e.g. every k of a nearest-neighbour method).

    Returns
    -------
    dict
        ``Z``, ``Q``, ``L``, each of shape (n,) or (n, K).
    """
    P = np.asarray(probs, dtype=float)
    t = np.asarray(t, dtype=np.intp)
    idx = t.reshape(t.shape + (1,) * (P.ndim - 1))  # broadcast the target over the K axis
    p_t = np.take_along_axis(P, idx, axis=-1)[..., 0]
    top = P.max(axis=-1, keepdims=True)
    tied = np.count_nonzero(P == top, axis=-1)
    Z = 1.0 - (p_t == top[..., 0]) / tied
    Q = np.sum(P**2, axis=-1) - 2.0 * p_t + 1.0
    L = -np.log(np.maximum(p_t, P_FLOOR))
    return {"Z": Z, "Q": Q, "L": L}


@dataclass(frozen=True)
class Standardizer:
    """How one loss is standardised on one task: ``(x - shift) / scale`` for expected
    losses; differences, SEs and SDs are only divided by ``scale``. A zero scale (every
    pooled test target the same) leaves the standardised numbers undefined (NaN)."""

    loss: str
    scale: float
    shift: float

    def mean(self, x: float) -> float:
        return (x - self.shift) / self.scale if self.scale else float("nan")

    def spread(self, x: float) -> float:
        return x / self.scale if self.scale else float("nan")


#: why a task's standardised numbers read nan (a zero scale), for every output that shows them
UNDEFINED_NOTE = (
    "standardised values are undefined (nan): every test target of this task has the same "
    "value, so there is no spread to standardise by (S divides by the targets' variance, A by "
    "their absolute deviation, Z and Q by the class frequencies); the raw values stand"
)


def undefined_scale(standardization: dict | None) -> bool:
    """True when a summary's ``standardization`` has a zero (or missing) scale."""
    return not (standardization or {}).get("scale")


def class_frequencies(codes: np.ndarray) -> np.ndarray:
    """Relative frequencies of the classes that occur among ``codes``."""
    _, counts = np.unique(np.asarray(codes), return_counts=True)
    return counts / counts.sum()


def standardizer(loss: str, pooled_targets: np.ndarray, categorical: bool = False) -> Standardizer:
    """The standardisation of ``loss`` from the task's pooled raw test targets (class
    codes when ``categorical``)."""
    t = np.asarray(pooled_targets, dtype=float)
    if categorical:
        f = class_frequencies(t)
        if loss == "Z":
            return Standardizer(loss="Z", scale=float(1.0 - f.max()), shift=0.0)
        if loss == "Q":
            return Standardizer(loss="Q", scale=float(1.0 - np.sum(f**2)), shift=0.0)
        if loss == "L":
            return Standardizer(loss="L", scale=1.0, shift=float(-np.sum(f * np.log(f))))
        raise ValueError(f"loss {loss!r} is not a classification loss (Z, Q, L)")
    var = float(np.var(t, ddof=1))
    if loss == "S":
        return Standardizer(loss="S", scale=var, shift=0.0)
    if loss == "A":
        return Standardizer(loss="A", scale=float(abs_dev(t)), shift=0.0)
    if loss == "L":
        return Standardizer(loss="L", scale=1.0, shift=0.5 * (np.log(2 * np.pi * var) + 1.0))
    raise ValueError(f"loss {loss!r} is not a regression loss (S, A, L)")
