"""rf-1 and hgb-1: scikit-learn's random forest (Breiman 2001) and histogram gradient
boosting under the tuning protocol of :mod:`.search`."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from .search import TunedMethod


class _SklearnTuned(TunedMethod):
    """What the two scikit-learn learners share: prediction and the library's version."""

    def predict_model(self, model, X) -> np.ndarray:
        return model.predict(X)

    def load(self) -> None:
        import sklearn.ensemble  # noqa: F401  (its OpenMP runtime, for the thread limit)

    def library_version(self) -> str:
        import sklearn

        return f"scikit-learn {sklearn.__version__}"


class RandomForest(_SklearnTuned):
    """A random forest of ``fixed.n_estimators`` trees (no rounds: each configuration's
    curve is its single cross-validation MSE)."""

    requires = {"sklearn": "sklearn"}
    label = "rf-1"

    def curve(self, params, X, y, Xv, yv, seed) -> np.ndarray:
        model = self.refit(params, 1, X, y, seed)
        return np.array([np.mean((model.predict(Xv) - yv) ** 2)])

    def refit(self, params, rounds, X, y, seed) -> Any:
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(**({"n_jobs": 1, "random_state": seed} | params)).fit(X, y)


class HistGradientBoosting(_SklearnTuned):
    """scikit-learn's HistGradientBoostingRegressor; its own early stopping on the inner
    validation fold (``X_val``, scikit-learn >= 1.7), the curve from ``staged_predict``."""

    requires = {"sklearn": "modern"}
    label = "hgb-1"

    def _model(self, params: dict, rounds: int, seed: int, stop: bool):
        from sklearn.ensemble import HistGradientBoostingRegressor as HGB

        if "X_val" not in inspect.signature(HGB.fit).parameters:
            raise RuntimeError(
                "hgb-1 needs scikit-learn >= 1.7 (X_val in HistGradientBoostingRegressor.fit): "
                "pip install -U 'delve-bench[modern]'"
            )
        base: dict = {"max_iter": rounds, "random_state": seed, "early_stopping": stop}
        if stop:
            base |= {"n_iter_no_change": self.patience or 10, "scoring": "loss", "tol": 0.0}
        return HGB(**(base | params))

    def curve(self, params, X, y, Xv, yv, seed) -> np.ndarray:
        model = self._model(params, self.max_rounds or 1, seed, stop=bool(self.patience))
        model.fit(X, y, X_val=Xv, y_val=yv)
        return np.array([np.mean((p - yv) ** 2) for p in model.staged_predict(Xv)])

    def refit(self, params, rounds, X, y, seed) -> Any:
        return self._model(params, rounds, seed, stop=False).fit(X, y)
