"""Random-effects ANOVA of a loss matrix ``y[i, j]`` (instance i, test case j).

spec/evaluation.md §2.3 (hierarchical, eqs. 2.4-2.7) and §3.3 (2-way, eqs. 2.20-2.23),
with DELVE 1.1's choices (delve-original §6.1): variance components truncated at zero;
the SE uses the truncated components; the t-test uses MSa itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DelveError


@dataclass(frozen=True)
class Anova:
    """Mean squares, variance components and the standard error of the mean loss."""

    design: str  # 'hierarchical' | '2-way'
    I: int
    J: int
    mean: float
    ms_a: float
    ms_e: float
    ms_b: float | None  # 2-way only
    var_a: float  # sigma_a^2, truncated at 0
    var_b: float | None  # sigma_b^2 (2-way), truncated at 0
    se: float

    @property
    def sd_train(self) -> float:
        """SD from training sets & stochastic training: sqrt(sigma_a^2)."""
        return float(np.sqrt(self.var_a))

    @property
    def sd_test(self) -> float:
        """sqrt(MSe): test cases & stoch. pred. & interactions (hierarchical), or
        interactions & stoch. pred. (2-way; reported as ``sd_interaction`` there)."""
        return float(np.sqrt(self.ms_e))

    @property
    def sd_interaction(self) -> float | None:
        """SD from interactions & stochastic prediction, sqrt(MSe), 2-way only."""
        return None if self.design != "2-way" else float(np.sqrt(self.ms_e))

    @property
    def sd_cases(self) -> float | None:
        """SD from test cases, sqrt(sigma_b^2), 2-way only."""
        return None if self.var_b is None else float(np.sqrt(self.var_b))


def anova(y: np.ndarray, design: str) -> Anova:
    """ANOVA estimates for losses ``y`` (I x J) under ``design``."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 2:
        raise ValueError("losses must be an (instances x test cases) matrix")
    I, J = y.shape
    if I < 2:
        raise DelveError(f"the analysis of variance needs at least 2 instances, got {I}")
    if J < 2:
        raise DelveError(f"the analysis of variance needs at least 2 test cases, got {J}")
    row = y.mean(1)
    mean = float(row.mean())
    ms_a = float(J * ((row - mean) ** 2).sum() / (I - 1))
    if design == "hierarchical":
        ms_e = float(((y - row[:, None]) ** 2).sum() / (I * (J - 1)))
        var_a = max((ms_a - ms_e) / J, 0.0)
        se = float(np.sqrt(var_a / I + ms_e / (I * J)))
        return Anova(design, I, J, mean, ms_a, ms_e, None, var_a, None, se)
    if design == "2-way":
        col = y.mean(0)
        ms_b = float(I * ((col - mean) ** 2).sum() / (J - 1))
        resid = y - row[:, None] - col[None, :] + mean
        ms_e = float((resid**2).sum() / ((I - 1) * (J - 1)))
        var_a = max((ms_a - ms_e) / J, 0.0)
        var_b = max((ms_b - ms_e) / I, 0.0)
        se = float(np.sqrt(var_a / I + var_b / J + ms_e / (I * J)))
        return Anova(design, I, J, mean, ms_a, ms_e, ms_b, var_a, var_b, se)
    raise ValueError(f"unknown design {design!r}")
