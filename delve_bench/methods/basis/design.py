"""RBF design matrices and input scaling for the basis-function family.

Conventions (Barrio et al. 2009 §1, §6.2.1; Orr 1996 §3.1): a Gaussian RBF is
``exp(-sum_d (x_d - c_d)^2 / r_d^2)``: widths ``r_d`` enter squared, **without** a factor
2, one width per input dimension shared by all centres. Orr's other radial types
(Cauchy, multiquadric, inverse multiquadric) use the same scaled distance ``z``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...numerics.distance import sq_distances

KINDS = {
    "gaussian": lambda z: np.exp(-z),
    "cauchy": lambda z: 1.0 / (1.0 + z),
    "multiquadric": lambda z: np.sqrt(1.0 + z),
    "inverse-multiquadric": lambda z: 1.0 / np.sqrt(1.0 + z),
}


def rbf_design(
    X: np.ndarray,
    C: np.ndarray,
    widths: np.ndarray | float,
    kind: str = "gaussian",
    bias: bool = False,
) -> np.ndarray:
    """Design matrix ``Phi[i, j] = phi_j(x_i)`` for centres ``C``; a trailing column of ones
    when ``bias`` (the bias candidate of Anguita & Gagliolo and Orr's ``rbf_dm``)."""
    Phi = KINDS[kind](sq_distances(X, C, widths))
    if bias:
        Phi = np.hstack([Phi, np.ones((len(X), 1))])
    return Phi


@dataclass(frozen=True)
class Scaling:
    """Barrio et al.'s preprocessing (§6.2.3): inputs linearly mapped to [-1, 1]
    and targets centred by the training mean, both fitted on the training set only.
    (We apply it to the harness' encoded data; a constant input column stays at 0.)"""

    lo: np.ndarray
    hi: np.ndarray
    t_mean: float

    @classmethod
    def fit(cls, X: np.ndarray, t: np.ndarray) -> Scaling:
        return cls(X.min(0), X.max(0), float(np.mean(t)))

    def inputs(self, X: np.ndarray) -> np.ndarray:
        ok = self.hi > self.lo
        span = np.where(ok, self.hi - self.lo, 1.0)
        return np.where(ok, 2.0 * (X - self.lo) / span - 1.0, 0.0)

    def target(self, t: np.ndarray) -> np.ndarray:
        return t - self.t_mean
