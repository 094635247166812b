"""mlp-ese-1: ensembles of MLPs trained by conjugate gradients with early stopping
(Rasmussen 1996 §3.6 and App. A.3; docs/methods/mlp.md).

Each member is the network of :mod:`.network` with the smallest H whose weight count reaches
the number of training cases left after a random floor(N/3) validation split, initialised
with ``randomizeNet(0.1)`` (App. A.3) and trained on the unregularised squared error with
the package's one CG minimiser (:mod:`delve_bench.numerics.cg`, thesis App. B), one line
search at a time. The validation error is computed after every line search and the weights
with the lowest (earliest on ties) are kept. A member stops, in order of precedence, when
(thesis §3.6)

1. CG has converged (two consecutive failed line searches);
2. it has used ``min(total/3, total - used)`` of the budget;
3. it has done at least 250 iterations, at least 1.5 x the iteration of its best
   validation error, and at least total/50 of the budget.

Members are trained until the budget is spent or 50 exist; a member that finishes after
the budget is kept only if fewer than 3 exist. The prediction (for S and A; no L) is the
ensemble mean.

Budget units. ``cpu`` mode: process CPU seconds, the thesis' 1.875 s per training case
(scaled by the harness' time scale). ``work`` mode: training *evaluations* (epochs: one
error + gradient over the Nt training cases, counted by CG including the start point),
so the run is deterministic; the same rules apply with time replaced by evaluations.

Readings taken (docs/methods/mlp.md, mlp-ese-1 departures 1-4): a uniform random permutation
for each member's split; H >= 1; init 0.1/sqrt(fan-in) with the bias in the fan-in; CG as in
:mod:`delve_bench.numerics.cg`.
"""

from __future__ import annotations

import numpy as np

from ...numerics.cg import ConjugateGradient
from ..base import FitContext, Method, Prediction
from .network import MlpData, MlpShape, ese_hidden_units, forward, forward_many, random_weights


class MlpEse(Method):
    """Early-stopping MLP ensemble of Rasmussen (1996) §3.6 (constants of App. A.3).

    Attributes
    ----------
    shape_ : MlpShape
        The members' network: inputs, hidden units (chosen from the training-set size),
        outputs.
    members_ : ndarray of shape (k, n_weights)
        The weights of the k members kept; the prediction is their mean.
    """

    losses = ("S", "A")

    def __init__(
        self,
        min_ensemble: int = 3,
        max_ensemble: int = 50,
        validate_fraction: int = 3,
        early_stop_margin: float = 1.5,
        min_iteration: int = 250,
        init_scale: float = 0.1,
    ):
        self.min_ensemble = min_ensemble
        self.max_ensemble = max_ensemble
        self.validate_fraction = validate_fraction
        self.early_stop_margin = early_stop_margin
        self.min_iteration = min_iteration
        self.init_scale = init_scale

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        X = np.asarray(X, dtype=float)
        Y = np.asarray(y, dtype=float).reshape(len(X), -1)
        n, n_in = X.shape
        self._squeeze = np.ndim(y) == 1
        nv = n // self.validate_fraction
        self.shape_ = MlpShape(
            n_in, ese_hidden_units(n, n_in, Y.shape[1], self.validate_fraction), Y.shape[1]
        )
        budget = ctx.budget
        total = budget.require_finite("mlp-ese-1")
        used, done = 0.0, 0  # budget used by the members; training evaluations so far
        members: list[np.ndarray] = []
        log: list[dict] = []
        while used < total and len(members) < self.max_ensemble:
            perm = ctx.rng.permutation(n)  # uniform (docs/methods/mlp.md, mlp-ese-1 departure 1)
            va, tr = perm[:nv], perm[nv:]
            start = budget.used(done)
            w, rec = self._train_member(
                X[tr], Y[tr], X[va], Y[va], ctx, done, min(total / 3, total - used), total
            )
            done += rec["evals"]
            used += budget.used(done) - start
            rec["kept"] = bool(used < total or len(members) < self.min_ensemble)
            if rec["kept"]:
                members.append(w)
            log.append(rec)
            ctx.progress(min(1.0, used / total))
        self.members_ = np.array(members)
        kept = [r for r in log if r["kept"]]
        ctx.info.update(
            hidden_units=self.shape_.n_hidden,
            n_weights=self.shape_.n_weights,
            n_validation=nv,
            ensemble_size=len(members),
            nets_trained=len(log),
            iterations=[r["iterations"] for r in kept],
            epochs=[r["evals"] for r in kept],
            best_iteration=[r["best_iteration"] for r in kept],
            validation_error=[r["validation_error"] for r in kept],
            stop=[r["stop"] for r in kept],
            budget_units="cpu seconds" if budget.mode == "cpu" else "evaluations",
            budget_used=used,
        )

    def _train_member(self, Xt, Yt, Xv, Yv, ctx, done, net_limit, total):
        """Train one member from random weights, ``done`` training evaluations into the
        budget; return its best-validation weights and a record of its training."""
        data = MlpData(self.shape_, Xt, Yt)
        budget = ctx.budget
        start = budget.used(done)

        def elapsed() -> float:  # this member's share of the budget so far
            return budget.used(done + cg.evals) - start

        def val_error(w):
            R = forward(self.shape_, w, Xv) - Yv
            return float(np.vdot(R, R)) / max(1, len(Xv))

        w0 = random_weights(self.shape_, ctx.rng, self.init_scale)
        cg = ConjugateGradient(data.energy_grad, w0)
        best_err, best_w, best_it, it, stop = val_error(cg.x), cg.x.copy(), 0, 0, "budget"
        while elapsed() < net_limit:  # CG checks the timeout before iterating
            ls = cg.iterate()
            if ls is None:
                stop = "converged"
                break
            it += 1
            err = val_error(cg.x)
            if err < best_err:  # strict: the earliest minimum wins
                best_err, best_w, best_it = err, cg.x.copy(), it
            if cg.converged:
                stop = "converged"
                break
            spent = elapsed()
            if spent >= net_limit:
                break
            if (
                it >= self.early_stop_margin * best_it
                and it >= self.min_iteration
                and spent >= total / self.max_ensemble
            ):
                stop = "early"
                break
        rec = dict(
            iterations=it,
            evals=cg.evals,
            best_iteration=best_it,
            validation_error=best_err,
            stop=stop,
        )
        return best_w, rec

    def predict(self, X: np.ndarray) -> Prediction:
        F = forward_many(self.shape_, self.members_, np.asarray(X, dtype=float)).mean(axis=1)
        return Prediction(mean=F[:, 0] if self._squeeze else F)


MlpEse1 = MlpEse  # the plugin path delve_bench.methods.mlp.ese:MlpEse1 of older method YAMLs
