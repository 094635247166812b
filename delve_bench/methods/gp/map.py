"""gp-map-1: the GP with MAP hyperparameters found by conjugate gradients
(Rasmussen 1996 §4.5, C ``gp-map.c`` in App. A.5; docs/methods/gp.md).

A single CG run (:mod:`delve_bench.numerics.cg`, thesis App. B) from the thesis' initial
values, no restarts, minimising the negative log posterior of :mod:`.model`. Stopping
(docs/methods/gp.md, gp-map-1 departure 3): the thesis' "about 150 function and gradient
evaluations" (``max_evals``), or two consecutive failed line searches. Budget modes:
``work`` -- the budget's work units are evaluations (the YAML gives 150); ``cpu`` --
``max_evals`` evaluations with the budget's CPU seconds as an additional cap, checked
between line searches. The final hyperparameters are the last CG point, which with the
non-faithful line search is also the best one found.

Predictions are the Gaussian N(mu, s^2) of eq. 4.10 (s^2 includes the noise). A: the exact
median mu (departure 1); ``faithful_median=True`` gives the C code's median of 11 draws.
"""

from __future__ import annotations

import numpy as np

from ...defaults import REGRESSION_LOSSES
from ...numerics.cg import minimize
from ...numerics.mixture import sampled_median
from ..base import FitContext, Gaussian, Method, Prediction
from .model import GPObjective, Hyper, Posterior, initial_theta


class GpMap(Method):
    """gp-map-1 (see the module docstring).

    Attributes
    ----------
    theta_ : ndarray of shape (m + 4,)
        The MAP hyperparameters, logs of the m inverse squared length scales, v0, a0, a1
        and the noise variance (:class:`.model.Hyper`).
    post_ : Posterior
        The GP posterior at ``theta_`` on the training set.
    rng_ : numpy.random.Generator
        The fit's generator (drawn from only with ``faithful_median``).
    """

    losses = REGRESSION_LOSSES

    def __init__(
        self,
        max_evals: int = 150,
        faithful_median: bool = False,
        faithful_line_search: bool = False,
    ):
        self.max_evals = int(max_evals)
        self.faithful_median = faithful_median
        self.faithful_line_search = faithful_line_search

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        obj = GPObjective(X, y)
        budget = ctx.budget
        # a work budget counts evaluations and replaces the method's own limit (the same
        # 150 in the YAML); a CPU budget caps the run besides
        max_evals = self.max_evals if budget.work is None else int(budget.work)

        def progress(cg, ls) -> bool:
            ctx.progress(min(1.0, cg.evals / max_evals))
            return False

        res = minimize(
            obj,
            initial_theta(X.shape[1]),
            max_evals=max_evals,
            budget=budget,
            callback=progress,
            faithful=self.faithful_line_search,
        )
        self.theta_ = res.x
        self.post_ = Posterior.fit(X, y, res.x)
        self.rng_ = ctx.rng
        ctx.info.update(
            evaluations=res.evals,
            iterations=res.iterations,
            failed_line_searches=res.failed_line_searches,
            stop=res.status,
            neg_log_posterior=res.f,
            theta=res.x,
            hyper=Hyper.from_theta(res.x).as_dict(),
        )

    def predict(self, X: np.ndarray) -> Prediction:
        mu, var = self.post_.predict(X)
        if self.faithful_median:
            median = sampled_median(mu[:, None], var[:, None], self.rng_)
        else:
            median = mu
        return Prediction(mean=mu, median=median, density=Gaussian(mu, var))
