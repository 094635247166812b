"""lightgbm-1: LightGBM (Ke et al. 2017) under the tuning protocol of :mod:`.search`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .search import TunedMethod


class LightGBM(TunedMethod):
    """Leaf-wise gradient-boosted trees by LightGBM's native API (squared error, one thread,
    ``deterministic``); rounds by early stopping on the inner folds."""

    requires = {"lightgbm": "lightgbm"}
    label = "lightgbm-1"

    def _params(self, params: dict, seed: int) -> dict:
        base = {
            "objective": "regression",
            "metric": "l2",
            "num_threads": 1,
            "deterministic": True,
            "force_col_wise": True,  # the same histogram layout whatever the data's shape
            "seed": seed,
            "verbosity": -1,
        }
        return base | params

    @staticmethod
    def _data(X, y, params, reference=None):
        import lightgbm as lgb

        # feature_pre_filter off: min_data_in_leaf varies between configurations
        return lgb.Dataset(
            X, label=y, reference=reference, params={"feature_pre_filter": False, "verbosity": -1}
        )

    def curve(self, params, X, y, Xv, yv, seed) -> np.ndarray:
        import lightgbm as lgb

        train = self._data(X, y, params)
        val = self._data(Xv, yv, params, reference=train)
        record: dict = {}
        callbacks = [lgb.record_evaluation(record)]
        if self.patience:
            callbacks.append(
                lgb.early_stopping(self.patience, first_metric_only=True, verbose=False)
            )
        lgb.train(
            self._params(params, seed),
            train,
            num_boost_round=self.max_rounds or 1,
            valid_sets=[val],
            valid_names=["val"],
            callbacks=callbacks,
        )
        return np.asarray(record["val"]["l2"], dtype=float)

    def refit(self, params, rounds, X, y, seed) -> Any:
        import lightgbm as lgb

        return lgb.train(
            self._params(params, seed), self._data(X, y, params), num_boost_round=rounds
        )

    def predict_model(self, model, X) -> np.ndarray:
        return model.predict(X, num_threads=1)

    def library_version(self) -> str:
        import lightgbm

        return f"lightgbm {lightgbm.__version__}"
