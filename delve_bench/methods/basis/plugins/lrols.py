"""lrols-loo-1: locally regularised orthogonal forward regression with the
leave-one-out criterion (Chen, Hong, Harris & Sharkey 2004; :mod:`..lrols`) on Orr's
radius-scale grid."""

from __future__ import annotations

import numpy as np

from ...base import FitContext
from ..design import rbf_design
from ..lrols import LrolsFit, lrols_loo
from .base import BasisMethod, best_scale, orr_radii
from .orr import SCALES


class LrolsLoo(BasisMethod):
    """lrols-loo-1: OFR-LOO selection with one lambda per term, the lambdas updated by
    global evidence iterations between selection runs until subset and lambdas settle (at
    most ``max_outer`` runs); radius scale chosen by the final LOO MSE. One work unit = one
    selection run.

    Parameters
    ----------
    lam_init : float
        Every term's starting lambda.
    max_outer : int
        The most selection runs.
    scales : tuple of float
        Multiples of the input ranges tried as RBF widths.
    max_terms : int
        The longest subset one selection run may grow.
    """

    def __init__(
        self,
        lam_init: float = 1e-6,
        max_outer: int = 10,
        scales: tuple[float, ...] = SCALES,
        max_terms: int = 500,
    ):
        self.lam_init, self.max_outer, self.scales = lam_init, max_outer, scales
        self.max_terms = max_terms

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        base = orr_radii(Xs)

        def fit_at(s: float) -> LrolsFit:
            return lrols_loo(
                rbf_design(Xs, Xs, s * base),
                t,
                lam_init=self.lam_init,
                max_outer=self.max_outer,
                max_terms=self.max_terms,
                stop=ctx.budget.exhausted,
            )

        s, fit = best_scale(self.scales, fit_at, lambda f: f.loo_mse)
        chosen = fit.sel.sel[: fit.m]
        self._set_linear(Xs[chosen], s * base, fit.sel.weights(fit.m))
        ctx.info.update(
            n_basis=fit.m,
            scale=s,
            widths=s * base,
            loo_mse=fit.loo_mse,
            outer_iterations=fit.outer,
            converged=fit.converged,
            lambdas=fit.lam[chosen],
            sizes_by_run=[m for m, _ in fit.history],
        )
