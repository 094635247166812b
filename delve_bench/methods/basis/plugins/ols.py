"""ols-cv-1: Barrio et al.'s plain OLS forward selection (Chen et al.) with the number of
basis functions by K-fold cross-validation, on the ABF widths (:mod:`..orthogonal`)."""

from __future__ import annotations

import numpy as np

from ...base import FitContext
from ..design import rbf_design
from ..orthogonal import OrthogonalSelection
from ..stopping import LookAheadStop
from .base import BasisMethod


class OlsCv(BasisMethod):
    """ols-cv-1: plain OLS forward selection, the number of BFs by K-fold CV with the
    look-ahead stopping rule on the fold-summed validation SSE, then a refit on the whole
    training set (Barrio et al. §6.2.2 gives no details; docs/methods/basis.md).

    Parameters
    ----------
    folds : int
        K of the cross-validation.
    width_iterations, width_max_n : int
        CG iterations and training cases of the width stage (beyond it a subset fixed by the
        training set, the same for every method: :mod:`..widths`).
    """

    def __init__(self, folds: int = 5, width_iterations: int = 100, width_max_n: int = 2048):
        self.folds = folds
        self.width_iterations, self.width_max_n = width_iterations, width_max_n

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        widths = self._abf_widths(Xs, t, ctx).widths
        n = len(t)
        fold = ctx.rng.permutation(n) % self.folds
        sels, vals = [], []
        for k in range(self.folds):
            tr, va = fold != k, fold == k
            F = rbf_design(Xs[tr], Xs[tr], widths)
            Fv = rbf_design(Xs[va], Xs[tr], widths)
            sels.append(OrthogonalSelection(F, t[tr], F_val=Fv))
            vals.append(t[va])
        stopper = LookAheadStop()
        m, max_m = 0, min(len(s.y) for s in sels)
        while m < max_m:
            if any(s.step() is None for s in sels):
                break
            m += 1
            err = sum(
                float(np.sum((v - s.val_prediction()) ** 2))
                for s, v in zip(sels, vals, strict=True)
            )
            if stopper.update(m, err):
                break
        m_star = max(stopper.best_m, 1)
        full = OrthogonalSelection(rbf_design(Xs, Xs, widths), t)
        while full.m < m_star and full.step() is not None:
            pass
        self._set_linear(Xs[full.sel], widths, full.weights())
        ctx.info.update(n_basis=full.m, cv_sse=stopper.best, cv_steps=m, widths=widths)
