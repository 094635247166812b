"""One draw from the generalised inverse Gaussian distribution, fast.

``GIG(p, b)`` has density proportional to ``x^(p-1) exp(-b (x + 1/x) / 2)`` on x > 0
(scipy's ``geninvgauss`` parameterisation). mlp-mc-1 draws two per iteration (the
top-level ARD precisions, :func:`delve_bench.methods.mlp.prior.top_level_conditional`),
where ``scipy.stats.geninvgauss.rvs`` spends about 0.4 ms on argument handling and numpy
scalar arithmetic -- a tenth of a whole HMC iteration.

The method is Hörmann & Leydold's (2014, "Generating generalized inverse Gaussian random
variates", Statistics and Computing 24, 547-557) ratio-of-uniforms, with the mode shift
when ``p >= 1`` or ``b > 1`` and without it when ``b >= min(1/2, 2 sqrt(1 - p) / 3)``, as
scipy (1.10 to 1.17) runs it for one variate: the same bounding rectangle and acceptance
test, the same uniforms drawn from the generator in the same order, so a seeded chain
gives the draws scipy would give (to the last bit on the versions tested). The
remaining corner (small ``b`` and ``p < 1``, never met by the thesis' priors) is left to
scipy.
"""

from __future__ import annotations

import math

import numpy as np


def _log_quasi(x: float, p: float, b: float) -> float:
    """Log of the unnormalised density, -inf for x <= 0."""
    if x <= 0:
        return -math.inf
    return float((p - 1) * np.log(x) - b * (x + 1 / x) / 2)


def _mode(p: float, b: float) -> float:
    # the two forms avoid cancellation (Hörmann & Leydold 2014)
    if p < 1:
        return b / (math.sqrt((p - 1) ** 2 + b**2) + 1 - p)
    return (math.sqrt((1 - p) ** 2 + b**2) - (1 - p)) / b


def gig_draw(p: float, b: float, rng: np.random.Generator) -> float:
    """One variate of ``GIG(p, b)`` (b > 0), from ``rng``.

    Parameters
    ----------
    p : float
        Index (any real; ``1 / GIG(p, b)`` is ``GIG(-p, b)``).
    b : float
        Concentration, > 0.
    rng : numpy.random.Generator

    Returns
    -------
    float
    """
    p, b = float(p), float(b)
    invert = p < 0
    if invert:
        p = -p
    if not (p >= 1 or b > 1 or b >= min(0.5, 2 * math.sqrt(1 - p) / 3)):
        from scipy.stats import geninvgauss  # the corner this module does not cover

        x = float(geninvgauss.rvs(p, b, random_state=rng))
        return 1 / x if invert else x
    m = _mode(p, b)
    if p >= 1 or b > 1:  # ratio of uniforms around the mode
        a2 = -2 * (p + 1) / b - m
        a1 = 2 * m * (p - 1) / b - 1
        # roots of x^3 + a2 x^2 + a1 x + m (Cardano) bound the rectangle in v
        p1 = a1 - a2**2 / 3
        q1 = 2 * a2**3 / 27 - a2 * a1 / 3 + m
        phi = float(np.arccos(-q1 * np.sqrt(-27 / p1**3) / 2))
        s1 = -float(np.sqrt(-4 * p1 / 3))
        root1 = s1 * float(np.cos(phi / 3 + np.pi / 3)) - a2 / 3
        root2 = -s1 * float(np.cos(phi / 3)) - a2 / 3
        lm = _log_quasi(m, p, b)
        vmin = (root1 - m) * float(np.exp(0.5 * (_log_quasi(root1, p, b) - lm)))
        vmax = (root2 - m) * float(np.exp(0.5 * (_log_quasi(root2, p, b) - lm)))
        umax, c = 1.0, m
    else:  # ratio of uniforms at the origin
        lm = 0.0
        umax = float(np.exp(0.5 * _log_quasi(m, p, b)))
        xplus = ((1 + p) + math.sqrt((1 + p) ** 2 + b**2)) / b
        vmin, c = 0.0, 0.0
        vmax = xplus * float(np.exp(0.5 * _log_quasi(xplus, p, b)))
    if not (vmin < vmax and umax > 0):
        raise ValueError(f"gig: no bounding rectangle for p = {p:g}, b = {b:g}")
    for _ in range(50000):
        u = umax * rng.random()
        v = vmin + (vmax - vmin) * rng.random()
        x = v / u + c
        if 2 * float(np.log(u)) <= _log_quasi(x, p, b) - lm:
            return 1 / x if invert else x
    raise RuntimeError(f"gig: no variate in 50000 attempts for p = {p:g}, b = {b:g}")
