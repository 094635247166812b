"""abf-1: all N basis functions with shared alpha, beta and ARD widths by conjugate
gradients on the marginal likelihood (Barrio et al. 2009 §6.2.1; :mod:`..abf`). Its CG is
the other methods' width stage on all N cases, so it is shared with them (:mod:`..widths`)
when no budget can end it sooner than ``max_iterations``."""

from __future__ import annotations

import numpy as np

from ...base import FitContext, Gaussian, Prediction
from ..abf import abf_posterior
from ..widths import width_stage
from .base import BayesMethod, record_width_stage


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
        b = ctx.budget
        # in work mode a budget of at least max_iterations never ends the CG sooner than its
        # own limit: the CG is then the width stage on all N cases, shared with the others
        shared = b.mode == "work" and (b.work is None or b.work >= self.max_iterations)
        stage = width_stage(
            Xs,
            t,
            max_n=len(Xs),
            max_iterations=self.max_iterations,
            stop=None if shared else b.exhausted,
            store=ctx.stages if shared else None,
        )
        self.fit_ = f = abf_posterior(Xs, t, stage.optimum)
        record_width_stage(ctx, stage)
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
