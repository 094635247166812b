"""The Bayesian alternative for the hierarchical design (spec/evaluation.md §2.6).

With the Box & Tiao prior (eq. 2.15) the marginal posterior of mu is, eq. 2.16-2.17,
``p(mu | y) ~ a2^-p2 * betai_{a2/(a1+a2)}(p2, p1)`` with
``a1 = 1/2 sum (y_ij - ybar_i)^2``, ``a2 = J/2 sum (ybar_i - mu)^2``, ``p1 = I(J-1)/2``,
``p2 = I/2``. It is normalised by quadrature; DELVE reports the mass on the side of 0
opposite to the observed mean (2.3 % in the thesis' Fig. 2.3).
"""

from __future__ import annotations

import numpy as np
from scipy import integrate
from scipy.special import betainc

from .anova import Anova


def log_posterior(mu: np.ndarray, a: Anova) -> np.ndarray:
    """Unnormalised log p(mu | y) from the ANOVA summaries (all eq. 2.16 needs)."""
    I, J = a.I, a.J
    a1 = 0.5 * a.ms_e * I * (J - 1)
    between = (I - 1) * a.ms_a / J  # sum_i (ybar_i - ybar)^2
    a2 = 0.5 * J * (between + I * (np.asarray(mu) - a.mean) ** 2)
    p1, p2 = I * (J - 1) / 2, I / 2
    return -p2 * np.log(a2) + np.log(betainc(p2, p1, a2 / (a1 + a2)))


def posterior_opposite_mass(a: Anova) -> float:
    """Posterior probability that mu lies on the other side of 0 from the observed mean."""
    if a.design != "hierarchical":
        raise ValueError("the posterior of eq. 2.16 is for the hierarchical design")
    scale = np.sqrt(max(a.ms_a, a.ms_e) / (a.I * a.J)) or 1.0
    lp_max = log_posterior(np.array([a.mean]), a)[0]

    def dens(mu: float) -> float:
        return float(np.exp(log_posterior(np.array([mu]), a)[0] - lp_max))

    lo, hi = a.mean - 200 * scale, a.mean + 200 * scale
    pts = sorted({lo, hi, a.mean, 0.0} | {a.mean + k * scale for k in (-20, -5, -1, 1, 5, 20)})
    pts = [p for p in pts if lo <= p <= hi]
    total = sum(
        integrate.quad(dens, x, y, limit=200)[0] for x, y in zip(pts, pts[1:], strict=False)
    )
    if a.mean >= 0:
        opposite = sum(
            integrate.quad(dens, x, y, limit=200)[0]
            for x, y in zip(pts, pts[1:], strict=False)
            if y <= 0
        )
    else:
        opposite = sum(
            integrate.quad(dens, x, y, limit=200)[0]
            for x, y in zip(pts, pts[1:], strict=False)
            if x >= 0
        )
    return opposite / total
