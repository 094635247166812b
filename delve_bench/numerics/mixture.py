"""Medians of per-case Gaussian mixtures, for the A loss of the Monte Carlo methods
(Rasmussen 1996 §3.7 and §4.6; docs/methods/gp.md and docs/methods/mlp.md).

The thesis' programs estimate the median of an equal-weight mixture of K Gaussians by
drawing 11 values from every component and taking the median of the 11 K values
(:func:`sampled_median`, kept as the faithful option). :func:`mixture_median` computes the
exact median instead, by bisection on the mixture CDF, for all test cases at once.
"""

from __future__ import annotations

import numpy as np

#: draws per component in the thesis' Monte Carlo median (MEDIANSSIZE)
MEDIAN_DRAWS = 11


def mixture_median(
    means: np.ndarray, vars: np.ndarray, weights: np.ndarray | None = None, iters: int = 64
) -> np.ndarray:
    """Exact median of each row's mixture ``sum_k weights_k N(means[:, k], vars[:, k])``.

    ``means``, ``vars``: (cases, K). Bisection between the smallest and largest component
    medians (the mixture median always lies there); 64 halvings reach float precision.
    """
    # here, not at the top: the gp and mlp plugins import this module, and `delve study
    # status` imports them (to ask about anytime methods) without ever taking a median
    from scipy.special import ndtr

    means = np.asarray(means, dtype=float)
    sd = np.sqrt(np.asarray(vars, dtype=float))
    K = means.shape[1]
    w = np.full(K, 1.0 / K) if weights is None else np.asarray(weights, float) / np.sum(weights)
    lo, hi = means.min(1), means.max(1)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        below = ndtr((mid[:, None] - means) / sd) @ w < 0.5
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def sampled_median(
    means: np.ndarray, vars: np.ndarray, rng: np.random.Generator, draws: int = MEDIAN_DRAWS
) -> np.ndarray:
    """The thesis' estimate: the median of ``draws`` samples from every (equally weighted)
    component; an even count gives the mean of the two middle values."""
    means = np.asarray(means, dtype=float)
    z = rng.standard_normal((*means.shape, draws))
    x = means[..., None] + np.sqrt(vars)[..., None] * z
    return np.median(x.reshape(len(means), -1), axis=1)
