"""The modern baselines: gradient-boosted trees (XGBoost, LightGBM, CatBoost, scikit-learn's
HistGradientBoostingRegressor) and random forests, each tuned inside the training set by
one protocol (docs/methods/modern.md).

:mod:`.space` draws the seeded sequence of configurations, :mod:`.search` runs the
k-fold search under the budget and refits; :mod:`.xgb`, :mod:`.lgbm`, :mod:`.cat` and
:mod:`.sk` adapt each library (imported only when a method fits: every library is an
optional extra, named in the plugin's ``requires``).
"""

from .cat import CatBoost1
from .lgbm import LightGBM1
from .search import TunedMethod
from .sk import HistGradientBoosting1, RandomForest1
from .xgb import XGBoost1

__all__ = [
    "CatBoost1",
    "HistGradientBoosting1",
    "LightGBM1",
    "RandomForest1",
    "TunedMethod",
    "XGBoost1",
]
