"""xgboost-1: XGBoost (Chen & Guestrin 2016) under the tuning protocol of :mod:`.search`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .search import TunedMethod


class XGBoost(TunedMethod):
    """Gradient-boosted trees by XGBoost's native API (``hist`` trees, squared error, one
    thread); rounds by early stopping on the inner folds."""

    requires = {"xgboost": "xgboost"}
    label = "xgboost-1"

    def _params(self, params: dict, seed: int) -> dict:
        base = {
            "objective": "reg:squarederror",
            "tree_method": "hist",
            "eval_metric": "rmse",
            "nthread": 1,
            "seed": seed,
            "verbosity": 0,
        }
        return base | params

    def curve(self, params, X, y, Xv, yv, seed) -> np.ndarray:
        import xgboost as xgb

        dtrain, dval = xgb.DMatrix(X, label=y), xgb.DMatrix(Xv, label=yv)
        record: dict = {}
        xgb.train(
            self._params(params, seed),
            dtrain,
            num_boost_round=self.max_rounds or 1,
            evals=[(dval, "val")],
            early_stopping_rounds=self.patience,
            evals_result=record,
            verbose_eval=False,
        )
        return np.square(np.asarray(record["val"]["rmse"], dtype=float))

    def refit(self, params, rounds, X, y, seed) -> Any:
        import xgboost as xgb

        return xgb.train(self._params(params, seed), xgb.DMatrix(X, label=y), rounds)

    def predict_model(self, model, X) -> np.ndarray:
        import xgboost as xgb

        return model.predict(xgb.DMatrix(X))

    def library_version(self) -> str:
        import xgboost

        return f"xgboost {xgboost.__version__}"
