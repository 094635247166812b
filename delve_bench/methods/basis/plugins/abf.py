"""abf-1: all N basis functions with shared alpha, beta and ARD widths by conjugate
gradients on the marginal likelihood (Barrio et al. 2009 §6.2.1; :mod:`..abf`)."""

from __future__ import annotations

import numpy as np

from ...base import FitContext, Gaussian, Prediction
from ..abf import fit_abf
from .base import BayesMethod


class Abf(BayesMethod):
    """abf-1. One work unit = one CG iteration.

    Parameters
    ----------
    max_iterations : int
        CG iterations at most (the budget may end it sooner).

    Attributes
    ----------
    fit_ : AbfFit
        The fitted model: widths, alpha, beta and the posterior on all N centres.
    """

    def __init__(self, max_iterations: int = 100):
        self.max_iterations = max_iterations

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        self.fit_ = fit_abf(Xs, t, max_iterations=self.max_iterations, stop=ctx.budget.exhausted)
        f = self.fit_
        ctx.info.update(
            n_basis=len(Xs),
            widths=f.widths,
            alpha=f.alpha,
            beta=f.beta,
            log_ml=f.log_ml,
            cg_iterations=f.iterations,
            evaluations=f.evaluations,
        )

    def predict(self, X: np.ndarray) -> Prediction:
        mean, var = self.fit_.predict(self.scaling_.inputs(X))
        mean = mean + self.scaling_.t_mean
        return Prediction(mean=mean, median=mean, density=Gaussian(mean, var))
