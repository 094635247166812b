"""rvm-1 and rvm-mdl-1: the fast relevance vector machine (Tipping & Faul 2003;
:mod:`..rvm`) on the N RBFs, with the ABF widths (rvm-1, Barrio et al. 2009 §2.1, §6.2)
or one isotropic width chosen by the MDL code length (rvm-mdl-1, Anguita & Gagliolo;
:mod:`..mdl`)."""

from __future__ import annotations

from itertools import takewhile

import numpy as np

from ...base import FitContext
from ..design import rbf_design
from ..rvm import fast_rvm
from .base import BayesMethod


class Rvm(BayesMethod):
    """rvm-1: Tipping & Faul's fast RVM on the N RBFs with the ABF widths.
    One work unit = one add/delete/re-estimate iteration.

    Parameters
    ----------
    width_iterations, width_max_n : int
        CG iterations and training cases of the width stage (beyond it a subset fixed by the
        training set, the same for every method: :mod:`..widths`).
    """

    min_cases = 2  # one case has no spread to estimate the noise from

    def __init__(self, width_iterations: int = 100, width_max_n: int = 2048):
        self.width_iterations, self.width_max_n = width_iterations, width_max_n

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        widths = self._abf_widths(Xs, t, ctx).widths
        B = rbf_design(Xs, Xs, widths)
        res = fast_rvm(B, t, stop=ctx.budget.exhausted)
        st = res.state
        self._set_posterior(Xs[st.idx], widths, st)
        ctx.info.update(
            n_basis=st.M,
            iterations=res.iterations,
            adds=res.adds,
            deletes=res.deletes,
            reestimates=res.reestimates,
            converged=res.converged,
            alpha=st.alpha,
            beta=st.beta,
            log_ml=st.log_marginal(),
        )


class RvmMdl(BayesMethod):
    """rvm-mdl-1: fast RVM with a bias, one isotropic width chosen on a log10 grid by the
    MDL-alpha (or MDL-w) code length of Anguita & Gagliolo (eqs. 10, 14). One work unit = one
    grid point.

    Parameters
    ----------
    criterion : {"alpha", "w"}
        The code length minimised.
    log10_rho_min, log10_rho_max, step : float
        The grid of log10 rho.
    delta_w, delta_alpha : float
        The precisions of the coded weights and hyperparameters.

    Attributes
    ----------
    keep_ : ndarray of shape (k,)
        The columns of the design (centres, then the bias) that are relevance vectors.
    """

    min_cases = 2  # one case has no spread to estimate the noise from

    def __init__(
        self,
        criterion: str = "alpha",
        log10_rho_min: float = -1.0,
        log10_rho_max: float = 1.5,
        step: float = 0.1,
        delta_w: float = 0.1,
        delta_alpha: float = 1.0,
    ):
        if criterion not in ("alpha", "w"):
            raise ValueError(f"criterion must be 'alpha' or 'w', not {criterion!r}")
        self.criterion = criterion
        self.grid = np.round(np.arange(log10_rho_min, log10_rho_max + step / 2, step), 10)
        self.delta_w, self.delta_alpha = delta_w, delta_alpha

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        from ..mdl import mdl_curve

        Xs, t = self._prepare(X, y)
        stop = ctx.budget.exhausted
        # the grid points before the budget is spent (once spent it stays spent)
        grid = [g for _, g in takewhile(lambda ig: not stop(ig[0]), enumerate(self.grid))]
        pts = mdl_curve(
            Xs, t, np.array(grid or list(self.grid[:1])), self.delta_w, self.delta_alpha
        )
        key = (lambda p: p.mdl_alpha) if self.criterion == "alpha" else (lambda p: p.mdl_w)
        best = min(pts, key=key)
        widths = np.sqrt(2.0) * best.rho
        st = best.state
        self.centres_, self.widths_, self.bias_, self.post_ = Xs, widths, True, st
        self.keep_ = np.asarray(st.idx)
        ctx.info.update(
            n_basis=st.M,
            rho=best.rho,
            widths=widths,
            alpha=st.alpha,
            beta=st.beta,
            mdl_curve={f"{np.log10(p.rho):.1f}": key(p) for p in pts},
            n_rv_curve={f"{np.log10(p.rho):.1f}": p.n_rv for p in pts},
        )

    def _design(self, X: np.ndarray) -> np.ndarray:
        return super()._design(X)[:, self.keep_]
