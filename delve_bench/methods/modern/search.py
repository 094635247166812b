"""The tuning protocol shared by the modern baselines (docs/methods/modern.md).

Inside the training set only:

1. the n training cases are split once into k folds (a seeded permutation cut into k
   parts whose sizes differ by at most one);
2. configurations 0, 1, 2, ... of the seeded search sequence (:mod:`.space`) are evaluated
   in turn: on each fold the learner is trained on the other k - 1 folds, its validation
   MSE recorded after every boosting round, and stopped ``patience`` rounds after that
   fold's best round (or at ``max_rounds``); the configuration's score is the MSE of the
   n held-out predictions pooled, each fold's at its best round, and its number of rounds
   the mean of the folds' best rounds, rounded;
3. the search stops at the budget: in ``work`` mode after ``budget.work`` configurations
   (bit-reproducible); in ``cpu`` mode when another configuration, at the mean CPU cost
   of those done, would pass 90 % of the CPU budget (the rest is for the refit);
   configuration 0 always runs;
4. the configuration with the lowest score (the earlier on a tie) is refitted on all n
   cases with its number of rounds.

Learners without rounds (random forests) give a curve of length one.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import Budget, FitContext, Method, Prediction
from .space import configuration, parse_space

#: share of a cpu budget the search may use; the rest is left for the refit
SEARCH_SHARE = 0.9


def kfold(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """k (train, validation) index pairs partitioning ``range(n)``.

    Parameters
    ----------
    n : int
        Number of training cases.
    k : int
        Number of folds, 2 <= k <= n.
    seed : int
        Seed of the permutation.

    Returns
    -------
    list of (ndarray, ndarray)
        For each fold, the sorted training and validation indices; the validation sets
        partition ``range(n)`` and their sizes differ by at most one.
    """
    if not 2 <= k <= n:
        raise ValueError(f"{k}-fold cross-validation needs 2 <= k <= n = {n}")
    perm = np.random.default_rng(seed).permutation(n)
    parts = np.array_split(perm, k)
    out = []
    for j, val in enumerate(parts):
        train = np.concatenate([p for i, p in enumerate(parts) if i != j])
        out.append((np.sort(train), np.sort(val)))
    return out


def cv_score(curves: list[np.ndarray], sizes: list[int]) -> tuple[float, int]:
    """A configuration's cross-validation score and number of rounds.

    Each fold's curve is cut at its own best round (its first minimum), as early stopping
    cuts it: a fold whose validation loss rises from the first round does not cut the
    others short.

    Parameters
    ----------
    curves : list of ndarray of shape (rounds_f,)
        Each fold's validation MSE after each round.
    sizes : list of int
        Each fold's number of validation cases.

    Returns
    -------
    score : float
        The pooled MSE of all held-out predictions, each fold's at its best round (the
        case-weighted mean of the folds' minima).
    rounds : int
        The mean of the folds' best rounds (1-based), rounded to the nearest, at least 1.
    """
    if any(len(c) == 0 for c in curves):
        raise ValueError("a fold recorded no validation loss")
    best = np.array([int(np.argmin(c)) for c in curves])
    minima = np.array([float(c[b]) for c, b in zip(curves, best, strict=True)])
    w = np.asarray(sizes, dtype=float)
    return float(w @ minima / w.sum()), max(1, int(np.floor(np.mean(best + 1) + 0.5)))


def search_done(budget: Budget, done: int, total: float) -> bool:
    """The stopping rule of step 3 after ``done`` configurations.

    Parameters
    ----------
    budget : Budget
        The instance's budget (finite).
    done : int
        Configurations evaluated so far (>= 1).
    total : float
        The budget's allowance (``budget.total``).

    Returns
    -------
    bool
        ``work`` mode: ``done >= total``; ``cpu`` mode: True when one more configuration,
        at the mean CPU cost of those done, would pass :data:`SEARCH_SHARE` of ``total``.
    """
    if budget.mode == "work":
        return done >= total
    used = budget.used_cpu()
    return used + used / done > SEARCH_SHARE * total


@dataclass(frozen=True)
class Trial:
    """One evaluated configuration: its index, parameters, rounds, CV MSE and CPU cost."""

    index: int
    config: dict
    rounds: int
    cv_mse: float
    cpu_seconds: float


class TunedMethod(Method):
    """Base class of the modern baselines: the protocol above around a library learner.

    Subclasses implement :meth:`curve`, :meth:`refit` and :meth:`predict_model`, and name
    their library in ``requires``.

    Parameters
    ----------
    space : dict
        The search space (:func:`~.space.parse_space`).
    fixed : dict
        Library parameters common to every configuration (they override the defaults).
    first_config : dict
        Parameters of configuration 0 that differ from the library's defaults.
    folds : int
        k of the k-fold cross-validation.
    max_rounds : int or None
        Most boosting rounds per fit (None: a learner without rounds).
    patience : int or None
        Rounds without improvement on the validation fold after which a fit stops.

    Attributes
    ----------
    model_ : object
        The library's model, refitted on the whole training set with the chosen
        configuration.
    """

    losses: tuple[str, ...] = ("S", "A")
    #: the method's name, for its errors
    label = "tuned method"

    def __init__(
        self,
        space: dict,
        fixed: dict | None = None,
        first_config: dict | None = None,
        folds: int = 5,
        max_rounds: int | None = None,
        patience: int | None = None,
    ):
        self.dims = parse_space(space)
        self.fixed = dict(fixed or {})
        self.first_config = dict(first_config or {})
        if int(folds) != folds or folds < 2:
            raise ValueError(f"folds must be a whole number >= 2, not {folds}")
        self.folds = int(folds)
        for name, v in (("max_rounds", max_rounds), ("patience", patience)):
            if v is not None and (int(v) != v or v < 1):
                raise ValueError(f"{name} must be a whole number >= 1, not {v}")
        self.max_rounds = max_rounds
        self.patience = patience

    # -- what a library adapter implements ------------------------------------------
    @abstractmethod
    def curve(
        self, params: dict, X: np.ndarray, y: np.ndarray, Xv: np.ndarray, yv: np.ndarray, seed: int
    ) -> np.ndarray:
        """Train on (X, y) with ``params`` and return the validation MSE on (Xv, yv) after
        each round, shape (rounds,), stopping ``patience`` rounds after the best."""

    @abstractmethod
    def refit(self, params: dict, rounds: int, X: np.ndarray, y: np.ndarray, seed: int) -> Any:
        """Train on all of (X, y) with ``params`` for ``rounds`` rounds; the fitted model."""

    @abstractmethod
    def predict_model(self, model: Any, X: np.ndarray) -> np.ndarray:
        """The model's predictions for X (t, m), shape (t,)."""

    def load(self) -> None:
        """Import the library's modules (and so its OpenMP runtime) before the fit limits
        them to one thread."""
        self.library_version()

    @abstractmethod
    def library_version(self) -> str:
        """``"library version"`` for meta.json."""

    # -- the protocol ----------------------------------------------------------------
    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        from threadpoolctl import threadpool_limits

        budget = ctx.budget
        total = budget.require_finite(self.label)
        space_seed, fold_seed, model_seed = (int(s) for s in ctx.rng.integers(2**31 - 1, size=3))
        X = np.ascontiguousarray(X, dtype=float)
        y = np.ascontiguousarray(y, dtype=float)
        splits = kfold(len(y), self.folds, fold_seed)
        sizes = [len(v) for _, v in splits]
        trials: list[Trial] = []
        self.load()  # before the limit: threadpoolctl limits only the libraries loaded
        with threadpool_limits(1):  # one thread: BLAS and OpenMP alike
            while True:
                cpu0 = time.process_time()
                cfg = configuration(self.dims, space_seed, len(trials), self.first_config)
                params = {**self.fixed, **cfg}
                curves = [
                    self.curve(params, X[tr], y[tr], X[va], y[va], model_seed) for tr, va in splits
                ]
                score, rounds = cv_score(curves, sizes)
                trials.append(Trial(len(trials), cfg, rounds, score, time.process_time() - cpu0))
                ctx.progress(min(1.0, budget.fraction(len(trials))))
                if search_done(budget, len(trials), total):
                    break
            chosen = min(trials, key=lambda t: (t.cv_mse, t.index))
            self.model_: Any = self.refit(
                {**self.fixed, **chosen.config}, chosen.rounds, X, y, model_seed
            )
        ctx.info.update(
            library=self.library_version(),
            configurations=len(trials),
            chosen=chosen.index,
            params=chosen.config,
            rounds=chosen.rounds,
            cv_mse=chosen.cv_mse,
            default_cv_mse=trials[0].cv_mse,
            search_cpu_seconds=round(sum(t.cpu_seconds for t in trials), 4),
        )

    def predict(self, X: np.ndarray) -> Prediction:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            mean = np.asarray(self.predict_model(self.model_, np.asarray(X, dtype=float)))
        return Prediction(mean=mean.astype(float).ravel())
