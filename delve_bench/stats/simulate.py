"""Loss matrices simulated from the ANOVA models (eqs. 2.2-2.3 and 2.18-2.19), for
``delve selftest``, the power checks and golden numbers.

* :func:`simulate_losses`: ``studies`` matrices ``y_ij = mu + a_i (+ b_j) + e_ij`` with
  independent normal effects of the given variances;
* :func:`matrix_with_components`: one matrix whose ANOVA gives *exactly* a printed mean,
  sigma_a and sigma_e (rebuilding DELVE's worked examples from their printed SDs).
"""

from __future__ import annotations

import numpy as np

_CHUNK = 1 << 24  # numbers drawn at once


def simulate_losses(vc, I: int, J: int, studies: int, rng: np.random.Generator, mean=0.0):
    """``(studies, I, J)`` losses from the components ``vc`` (a
    :class:`~.power.VarianceComponents`) with expected value ``mean``."""
    if studies * I * J > 4 * _CHUNK:
        raise ValueError("too many numbers at once; simulate in batches")
    y = rng.standard_normal((studies, I, J)) * np.sqrt(vc.var_e)
    y += rng.standard_normal((studies, I, 1)) * np.sqrt(vc.var_a)
    if vc.design == "2-way":
        y += rng.standard_normal((studies, 1, J)) * np.sqrt(vc.var_b)
    return y + mean


def batches(studies: int, I: int, J: int) -> list[int]:
    """Study counts per batch so that no batch draws more than ~16M numbers."""
    per = max(1, _CHUNK // (I * J))
    return [min(per, studies - s) for s in range(0, studies, per)]


def matrix_with_components(
    I: int, J: int, mean: float, sd_train: float, sd_test: float, rng: np.random.Generator
) -> np.ndarray:
    """A hierarchical I x J loss matrix whose ANOVA gives exactly ``mean``,
    ``sigma_a = sd_train`` and ``sqrt(MSe) = sd_test``."""
    a = rng.normal(size=I)
    a = (a - a.mean()) / a.std(ddof=1)
    e = rng.normal(size=(I, J))
    e -= e.mean(1, keepdims=True)
    e /= np.sqrt((e**2).sum() / (I * (J - 1)))
    return mean + a[:, None] * np.sqrt((J * sd_train**2 + sd_test**2) / J) + sd_test * e
