"""Orr's (1996) family: ols-gcv-1, rols-1 and ofr-loo-1 (forward selection with modified
Gram-Schmidt, :mod:`..orthogonal`), ridge-1 (global ridge, :mod:`..ridge`) and
local-ridge-1 (one lambda per centre, :mod:`..local_ridge`), each on Orr's radius-scale
grid chosen by its final model-selection criterion."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...base import FitContext
from ..design import rbf_design
from ..local_ridge import Start, local_ridge, starting_model
from ..orthogonal import OrthogonalSelection, run_selection
from ..ridge import RidgeFit, global_ridge
from ..stopping import OrrStop
from .base import BasisMethod, best_scale, orr_radii

#: Orr's radius scales (the list of ``rbf_fs_2``)
SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)


def _value(fit: _Selected | RidgeFit) -> float:
    return fit.value


class _Selected(NamedTuple):
    """One forward selection at one radius scale."""

    sel: OrthogonalSelection
    m: int  # terms kept
    value: float  # the stopping criterion there
    lam: float  # the global ridge parameter used by the weights


class OrrForward(BasisMethod):
    """ols-gcv-1 / rols-1 / ofr-loo-1: forward selection with MGS (Orr §7.1, §7.3);
    optional global lambda re-estimated one step per selection; Orr's wait/thresh stop on a
    GCV-like criterion; the radius scale from ``scales`` chosen by the final criterion.

    Parameters
    ----------
    criterion : str
        The model-selection criterion (``"gcv"``, ``"loo"``, ...; :mod:`..criteria`).
    score : str
        What picks the next term (``"sse"``: the largest error reduction).
    lam : float
        The global ridge parameter (0: plain OLS).
    reest : bool
        Re-estimate lambda one step per selection (rols-1).
    wait, thresh : int, float
        Orr's stopping rule: stop ``wait`` steps after the criterion's minimum.
    scales : tuple of float
        The radius scales tried.
    max_terms : int
        The most terms selected.
    """

    def __init__(
        self,
        criterion: str = "gcv",
        score: str = "sse",
        lam: float = 0.0,
        reest: bool = False,
        wait: int = 2,
        thresh: float = 1e4,
        scales: tuple[float, ...] = SCALES,
        max_terms: int = 500,
    ):
        self.criterion, self.score, self.lam, self.reest = criterion, score, lam, reest
        self.wait, self.thresh, self.scales, self.max_terms = wait, thresh, scales, max_terms

    def _select(self, F: np.ndarray, t: np.ndarray) -> _Selected:
        sel = OrthogonalSelection(
            F, t, lam=self.lam, score=self.score, criterion=self.criterion, reest=self.reest
        )
        stopper = OrrStop(self.wait, self.thresh)
        m = run_selection(sel, stopper, min(self.max_terms, F.shape[1]))
        lam = sel.lam_history[m - 1] if (self.reest and m) else self.lam
        return _Selected(sel=sel, m=m, value=stopper.best, lam=lam)

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        base = orr_radii(Xs)
        s, r = best_scale(
            self.scales, lambda s: self._select(rbf_design(Xs, Xs, s * base), t), _value
        )
        widths = s * base
        self._set_linear(Xs[r.sel.sel[: r.m]], widths, r.sel.weights(r.m, r.lam))
        ctx.info.update(
            n_basis=r.m, scale=s, widths=widths, criterion_value=r.value, **{"lambda": r.lam}
        )


class OrrRidge(BasisMethod):
    """ridge-1: global ridge on all N centres, lambda re-estimated to convergence from
    several starts (Orr §6.2), the radius scale chosen by the final criterion.

    Parameters
    ----------
    criterion : str
        The criterion lambda minimises (``"gcv"``, ...).
    scales : tuple of float
        The radius scales tried.
    """

    def __init__(self, criterion: str = "gcv", scales: tuple[float, ...] = SCALES):
        self.criterion, self.scales = criterion, scales

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        base = orr_radii(Xs)
        s, fit = best_scale(
            self.scales,
            lambda s: global_ridge(rbf_design(Xs, Xs, s * base), t, self.criterion),
            _value,
        )
        self._set_linear(Xs, s * base, fit.weights)
        ctx.info.update(
            n_basis=len(Xs),
            scale=s,
            widths=s * base,
            criterion_value=fit.value,
            gamma=fit.gamma,
            **{"lambda": fit.lam},
        )


class LocalRidgeMethod(BasisMethod):
    """local-ridge-1: Orr's local ridge regression (§6.3-6.4), one lambda per centre set to
    its GCV minimiser in sweeps until GCV stops falling; lambda = inf prunes a centre. It
    post-processes a starting model: by default global ridge on all centres (ORR's option
    a; ``init="ols"``: the OLS-GCV subset at lambda 0, option b), whose own GCV also picks
    the radius scale. One work unit = one sweep.

    Parameters
    ----------
    init : {"ridge", "ols"}
        The starting model.
    scales : tuple of float
        The radius scales tried.
    max_sweeps : int
        The most GCV sweeps.
    tol : float
        Sweeps stop when GCV falls by less than this fraction.
    wait, thresh : int, float
        Orr's stopping rule of the ``"ols"`` starting model.
    """

    def __init__(
        self,
        init: str = "ridge",
        scales: tuple[float, ...] = SCALES,
        max_sweeps: int = 20,
        tol: float = 1e-4,
        wait: int = 2,
        thresh: float = 1e4,
    ):
        if init not in ("ols", "ridge"):
            raise ValueError(f"init must be 'ols' or 'ridge', not {init!r}")
        self.init, self.scales, self.max_sweeps, self.tol = init, scales, max_sweeps, tol
        self.wait, self.thresh = wait, thresh

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        base = orr_radii(Xs)

        def start_at(s: float) -> tuple[Start, np.ndarray]:
            F = rbf_design(Xs, Xs, s * base)
            return starting_model(F, t, self.init, self.wait, self.thresh), F

        s, (start, F) = best_scale(self.scales, start_at, lambda sf: sf[0].gcv)
        fit = local_ridge(
            F, t, start, max_sweeps=self.max_sweeps, tol=self.tol, stop=ctx.budget.exhausted
        )
        self._set_linear(Xs[fit.active], s * base, fit.weights)
        ctx.info.update(
            n_basis=len(fit.active),
            n_initial=len(fit.initial),
            scale=s,
            widths=s * base,
            gcv=fit.gcv,
            gamma=fit.gamma,
            sweeps=fit.sweeps,
            gcv_history=fit.history,
            lambdas=fit.lam,
        )
