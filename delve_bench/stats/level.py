"""Is the quasi-F honest here? Its level at the estimated variance components.

Lindman's quasi-F (2-way design) is approximate: with few instances and a large
training-set effect it rejects a true H0 more often than its nominal level (Rasmussen 1996
Figs. 2.5-2.6; ``delve selftest`` measures it on a grid). Whether it does for one
comparison depends on the design, I, J and the variance components, so the same simulation
is run at the components estimated from that comparison (eq. 2.23): under H0 the
quasi-F's inputs are four independent quantities -- the mean ~ N(0, var of the mean) and
the three mean squares ~ E[MS] chi2_nu / nu -- so :data:`SIMULATIONS` null studies cost
four vectors of draws (the draws :mod:`.power` uses, fixed seed, so the numbers are
reproducible), not matrices of losses.

From the null p-values:

* :func:`null_rate`: the share of true nulls with p < alpha (the test's actual level);
* :func:`is_liberal`: that rate is above the upper end of the 99.9 % binomial interval
  around alpha for :data:`SIMULATIONS` studies (the selftest's verdict);
* :func:`critical_p`: the largest p threshold whose null rate is at most alpha: reject
  when p < ``critical_p`` is the size-corrected test (alpha itself when the quasi-F is not
  liberal), what ``report``, ``power`` and ``check`` use to decide at 5 %;
* :func:`calibrated_p`: the share of null studies with a p at most the observed one (a
  parametric-bootstrap p-value at the estimated components).

These are estimates: with 2 instances the training-set component itself rests on one
degree of freedom, so a calibrated p is a better guide than the raw one, not an exact one.
"""

from __future__ import annotations

import functools

import numpy as np

from ..defaults import ALPHA
from .draws import _DRAWS
from .results import is_bounded, is_significant
from .tests import quasi_f_p_value

#: null studies simulated per (I, J) (those of the quasi-F power, :mod:`.power`)
SIMULATIONS = 20_000
#: the binomial interval of the selftest's verdict
CONFIDENCE = 0.999


def null_p_values(vc, I: int, J: int) -> np.ndarray:
    """Quasi-F p-values of :data:`SIMULATIONS` 2-way studies under H0 with the variance
    components ``vc`` (a :class:`~.power.VarianceComponents`), I instances, J test cases;
    shape (SIMULATIONS,), read-only.

    Computed once per process for each (vc, I, J) (:func:`_null_p_values`): a 2-way
    comparison asks for them up to four times (:func:`level_fields`: the rate, whether it
    is liberal, the threshold, the calibrated p), each time the same numbers from the
    same fixed draws, at some 20 ms each."""
    return _null_p_values(vc, I, J)


@functools.lru_cache(maxsize=16)  # 20,000 doubles each, as the draws' own cache keeps
def _null_p_values(vc, I: int, J: int) -> np.ndarray:
    z, ca, cb, ce = _DRAWS.get(I, J)
    ea = J * vc.var_a + vc.var_e  # expected mean squares
    eb = I * vc.var_b + vc.var_e
    mean = np.sqrt(vc.var_mean(I, J)) * z
    p, *_ = quasi_f_p_value(mean, ea * ca, eb * cb, vc.var_e * ce, I, J)
    p = np.array(p, dtype=float)  # a copy of its own, frozen: every caller shares it
    p.flags.writeable = False
    return p


def null_rate(vc, I: int, J: int, alpha: float = ALPHA) -> float:
    """Share of true nulls the raw quasi-F rejects at ``alpha``."""
    return float(np.mean(null_p_values(vc, I, J) < alpha))


def binomial_interval(alpha: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Central interval of the rate an exact test of level alpha shows in n studies.

    The ends of ``scipy.stats.binom.interval(confidence, n, alpha)`` divided by n: at each
    end the smallest count k with P(X <= k) >= q, q = (1 -+ confidence) / 2, by bisection
    on the binomial CDF (scipy.special's bdtr; scipy.stats takes 0.7 s to import, a
    compare needs nothing else from it)."""
    return (
        _binomial_quantile((1 - confidence) / 2, n, alpha) / n,
        _binomial_quantile((1 + confidence) / 2, n, alpha) / n,
    )


def _binomial_quantile(q: float, n: int, p: float) -> int:
    """The smallest count k of Binomial(n, p) with P(X <= k) >= q."""
    from scipy.special import bdtr

    below, k = -1, n  # P(X <= below) < q <= P(X <= k)
    while k - below > 1:
        mid = (below + k) // 2
        if bdtr(mid, n, p) >= q:
            k = mid
        else:
            below = mid
    return k


def liberal_bound(alpha: float, n: int = SIMULATIONS) -> float:
    """The largest rate an exact test of level alpha shows in n studies (99.9 %): the
    upper end of :func:`binomial_interval`."""
    return binomial_interval(alpha, n)[1]


def is_liberal(vc, I: int, J: int, alpha: float = ALPHA) -> bool:
    return null_rate(vc, I, J, alpha) > liberal_bound(alpha)


def critical_p(vc, I: int, J: int, alpha: float = ALPHA) -> float:
    """The p threshold of the size-corrected quasi-F: alpha where the raw test is not
    liberal, else the alpha-quantile of the null p-values (so that at most alpha of the
    simulated nulls fall below it)."""
    if not is_liberal(vc, I, J, alpha):
        return alpha
    p = np.sort(null_p_values(vc, I, J))
    k = int(np.floor(alpha * len(p)))  # p[k] is the smallest p with > alpha of nulls below
    return float(min(alpha, p[k]))


def calibrated_p(vc, I: int, J: int, p: float) -> float:
    """Share of the simulated null studies with a quasi-F p at most ``p`` (at least
    1 / (SIMULATIONS + 1))."""
    null = null_p_values(vc, I, J)
    return float((np.sum(null <= p) + 1) / (len(null) + 1))


def level_fields(vc, I: int, J: int, p: float | None) -> dict:
    """What a 2-way comparison states about its test: the quasi-F's level at the
    estimated components, whether that is liberal, the size-corrected threshold, the
    calibrated p and the decision at the 5 % level it leads to (the fields are named for
    that level, ``significant_5pc``, so the level is not a parameter)."""
    alpha = ALPHA
    rate = null_rate(vc, I, J, alpha)
    liberal = rate > liberal_bound(alpha)
    crit = critical_p(vc, I, J, alpha) if liberal else alpha
    out: dict = {
        "level": rate,
        "liberal": liberal,
        "critical_p": crit,
        "p_calibrated": None if p is None else calibrated_p(vc, I, J, p),
        "significant_5pc": is_significant(p, is_bounded("F", I, p), crit),
    }
    if liberal:
        out["level_note"] = (
            f"in this design (2-way, I = {I}, J = {J}, the estimated variance components) the "
            f"quasi-F is liberal: it rejects {100 * rate:.1f} % of true nulls at the "
            f"{100 * alpha:g} % level (simulated as `delve selftest` does); significance at "
            f"{100 * alpha:g} % is decided by the size-corrected threshold p < {crit:.3g}"
            + ("" if p is None else f" (calibrated p = {out['p_calibrated']:.3g})")
        )
    return out
