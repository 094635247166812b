"""Adapters: any scikit-learn-style regressor (S and A losses) or classifier with
``predict_proba`` (Z, Q and L) as a DELVE method.

A method YAML can point ``plugin`` straight at an estimator class, e.g.
``sklearn.ensemble:RandomForestRegressor`` with ``params: {n_estimators: 100}``; the
method's seeded generator fills ``random_state`` when the estimator has one.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ..defaults import CLASSIFICATION_LOSSES
from .base import FitContext, Method, Prediction


def is_sklearn_classifier(cls) -> bool:
    """True for an estimator class that predicts class probabilities."""
    return hasattr(cls, "predict_proba")


class SklearnRegressor(Method):
    """Wrap a regressor class (or ``"module:Class"``) with keyword parameters.

    Attributes
    ----------
    model_ : estimator
        The fitted estimator.
    """

    losses: tuple[str, ...] = ("S", "A")

    def __init__(self, estimator, **params):
        if isinstance(estimator, str):
            mod, _, attr = estimator.partition(":")
            estimator = getattr(importlib.import_module(mod), attr)
        self.estimator_cls = estimator
        self.params = params

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self.model_: Any = self._make(ctx)
        self.model_.fit(X, y)

    def _make(self, ctx: FitContext):
        params = dict(self.params)
        try:
            import inspect

            if "random_state" in inspect.signature(self.estimator_cls).parameters:
                params.setdefault("random_state", int(ctx.rng.integers(2**31 - 1)))
        except (TypeError, ValueError):
            pass
        return self.estimator_cls(**params)

    def predict(self, X: np.ndarray) -> Prediction:
        return Prediction(mean=np.asarray(self.model_.predict(X), dtype=float).ravel())


class SklearnClassifier(SklearnRegressor):
    """Wrap a classifier class with ``predict_proba``; its probabilities are spread over
    all the task's classes (a class absent from the training set gets probability 0).

    Attributes
    ----------
    model_ : estimator
        The fitted estimator.
    n_classes_ : int
        The number of classes of the task.
    """

    losses = CLASSIFICATION_LOSSES

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        self.n_classes_ = len(ctx.classes) or int(np.max(y)) + 1
        self.model_ = self._make(ctx)
        self.model_.fit(X, y)

    def predict(self, X: np.ndarray) -> Prediction:
        P = np.zeros((len(X), self.n_classes_))
        P[:, np.asarray(self.model_.classes_, dtype=np.intp)] = self.model_.predict_proba(X)
        return Prediction.of_probs(P)
