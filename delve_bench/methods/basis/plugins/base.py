"""What every basis-function plugin shares.

Every plugin applies Barrio et al.'s preprocessing to the harness' encoded data (inputs to
[-1, 1], targets centred; Barrio et al. 2009 §6.2.3, read as covering all their experiments;
docs/methods/basis.md) and uses a dictionary of Gaussian RBFs centred on the training
inputs. The widths come from a pluggable stage: ``"abf"`` (ABF's marginal-likelihood widths,
Barrio et al. §6.2.1), or Orr's scale grid chosen by the final model-selection criterion
(the scale list of Orr's ``rbf_fs_2``). The Bayesian methods (ABF, RVM, SSGE) serve S, A and
L; the others S and A.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import numpy as np

from ....defaults import REGRESSION_LOSSES
from ...base import FitContext, Gaussian, Method, Prediction
from ..design import Scaling, rbf_design
from ..evidence import EvidenceState
from ..widths import WidthStage, width_stage


class BasisMethod(Method):
    """Shared plumbing: scaling, the width stage, linear prediction on chosen centres.

    Attributes
    ----------
    scaling_ : Scaling
        The input and target scaling fitted on the training set.
    centres_ : ndarray of shape (k, m)
        The chosen centres (scaled inputs).
    widths_ : ndarray of shape (m,) or float
        The RBF widths.
    w_ : ndarray of shape (k,) or (k + 1,)
        The weights (the bias last when ``bias_``).
    bias_ : bool
        Whether the design has a trailing column of ones.
    """

    losses: tuple[str, ...] = ("S", "A")
    width_iterations = 100
    width_max_n = 2048
    #: the fewest training cases the method can fit (fewer: a one-line ValueError)
    min_cases = 1

    def _prepare(self, X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if len(y) < self.min_cases:
            raise ValueError(
                f"{type(self).__name__} needs at least {self.min_cases} training cases, "
                f"not {len(y)}"
            )
        self.scaling_ = Scaling.fit(X, y)
        return self.scaling_.inputs(X), self.scaling_.target(y)

    def _abf_widths(self, Xs: np.ndarray, t: np.ndarray, ctx: FitContext) -> WidthStage:
        # The width stage may take half of a CPU budget. It spends none of the work units
        # (they count the main stage's steps), so in work mode only its own iteration
        # limit ends it: it is then a function of the training set alone, computed once
        # per training set and shared through the runner's stage store (.widths).
        def stop(_iterations: int) -> bool:
            return ctx.budget.exhausted(0, share=0.5)

        shared = ctx.budget.mode == "work" and not stop(0)
        stage = width_stage(
            Xs,
            t,
            max_n=self.width_max_n,
            max_iterations=self.width_iterations,
            stop=None if shared else stop,
            store=ctx.stages if shared else None,
        )
        record_width_stage(ctx, stage)
        ctx.info.update(widths=stage.widths, width_stage_log_ml=stage.optimum.log_ml)
        return stage

    def _set_linear(
        self,
        centres: np.ndarray,
        widths: np.ndarray | float,
        weights: np.ndarray,
        bias: bool = False,
    ) -> None:
        self.centres_, self.widths_, self.w_, self.bias_ = centres, widths, weights, bias

    def _design(self, X: np.ndarray) -> np.ndarray:
        return rbf_design(self.scaling_.inputs(X), self.centres_, self.widths_, bias=self.bias_)

    def predict(self, X: np.ndarray) -> Prediction:
        mean = self._design(X) @ self.w_ + self.scaling_.t_mean
        return Prediction(mean=mean, median=mean)


class BayesMethod(BasisMethod):
    """A basis method with a Gaussian posterior over its weights: it serves L too.

    Attributes
    ----------
    post_ : EvidenceState
        The posterior of the weights of the chosen centres.
    """

    losses = REGRESSION_LOSSES

    def _set_posterior(
        self, centres: np.ndarray, widths: np.ndarray | float, state: EvidenceState
    ) -> None:
        self.centres_, self.widths_, self.bias_ = centres, widths, False
        self.post_ = state

    def predict(self, X: np.ndarray) -> Prediction:
        mean, var = self.post_.predict(self._design(X))
        mean = mean + self.scaling_.t_mean
        return Prediction(mean=mean, median=mean, density=Gaussian(mean, var))


def record_width_stage(ctx: FitContext, stage: WidthStage) -> None:
    """Record the width stage's CPU seconds (where it ran) and whether this fit reused it:
    a reusing fit's ``fit_cpu_seconds`` leaves the stage out, and the training time that is
    comparable with Barrio et al.'s (the ``scaling`` display) adds it back."""
    ctx.info.update(width_cpu_seconds=round(stage.cpu_seconds, 4), width_reused=stage.reused)


def orr_radii(Xs: np.ndarray) -> np.ndarray:
    """Orr's default radius per input dimension: the training range (rbf_fs_2)."""
    r = Xs.max(0) - Xs.min(0)
    return np.where(r > 0, r, 1.0)


Fit = TypeVar("Fit")


def best_scale(
    scales: Iterable[float], fit_at: Callable[[float], Fit], value: Callable[[Fit], float]
) -> tuple[float, Fit]:
    """Orr's choice of the radius scale (the scale list of ``rbf_fs_2``): fit at every scale
    and keep the fit with the
    lowest final criterion ``value(fit)`` (the first one on ties)."""
    best: tuple[float, Fit] | None = None
    for s in scales:
        fit = fit_at(s)
        if best is None or value(fit) < value(best[1]):
            best = (s, fit)
    if best is None:
        raise ValueError("no radius scales to choose from")
    return best
