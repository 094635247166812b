"""Global ridge regression with lambda re-estimated by a GCV-like criterion (ORR §6.2).

Orr App. A.10, SVD form of Orr's ``rbf_rr_2``: with ``H = U s V^T``,
``mu_i = s_i^2`` (zero-padded to p) and ``yu_i = (U^T y)_i^2``:
``S = sum lam^2 yu/(lam + mu)^2``, ``gamma = sum mu/(lam + mu)``,
``tau = sum mu/(lam + mu)^2``, ``q = sum mu yu/(lam + mu)^3`` and
``lam <- K_XYZ S tau / q``. Stops when the criterion stops changing (relative change
below 1/thresh) or after ``hard`` steps; Orr's anti-cycling step is applied. Because the
criterion can have local minima (Orr §6.5), several starting values are tried and the
lowest final criterion is kept (the ``lambdas`` option of rbf_rr_2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .criteria import msc, reest_factor

DEFAULT_STARTS = (1e-8, 1e-6, 1e-4, 1e-2, 1.0, 1e2)


@dataclass
class RidgeFit:
    lam: float
    value: float
    gamma: float
    weights: np.ndarray
    iterations: int


class _Spectrum:
    def __init__(self, H: np.ndarray, y: np.ndarray):
        U, s, Vt = np.linalg.svd(H, full_matrices=False)
        self.H, self.y, self.p = H, y, len(y)
        self.U, self.s, self.Vt = U, s, Vt
        self.mu = s**2
        uy = U.T @ y
        self.uy = uy
        self.yu = uy**2
        self.rest = max(float(y @ y - self.yu.sum()), 0.0)  # the zero-padded components

    def parts(self, lam: float):
        mu, yu = self.mu, self.yu
        S = float(np.sum(lam**2 * yu / (lam + mu) ** 2) + self.rest)
        gamma = float(np.sum(mu / (lam + mu)))
        tau = float(np.sum(mu / (lam + mu) ** 2))
        q = float(np.sum(mu * yu / (lam + mu) ** 3))
        return S, gamma, tau, q

    def value(self, lam: float, criterion: str) -> float:
        S, gamma, _, _ = self.parts(lam)
        return msc(criterion, S, gamma, self.p)

    def weights(self, lam: float) -> np.ndarray:
        return self.Vt.T @ (self.s * self.uy / (self.s**2 + lam))


class Reestimated(NamedTuple):
    """Where one run of the re-estimation formula ended."""

    lam: float
    value: float  # the criterion at lam
    steps: int


def reestimate_lambda(
    spec: _Spectrum, criterion: str, lam0: float, thresh: float = 1e4, hard: int = 100
) -> Reestimated:
    """Iterate the re-estimation formula from ``lam0``."""
    lam, err = lam0, spec.value(lam0, criterion)
    history = [lam]
    it = 0
    while it < hard:
        it += 1
        S, gamma, tau, q = spec.parts(lam)
        if q <= 0:
            break
        new = reest_factor(criterion, gamma, spec.p) * S * tau / q
        if it > 5 and abs(new - history[-1]) > abs(new - history[-2]):
            new = float(np.sqrt(history[-1] * history[-2]))  # Orr's anti-cycling step
        new_err = spec.value(new, criterion)
        done = new_err == err or (err != new_err and abs(err / (err - new_err)) > thresh)
        lam, err = new, new_err
        history.append(lam)
        if done:
            break
    return Reestimated(lam=lam, value=err, steps=it)


def global_ridge(
    H: np.ndarray,
    y: np.ndarray,
    criterion: str = "gcv",
    starts: tuple[float, ...] = DEFAULT_STARTS,
    thresh: float = 1e4,
) -> RidgeFit:
    """Global ridge with lambda re-estimated from each start; lowest final criterion."""
    spec = _Spectrum(H, y)
    best: Reestimated | None = None
    for lam0 in starts:
        r = reestimate_lambda(spec, criterion, lam0, thresh, hard=1000 if thresh > 1e4 else 100)
        if best is None or r.value < best.value:
            best = r
    assert best is not None, "no starting values"
    _, gamma, _, _ = spec.parts(best.lam)
    return RidgeFit(
        lam=best.lam,
        value=best.value,
        gamma=gamma,
        weights=spec.weights(best.lam),
        iterations=best.steps,
    )
