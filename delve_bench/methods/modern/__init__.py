"""The modern baselines: gradient-boosted trees (XGBoost, LightGBM, CatBoost, scikit-learn's
HistGradientBoostingRegressor) and random forests, each tuned inside the training set by
one protocol (docs/methods/modern.md).

:mod:`.space` draws the seeded sequence of configurations, :mod:`.search` runs the
k-fold search under the budget and refits; :mod:`.xgb`, :mod:`.lgbm`, :mod:`.cat` and
:mod:`.sk` adapt each library (imported only when a method fits: every library is an
optional extra, named in the plugin's ``requires``).

``CatBoost1`` ... ``XGBoost1`` are the names method YAMLs written before the classes lost
the YAML version use.
"""

from .cat import CatBoost
from .lgbm import LightGBM
from .search import TunedMethod
from .sk import HistGradientBoosting, RandomForest
from .xgb import XGBoost

# the plugin paths delve_bench.methods.modern:<Class>1 of older method YAMLs
CatBoost1, LightGBM1, XGBoost1 = CatBoost, LightGBM, XGBoost
HistGradientBoosting1, RandomForest1 = HistGradientBoosting, RandomForest

__all__ = [
    "CatBoost",
    "CatBoost1",
    "HistGradientBoosting",
    "HistGradientBoosting1",
    "LightGBM",
    "LightGBM1",
    "RandomForest",
    "RandomForest1",
    "TunedMethod",
    "XGBoost",
    "XGBoost1",
]
