"""svm-1: epsilon-SVR with the ARD Gaussian kernel at the ABF widths (Barrio et al. 2009
§2.1, §6.2), on scikit-learn's libsvm (an optional dependency)."""

from __future__ import annotations

import numpy as np

from ...base import FitContext, Prediction
from .base import BasisMethod


class Svm(BasisMethod):
    """svm-1: epsilon-SVR with the ARD Gaussian kernel
    ``exp(-sum_d (x_d - x'_d)^2 / r_d^2)`` at the ABF widths (Barrio et al. modified LIBSVM
    for per-dimension widths), C and epsilon by 5-fold CV on a log grid (ours; the paper
    gives none: C in 10^-1..10^3, epsilon in {0.01, 0.03, 0.1, 0.3} x std(t)).
    Engine: scikit-learn's SVR (libsvm) on inputs divided by the widths, so its
    ``gamma = 1`` kernel is exactly the ARD kernel.

    Parameters
    ----------
    folds : int
        K of the cross-validation.
    C_grid, eps_grid : sequence of float
        The C values, and the epsilons as multiples of std(t).
    width_iterations, width_max_n : int
        CG iterations and training cases of the width stage (beyond it a subset fixed by the
        training set, the same for every method: :mod:`..widths`).

    Attributes
    ----------
    svr_ : sklearn.svm.SVR
        The machine refitted on the whole training set with the chosen C and epsilon.
    """

    requires = {"sklearn": "sklearn"}

    def __init__(
        self,
        folds: int = 5,
        C_grid=(0.1, 1.0, 10.0, 100.0, 1000.0),
        eps_grid=(0.01, 0.03, 0.1, 0.3),
        width_iterations: int = 100,
        width_max_n: int = 2048,
    ):
        self.folds, self.C_grid, self.eps_grid = folds, tuple(C_grid), tuple(eps_grid)
        self.width_iterations, self.width_max_n = width_iterations, width_max_n

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        from sklearn.model_selection import GridSearchCV, KFold  # checked: ``requires``
        from sklearn.svm import SVR

        Xs, t = self._prepare(X, y)
        self.widths_ = self._abf_widths(Xs, t, ctx).widths
        sd = float(np.std(t)) or 1.0
        grid = {"C": list(self.C_grid), "epsilon": [e * sd for e in self.eps_grid]}
        cv = KFold(self.folds, shuffle=True, random_state=int(ctx.rng.integers(2**31)))
        search = GridSearchCV(
            SVR(kernel="rbf", gamma=1.0), grid, cv=cv, scoring="neg_mean_squared_error"
        )
        search.fit(Xs / self.widths_, t)
        self.svr_ = search.best_estimator_
        ctx.info.update(
            n_basis=int(len(self.svr_.support_)),
            C=search.best_params_["C"],
            epsilon=search.best_params_["epsilon"],
            widths=self.widths_,
        )

    def predict(self, X: np.ndarray) -> Prediction:
        mean = self.svr_.predict(self.scaling_.inputs(X) / self.widths_) + self.scaling_.t_mean
        return Prediction(mean=mean, median=mean)
