"""The Bayesian view of a paired difference (Rasmussen 1996 §2.4, eqs. 2.13-2.17).

Hierarchical design: with the Box & Tiao prior (eq. 2.15) the marginal posterior of the
expected difference mu is, eqs. 2.16-2.17,
``p(mu | y) ~ a2^-p2 * betai_{a2/(a1+a2)}(p2, p1)`` with
``a1 = 1/2 sum (y_ij - ybar_i)^2``, ``a2 = J/2 sum (ybar_i - mu)^2``, ``p1 = I(J-1)/2``,
``p2 = I/2``, normalised by quadrature. DELVE reports the mass on the side of 0 opposite
to the observed mean (2.3 % in the thesis' Fig. 2.3).

2-way design (the thesis gives no posterior; this is the same construction): write the
expected mean squares ``theta_e = sigma_e^2``, ``theta_a = sigma_e^2 + J sigma_a^2``,
``theta_b = sigma_e^2 + I sigma_b^2``. The grand mean and the three sums of squares are
independent, ``ybar ~ N(mu, (theta_a + theta_b - theta_e) / (IJ))`` and
``SS_x ~ theta_x chi2_{nu_x}``. With a flat prior on mu and ``1/theta`` on each expected
mean square restricted to ``theta_a, theta_b >= theta_e`` (eq. 2.15 extended to the second
random factor), integrating mu out leaves each ``theta_x`` a scaled inverse chi-square
``SS_x / chi2_{nu_x}``, truncated to the constraint. So the posterior of mu is a mixture
of normals ``N(ybar, (theta_a + theta_b - theta_e) / (IJ))`` over exact draws of theta
(independent draws, rejecting those outside the constraint); its density and sign
probabilities are averages over the draws (seeded, hence reproducible). Applied to the
hierarchical design (no theta_b, ``ybar ~ N(mu, theta_a / (IJ))``) the same sampler
reproduces eq. 2.16, which the tests check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .anova import Anova

DRAWS = 200_000
SEED = 1996


def log_posterior(mu: np.ndarray, a: Anova) -> np.ndarray:
    """Unnormalised log p(mu | y) of eq. 2.16 from the ANOVA summaries."""
    from scipy.special import betainc  # scipy on first use: `delve stats` starts faster

    I, J = a.I, a.J
    a1 = 0.5 * a.ms_e * I * (J - 1)
    between = (I - 1) * a.ms_a / J  # sum_i (ybar_i - ybar)^2
    a2 = 0.5 * J * (between + I * (np.asarray(mu) - a.mean) ** 2)
    p1, p2 = I * (J - 1) / 2, I / 2
    return -p2 * np.log(a2) + np.log(betainc(p2, p1, a2 / (a1 + a2)))


def _scale(a: Anova) -> float:
    s = float(np.sqrt(max(a.ms_a, a.ms_b or 0.0, a.ms_e) / (a.I * a.J)))
    return s if s > 0 else 1.0


def _closed_form_mass(a: Anova, side_of_zero: str) -> float:
    """Mass of eq. 2.16 below 0 (``'negative'``) or above 0, by quadrature."""
    from scipy import integrate

    scale = _scale(a)
    lp_max = log_posterior(np.array([a.mean]), a)[0]

    def dens(mu: float) -> float:
        return float(np.exp(log_posterior(np.array([mu]), a)[0] - lp_max))

    lo, hi = a.mean - 200 * scale, a.mean + 200 * scale
    pts = sorted({lo, hi, a.mean, 0.0} | {a.mean + k * scale for k in (-20, -5, -1, 1, 5, 20)})
    pts = [p for p in pts if lo <= p <= hi]
    parts = [
        (x, y, integrate.quad(dens, x, y, limit=200)[0]) for x, y in zip(pts, pts[1:], strict=False)
    ]
    total = sum(m for *_, m in parts)
    if side_of_zero == "negative":
        return sum(m for _, y, m in parts if y <= 0) / total
    return sum(m for x, _, m in parts if x >= 0) / total


def posterior_opposite_mass(a: Anova) -> float:
    """Posterior probability that mu lies on the other side of 0 from the observed mean
    (hierarchical design: eq. 2.16; 2-way: the mixture above)."""
    post = posterior(a, grid=0)
    return post.prob_positive if a.mean < 0 else post.prob_negative


@dataclass(frozen=True)
class Posterior:
    """Posterior of the expected difference mu: sign probabilities and a density on a
    grid (``mu``, ``density``; empty when not asked for)."""

    design: str
    mean: float  # observed difference, the posterior's centre
    prob_negative: float  # P(mu < 0 | y)
    prob_positive: float
    method: str  # how it was computed
    mu: tuple[float, ...] = ()
    density: tuple[float, ...] = ()

    @property
    def opposite(self) -> float:
        """Mass on the side of 0 opposite to the observed difference."""
        return self.prob_positive if self.mean < 0 else self.prob_negative


def _theta_draws(a: Anova, n: int, seed: int) -> np.ndarray:
    """Exact draws of the variance of ybar, (theta_a [+ theta_b - theta_e]) / (IJ)."""
    rng = np.random.default_rng(seed)
    I, J = a.I, a.J
    nu_a, nu_e = I - 1, (I * (J - 1) if a.design == "hierarchical" else (I - 1) * (J - 1))
    ss_a, ss_e = a.ms_a * nu_a, a.ms_e * nu_e
    nu_b = J - 1
    ss_b = (a.ms_b or 0.0) * nu_b
    out: list[np.ndarray] = []
    got = 0
    for _ in range(200):  # the constraint rejects at most a few in ten in practice
        m = n
        te = ss_e / rng.chisquare(nu_e, m)
        ta = ss_a / rng.chisquare(nu_a, m)
        ok = ta >= te
        if a.design == "2-way":
            tb = ss_b / rng.chisquare(nu_b, m)
            ok &= tb >= te
            v = (ta + tb - te)[ok]
        else:
            v = ta[ok]
        out.append(v / (I * J))
        got += len(v)
        if got >= n:
            break
    v = np.concatenate(out)[:n] if out else np.empty(0)
    if len(v) < n // 10:
        raise ValueError("the posterior's variance constraint rejects nearly every draw")
    return v


def posterior(a: Anova, grid: int = 301, draws: int = DRAWS, seed: int = SEED) -> Posterior:
    """The posterior of mu for the design of ``a`` with ``grid`` density points spanning
    +-5 posterior SDs and 0 (``grid=0``: sign probabilities only)."""
    if a.design == "hierarchical" and a.ms_a > 0 and a.ms_e > 0:
        neg = _closed_form_mass(a, "negative")
        pos = _closed_form_mass(a, "positive")
        method = "closed form, eq. 2.16 (Box & Tiao prior, eq. 2.15)"
        mu, dens = _grid(a, grid, None)
        return Posterior(
            design=a.design,
            mean=a.mean,
            prob_negative=neg,
            prob_positive=pos,
            method=method,
            mu=mu,
            density=dens,
        )
    if a.ms_a <= 0 or a.ms_e <= 0:
        raise ValueError("no posterior: the differences do not vary between instances")
    v = _theta_draws(a, draws, seed)
    sd = np.sqrt(v)
    from scipy.special import ndtr

    pos = float(np.mean(ndtr(a.mean / sd)))
    method = (
        f"mixture of normals over {len(v)} exact draws of the variance components "
        "(prior 1/theta on each expected mean square, theta_a, theta_b >= theta_e)"
    )
    mu, dens = _grid(a, grid, sd)
    return Posterior(
        design=a.design,
        mean=a.mean,
        prob_negative=1.0 - pos,
        prob_positive=pos,
        method=method,
        mu=mu,
        density=dens,
    )


def _density(a: Anova, mu: np.ndarray, sd: np.ndarray | None) -> np.ndarray:
    """Unnormalised posterior density at ``mu``: eq. 2.16, or the normal mixture over
    1000 quantiles of the SD draws (smooth and cheap)."""
    if sd is None:
        lp = log_posterior(mu, a)
        return np.exp(lp - lp.max())
    sub = np.quantile(sd, (np.arange(1000) + 0.5) / 1000)
    z = (mu[:, None] - a.mean) / sub[None, :]
    return (np.exp(-0.5 * z**2) / sub[None, :]).mean(1)


def _grid(a: Anova, n: int, sd: np.ndarray | None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """``n`` points over the central 99.8 % of the posterior (and 0 when it is near),
    with the density normalised over the grid."""
    if n <= 0:
        return (), ()
    if sd is None:  # eq. 2.16 has t-like tails with I - 1 d.o.f.
        from scipy import stats as sps

        span = float(np.sqrt(a.ms_a / (a.I * a.J))) * max(6.0, sps.t.isf(5e-4, a.I - 1))
    else:  # a scale mixture of normals: cover its widest components
        span = 4.0 * float(np.quantile(sd, 0.999))
    wide = np.linspace(a.mean - span, a.mean + span, 4001)
    d = _density(a, wide, sd)
    cdf = np.cumsum(d) / d.sum()
    lo, hi = float(np.interp(0.001, cdf, wide)), float(np.interp(0.999, cdf, wide))
    pad = 0.1 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    if -3 * (hi - lo) < 0 - a.mean < 3 * (hi - lo):  # 0 is near: show it
        lo, hi = min(lo, -pad), max(hi, pad)
    mu = np.linspace(lo, hi, n)
    d = _density(a, mu, sd)
    d = d / float(np.sum((d[1:] + d[:-1]) * np.diff(mu)) / 2)  # trapezoid rule
    return tuple(float(x) for x in mu), tuple(float(x) for x in d)
