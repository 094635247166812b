"""Random-effects ANOVA of a loss matrix ``y[i, j]`` (instance i, test case j).

Rasmussen (1996) §2.4 (hierarchical, eqs. 2.4-2.7) and §2.5 (2-way, eqs. 2.20-2.23), with
DELVE 1.1's choices: variance components truncated at zero; the SE uses the truncated
components; the t-test uses MSa itself.

:func:`mean_squares` works on a stack of matrices (``(..., I, J)``), so simulations of
thousands of studies (``delve selftest``, the power checks) run through the same code as
one real comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DelveError

DESIGNS = ("hierarchical", "2-way")


@dataclass(frozen=True)
class MeanSquares:
    """Grand mean and mean squares of one or many ``I x J`` loss matrices (arrays over
    the leading axes of the input; ``ms_b`` is None for the hierarchical design)."""

    design: str
    I: int
    J: int
    mean: np.ndarray
    ms_a: np.ndarray
    ms_e: np.ndarray
    ms_b: np.ndarray | None


def mean_squares(y: np.ndarray, design: str) -> MeanSquares:
    """Mean squares of eq. 2.6 (hierarchical) or 2.22 (2-way) for ``y`` of shape
    ``(..., I, J)``; every output has the shape of the leading axes."""
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}")
    y = np.asarray(y, dtype=float)
    I, J = y.shape[-2:]
    row = y.mean(-1)
    mean = row.mean(-1)
    ms_a = J * ((row - mean[..., None]) ** 2).sum(-1) / (I - 1)
    if design == "hierarchical":
        ms_e = ((y - row[..., None]) ** 2).sum((-2, -1)) / (I * (J - 1))
        return MeanSquares(design=design, I=I, J=J, mean=mean, ms_a=ms_a, ms_e=ms_e, ms_b=None)
    col = y.mean(-2)
    ms_b = I * ((col - mean[..., None]) ** 2).sum(-1) / (J - 1)
    resid = y - row[..., :, None] - col[..., None, :] + mean[..., None, None]
    ms_e = (resid**2).sum((-2, -1)) / ((I - 1) * (J - 1))
    return MeanSquares(design=design, I=I, J=J, mean=mean, ms_a=ms_a, ms_e=ms_e, ms_b=ms_b)


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
    """Random-effects ANOVA of one loss matrix (Rasmussen 1996 eqs. 2.4-2.7, 2.20-2.23).

    Parameters
    ----------
    y : ndarray of shape (I, J)
        Losses (or paired loss differences): I instances (training sets) by J test cases.
    design : {"hierarchical", "2-way"}
        Each instance with its own test cases, or one test set shared by all.

    Returns
    -------
    Anova
        The grand mean, the mean squares, the variance components truncated at 0 and the
        standard error of the mean (docs/statistics.md).

    Raises
    ------
    DelveError
        With fewer than 2 instances or 2 test cases.
    """
    y = np.asarray(y, dtype=float)
    if y.ndim != 2:
        raise ValueError("losses must be an (instances x test cases) matrix")
    I, J = y.shape
    if I < 2:
        raise DelveError(f"the analysis of variance needs at least 2 instances, got {I}")
    if J < 2:
        raise DelveError(f"the analysis of variance needs at least 2 test cases, got {J}")
    ms = mean_squares(y, design)
    mean, ms_a, ms_e = float(ms.mean), float(ms.ms_a), float(ms.ms_e)
    var_a = max((ms_a - ms_e) / J, 0.0)
    ms_b = var_b = None  # hierarchical: no test-case effect
    if ms.ms_b is None:
        se = float(np.sqrt(var_a / I + ms_e / (I * J)))
    else:  # 2-way: the shared test cases add a variance component of their own
        ms_b = float(ms.ms_b)
        var_b = max((ms_b - ms_e) / I, 0.0)
        se = float(np.sqrt(var_a / I + var_b / J + ms_e / (I * J)))
    return Anova(
        design=design,
        I=I,
        J=J,
        mean=mean,
        ms_a=ms_a,
        ms_e=ms_e,
        ms_b=ms_b,
        var_a=var_a,
        var_b=var_b,
        se=se,
    )
