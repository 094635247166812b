"""catboost-1: CatBoost (Prokhorenkova et al. 2018) under the tuning protocol of
:mod:`.search`."""

from __future__ import annotations

from typing import Any

import numpy as np

from .search import TunedMethod


class CatBoost(TunedMethod):
    """Oblivious-tree gradient boosting by CatBoost (RMSE, one thread, no files written);
    rounds by its overfitting detector (``od_type: Iter``) on the inner folds.

    CatBoost picks a learning rate from the number of iterations when none is given, which
    a refit with fewer iterations would change; configuration 0 therefore names one
    (``first_config`` in the YAML)."""

    requires = {"catboost": "catboost"}
    label = "catboost-1"

    def _model(self, params: dict, iterations: int, seed: int, stop: bool):
        from catboost import CatBoostRegressor

        base: dict = {
            "loss_function": "RMSE",
            "iterations": iterations,
            "thread_count": 1,
            "random_seed": seed,
            "verbose": False,
            "allow_writing_files": False,  # else a catboost_info folder in the working dir
        }
        if stop and self.patience:
            base |= {"od_type": "Iter", "od_wait": self.patience, "use_best_model": False}
        return CatBoostRegressor(**(base | params))

    def curve(self, params, X, y, Xv, yv, seed) -> np.ndarray:
        model = self._model(params, self.max_rounds or 1, seed, stop=True)
        model.fit(X, y, eval_set=(Xv, yv))
        rmse = model.get_evals_result()["validation"]["RMSE"]
        return np.square(np.asarray(rmse, dtype=float))

    def refit(self, params, rounds, X, y, seed) -> Any:
        model = self._model(params, rounds, seed, stop=False)
        model.fit(X, y)
        return model

    def predict_model(self, model, X) -> np.ndarray:
        return model.predict(X, thread_count=1)

    def library_version(self) -> str:
        import catboost

        return f"catboost {catboost.__version__}"
