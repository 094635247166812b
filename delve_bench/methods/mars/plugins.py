"""DELVE method plugins: mars3.6-1 and mars3.6-bag-1 (Rasmussen 1996 §3.5, §5.2).

Both predict with MARS 3.6's piecewise-cubic model (``cubic: false`` in a method YAML
gives the piecewise-linear one under a new name). MARS has no predictive distribution,
so they serve the S and A losses only, with one prediction for both.
"""

from __future__ import annotations

import numpy as np

from ..base import FitContext, Method, Prediction
from .basis import MarsSettings
from .model import MarsFit, fit_mars


class Mars(Method):
    """mars3.6-1: one MARS 3.6 fit (nk, mi and the other controls of :class:`MarsSettings`)."""

    losses = ("S", "A")

    def __init__(self, cubic: bool = True, **settings):
        self.settings = MarsSettings(**settings)
        self.cubic = cubic

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self.fit_: MarsFit = fit_mars(X, y, self.settings)
        ctx.info.update(self.fit_.describe())

    def predict(self, X: np.ndarray) -> Prediction:
        mean = self.fit_.predict(X, cubic=self.cubic)
        return Prediction(mean=mean, median=mean)


class MarsBag(Method):
    """mars3.6-bag-1: MARS fitted to ``bags`` bootstrap samples of size n, drawn with the
    instance's seeded generator; the prediction is the mean of the fits' predictions."""

    losses = ("S", "A")

    def __init__(self, bags: int = 50, cubic: bool = True, **settings):
        if bags < 1:
            raise ValueError("bags must be at least 1")
        self.bags = bags
        self.settings = MarsSettings(**settings)
        self.cubic = cubic

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        n = len(y)
        self.fits_: list[MarsFit] = []
        for b in range(self.bags):
            i = ctx.rng.integers(0, n, size=n)
            self.fits_.append(fit_mars(X[i], y[i], self.settings))
            ctx.progress((b + 1) / self.bags)
        selected = [len(f.selected) for f in self.fits_]
        ctx.info.update(
            bags=self.bags,
            mean_n_selected=float(np.mean(selected)),
            n_selected=selected,
            mean_n_basis=float(np.mean([len(f.forward.basis) for f in self.fits_])),
            mean_gcv_cubic=float(np.mean([f.cubic.gcv for f in self.fits_])),
        )

    def predict(self, X: np.ndarray) -> Prediction:
        mean = np.mean([f.predict(X, cubic=self.cubic) for f in self.fits_], axis=0)
        return Prediction(mean=mean, median=mean)
