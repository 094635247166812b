"""svm-class-1: the two-class support vector machine with a Gaussian kernel and Platt's
probabilities (scikit-learn's libsvm, an optional dependency like svm-1's).

* kernel ``exp(-||x - x'||^2 / tau)`` on the encoded inputs, ``tau = s * median_{i<j}
  ||x_i - x_j||^2`` of the training inputs with s in {1/16, ..., 4} (the grid of
  ofs-loomi-1), and C in {0.1, 1, 10, 100, 1000}: the pair with the lowest 5-fold
  cross-validated error rate (stratified folds from the method's seeded generator; ties:
  the smaller s, then the smaller C: the smoother machine);
* the machine refitted on the whole training set with that pair;
* probabilities by Platt's (1999) sigmoid on out-of-fold decision values of the same 5
  folds (his recommendation: not on the values of the training cases themselves), so the
  most probable class can differ from the sign of the decision value near the boundary;
* model size: the number of support vectors.
"""

from __future__ import annotations

import numpy as np

from ..base import Classifier, FitContext, Prediction
from .ofs import SCALES, median_sq_distance
from .platt import fit_platt

C_GRID = (0.1, 1.0, 10.0, 100.0, 1000.0)


class SvmClass(Classifier):
    """svm-class-1 (see the module docstring).

    Parameters
    ----------
    folds : int
        K of the stratified cross-validation.
    scales : sequence of float
        The kernel widths, multiples of the median squared pairwise distance.
    C_grid : sequence of float
        The C values.

    Attributes
    ----------
    single_ : int or None
        The class of a training set with one class (then no machine is fitted).
    platt_ : Platt
        The sigmoid from out-of-fold decision values to probabilities.
    svc_ : sklearn.svm.SVC
        The machine refitted on the whole training set.
    """

    max_classes = 2
    requires = {"sklearn": "sklearn"}

    def __init__(self, folds: int = 5, scales=SCALES, C_grid=C_GRID):
        self.folds, self.scales, self.C_grid = folds, tuple(scales), tuple(C_grid)

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        from sklearn.model_selection import (  # checked: ``requires``
            GridSearchCV,
            StratifiedKFold,
            cross_val_predict,
        )
        from sklearn.svm import SVC

        self._classes(y, ctx)
        y = np.asarray(y)
        med = median_sq_distance(X)
        self.single_ = None
        if len(np.unique(y)) < 2:  # one class in the training set: nothing to separate
            self.single_ = int(y[0])
            ctx.info.update(model_size=0)
            return
        folds = min(self.folds, int(np.bincount(y).min()))
        cv = StratifiedKFold(max(folds, 2), shuffle=True, random_state=int(ctx.rng.integers(2**31)))
        grid = {"gamma": [1.0 / (s * med) for s in self.scales], "C": list(self.C_grid)}
        search = GridSearchCV(SVC(kernel="rbf"), grid, cv=cv, scoring="accuracy")
        search.fit(X, y)
        best = search.best_params_
        svc = SVC(kernel="rbf", **best)
        f = cross_val_predict(svc, X, y, cv=cv, method="decision_function")
        self.platt_ = fit_platt(f, np.where(y == 1, 1, -1))
        self.svc_ = svc.fit(X, y)
        ctx.info.update(
            model_size=int(len(self.svc_.support_)),
            C=best["C"],
            tau=1.0 / best["gamma"],
            scale=1.0 / (best["gamma"] * med),
            cv_error=1.0 - float(search.best_score_),
            platt_A=self.platt_.A,
            platt_B=self.platt_.B,
        )

    def decision(self, X: np.ndarray) -> np.ndarray:
        return self.svc_.decision_function(X)

    def predict(self, X: np.ndarray) -> Prediction:
        P = np.zeros((len(X), 2))
        if self.single_ is not None:
            P[:, self.single_] = 1.0
        else:
            p1 = self.platt_.prob_positive(self.decision(X))
            P[:, 0], P[:, 1] = 1.0 - p1, p1
        return Prediction.of_probs(P)


SvmClass1 = SvmClass  # the plugin name of method YAMLs written before the rename
