"""Adapter: any scikit-learn-style regressor as a DELVE method (S and A losses only).

A method YAML can point ``plugin`` straight at a regressor class, e.g.
``sklearn.ensemble:RandomForestRegressor`` with ``params: {n_estimators: 100}``; the
method's seeded generator fills ``random_state`` when the estimator has one.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .base import FitContext, Method, Prediction


class SklearnRegressor(Method):
    """Wrap a regressor class (or ``"module:Class"``) with keyword parameters."""

    losses = ("S", "A")

    def __init__(self, estimator, **params):
        if isinstance(estimator, str):
            mod, _, attr = estimator.partition(":")
            estimator = getattr(importlib.import_module(mod), attr)
        self.estimator_cls = estimator
        self.params = params
        self.model: Any = None  # the fitted estimator

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        params = dict(self.params)
        try:
            import inspect

            if "random_state" in inspect.signature(self.estimator_cls).parameters:
                params.setdefault("random_state", int(ctx.rng.integers(2**31 - 1)))
        except (TypeError, ValueError):
            pass
        self.model = self.estimator_cls(**params)
        self.model.fit(X, y)

    def predict(self, X: np.ndarray) -> Prediction:
        return Prediction(mean=np.asarray(self.model.predict(X), dtype=np.float64).ravel())
