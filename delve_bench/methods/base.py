"""The plugin interface every method implements.

A method sees encoded data only (DELVE's default encoding, fitted by the harness on the
training set) and returns a :class:`Prediction` in that encoded target space; the harness
decodes point predictions and adds the Jacobian to log densities before computing losses.

On a classification task (binary or nominal target) the targets arrive as class codes
0 .. C-1 (``ctx.classes`` names them) and the prediction is a :class:`Categorical`
distribution over the C classes; the harness scores it with Z, Q and L.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from ..defaults import CLASSIFICATION_LOSSES, REGRESSION_LOSSES

LOG2PI = float(np.log(2 * np.pi))


class Density(Protocol):
    """A predictive density per test case: ``logpdf(t)[j] = log p(t[j] | case j)``."""

    def logpdf(self, t: np.ndarray) -> np.ndarray: ...

    def variance(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Gaussian:
    """Independent Gaussian predictive distributions, one per test case.

    Parameters
    ----------
    mean, var : ndarray of shape (t,)
        Mean and variance (> 0) for each of the t test cases.
    """

    mean: np.ndarray
    var: np.ndarray

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        return -0.5 * (LOG2PI + np.log(self.var) + (t - self.mean) ** 2 / self.var)

    def variance(self) -> np.ndarray:
        return np.asarray(self.var, dtype=float)


@dataclass(frozen=True)
class GaussianMixture:
    """Per-case mixtures of Gaussians (the Monte Carlo methods' predictive distributions).

    Parameters
    ----------
    means, vars : ndarray of shape (t, k)
        Component means and variances for each of the t test cases.
    weights : ndarray of shape (k,)
        Component weights, summing to 1.
    """

    means: np.ndarray
    vars: np.ndarray
    weights: np.ndarray  # (components,), sums to 1

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        lp = -0.5 * (LOG2PI + np.log(self.vars) + (t[:, None] - self.means) ** 2 / self.vars)
        from scipy.special import logsumexp  # here: `delve run`'s parent never needs scipy

        return logsumexp(lp + np.log(self.weights)[None, :], axis=1)

    def mean(self) -> np.ndarray:
        return self.means @ self.weights

    def variance(self) -> np.ndarray:
        m = self.mean()
        return (self.vars + self.means**2) @ self.weights - m**2


@dataclass(frozen=True)
class Categorical:
    """Class probabilities per test case: ``probs[j, c] = P(class c | case j)``, shape
    (cases, classes), each row summing to 1."""

    probs: np.ndarray

    def logpmf(self, t: np.ndarray) -> np.ndarray:
        p = np.take_along_axis(self.probs, np.asarray(t, np.intp)[:, None], axis=1)[:, 0]
        with np.errstate(divide="ignore"):
            return np.log(p)


@dataclass(frozen=True)
class Prediction:
    """A method's predictions for the t test cases, in the encoded target space.

    Regression fills ``mean`` (scored by S), optionally ``median`` (A; the mean when None)
    and ``density`` (L; no L loss when None). Classification fills ``categorical`` (Z, Q
    and L), and optionally ``by_loss``; build it with :meth:`of_probs`.

    Parameters
    ----------
    mean : ndarray of shape (t,), optional
        Predictive means.
    median : ndarray of shape (t,), optional
        Predictive medians; defaults to the mean.
    density : Density, optional
        The predictive distribution, e.g. :class:`Gaussian` or :class:`GaussianMixture`;
        the harness adds the decoding Jacobian to its ``logpdf``.
    info : dict
        Facts about the prediction for meta.json.
    categorical : Categorical, optional
        Class probabilities of shape (t, classes).
    by_loss : dict of str to Categorical
        Other class distributions for some of the losses Z, Q, L (a method that tunes
        itself per loss, as knn-cv-1 does for S, A and L).
    """

    mean: np.ndarray | None = None
    median: np.ndarray | None = None
    density: Density | None = None
    info: dict = field(default_factory=dict)
    categorical: Categorical | None = None
    by_loss: dict[str, Categorical] = field(default_factory=dict)

    @classmethod
    def of_probs(
        cls, probs: np.ndarray, info: dict | None = None, by_loss: dict | None = None
    ) -> Prediction:
        """A classification prediction from a (cases, classes) probability matrix, and
        optionally other matrices for some of the losses Z, Q, L."""
        other = {k: Categorical(np.asarray(v, dtype=float)) for k, v in (by_loss or {}).items()}
        return cls(
            categorical=Categorical(np.asarray(probs, dtype=float)), info=info or {}, by_loss=other
        )

    def categorical_for(self, loss: str) -> Categorical | None:
        """The class distribution scored by ``loss``."""
        return self.by_loss.get(loss, self.categorical)

    @property
    def point_for_A(self) -> np.ndarray:
        point = self.mean if self.median is None else self.median
        if point is None:
            raise ValueError("a prediction without a mean or median has no point for loss A")
        return point


@dataclass
class Budget:
    """A method's allowance: CPU seconds (``cpu`` mode) or work units (``work`` mode).

    The one place that does budget arithmetic. Iterative methods ask it between
    iterations, passing ``done``, the number of work units (iterations, evaluations,
    trajectories; the method's YAML says which) done so far. In ``work`` mode only that
    count matters, so runs are deterministic; in ``cpu`` mode only the process CPU time
    since the budget was made does. Methods pass :meth:`exhausted` itself wherever a
    ``stop(done)`` callback is wanted.

    Parameters
    ----------
    mode : {"work", "cpu"}
        Which clock counts.
    cpu_seconds : float or None
        The CPU allowance in ``cpu`` mode (seconds on this machine); None is unlimited.
    work : int or None
        The work allowance in ``work`` mode; None is unlimited.
    start_cpu : float
        ``time.process_time()`` when the budget started; defaults to now.
    """

    mode: str = "work"
    cpu_seconds: float | None = None
    work: int | None = None
    start_cpu: float = field(default_factory=time.process_time)

    @property
    def total(self) -> float | None:
        """The allowance in the budget's units (seconds or work units); None if unlimited."""
        return self.cpu_seconds if self.mode == "cpu" else self.work

    def used_cpu(self) -> float:
        """Process CPU seconds since the budget started."""
        return time.process_time() - self.start_cpu

    def used(self, done: int) -> float:
        """What has been spent, in the budget's units.

        Parameters
        ----------
        done : int
            Work units done so far.

        Returns
        -------
        float
            CPU seconds since the start (``cpu`` mode) or ``done`` (``work`` mode).
        """
        return self.used_cpu() if self.mode == "cpu" else float(done)

    def exhausted(self, done: int, share: float = 1.0) -> bool:
        """True once ``share`` of a finite allowance is spent (never when unlimited).

        Parameters
        ----------
        done : int
            Work units done so far (ignored in ``cpu`` mode). A stage that spends no work
            units, but may take a share of a CPU budget, passes 0.
        share : float
            The part of the allowance this check grants, e.g. 0.5 for a first stage.

        Returns
        -------
        bool
        """
        total = self.total
        return total is not None and self.used(done) >= share * total

    def fraction(self, done: int) -> float:
        """Share of the budget used (0..1+); 0 when unlimited."""
        total = self.total
        return self.used(done) / total if total else 0.0

    def require_finite(self, name: str) -> float:
        """The allowance, or a ``ValueError`` naming ``name`` if it is unlimited or zero.

        For methods whose procedure is defined relative to the whole budget (e.g. "stop
        a member after a third of it").
        """
        total = self.total
        if not total:
            units = "cpu seconds" if self.mode == "cpu" else "work units"
            raise ValueError(f"{name} needs a finite budget ({units})")
        return float(total)

    def map_work(self, f: Callable[[int], int]) -> Budget:
        """A copy whose work allowance is ``f(work)`` (same start; unlimited stays so).

        For methods whose YAML work units need converting, e.g. gp-mc-1's iterations at a
        reference training-set size scaled to the instance's.
        """
        work = None if self.work is None else f(self.work)
        return replace(self, work=work)

    def describe(self) -> dict:
        return {"mode": self.mode, "cpu_seconds": self.cpu_seconds, "work": self.work}


class StageStore(Protocol):
    """Where a stage of training that several methods share is kept, so that it is
    computed once per training set (the ABF width stage of Barrio et al.'s methods:
    :mod:`delve_bench.methods.basis.widths`).

    A value is a JSON-serialisable dict saved under a stage name and a content key: the
    sha256 of everything the stage's result depends on (the data it sees, its settings,
    its code version), so a key names one result and a value never goes stale. The runner
    hands every job one over the workspace's result store
    (:class:`delve_bench.run.stages.StageCache`); outside the runner there is none.
    """

    def load(self, stage: str, key: str) -> dict | None:
        """The value saved under ``key``, or None (never saved, unreadable or corrupt)."""
        ...

    def save(self, stage: str, key: str, value: dict) -> None:
        """Keep ``value`` under ``key`` (readers see no value or the whole of one)."""
        ...


@dataclass
class FitContext:
    """Everything a method may use besides the data.

    Parameters
    ----------
    rng : numpy.random.Generator
        The instance's seeded generator; the method's only source of randomness.
    budget : Budget
        The instance's allowance; iterative methods consult it between iterations.
    kinds : list of str, length n_inputs
        ``"real"`` or ``"binary"`` per encoded input column (a nominal attribute arrives
        as several binary columns).
    classes : tuple of str
        The target's class labels on a classification task (the method receives class
        codes 0 .. C-1); empty on a regression task.
    progress : callable
        ``progress(fraction)`` with fraction in [0, 1]; drives the progress display.
    info : dict
        Facts the method records (JSON-serialisable after numpy conversion); they land
        under ``info`` in the instance's meta.json.
    first_training : callable or None
        ``first_training() -> (X, y)``: the training set of the task's first instance
        (instance 0), X of shape (n0, m) and y of shape (n0,), exactly as the method would
        receive it there (encoded, or raw for ``wants_raw``). For methods whose papers fix
        a setting once per data set on the first realisation's training set (Hong, Chen et
        al. 2014's kernel width); never test data. None outside the runner: such a method
        then uses its own training set.
    stages : StageStore or None
        Results of training stages shared by the methods fitting the same training set
        (:class:`StageStore`), for a stage whose result does not depend on the clock. None
        outside the runner: every method then computes every stage itself. A method that
        reuses a stored result records the CPU seconds it cost where it was computed, so
        training times stay comparable (docs/methods/basis.md).
    """

    rng: np.random.Generator
    budget: Budget
    kinds: list[str]
    classes: tuple[str, ...] = ()
    progress: Callable[[float], None] = lambda fraction: None
    info: dict = field(default_factory=dict)  # the method may record facts for meta.json
    #: budget fraction F -> the Budget of a run with F of the budget (same CPU clock): an
    #: anytime method keeps, at the moment each is exhausted, what that shorter run would
    #: have predicted with (see :meth:`Method.snapshot`)
    snapshots: dict[float, Budget] = field(default_factory=dict)
    first_training: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None
    stages: StageStore | None = None

    @classmethod
    def seeded(
        cls,
        seed: int = 0,
        budget: Budget | None = None,
        kinds: list[str] | int = 0,
        classes: tuple[str, ...] = (),
    ) -> FitContext:
        """A context for running a method outside the runner (tests, benchmarks, notebooks).

        Parameters
        ----------
        seed : int
            Seed of ``numpy.random.default_rng``, as the runner seeds each instance.
        budget : Budget, optional
            Defaults to an unlimited work budget.
        kinds : list of str or int
            The column kinds, or the number of inputs, all ``"real"``.
        classes : tuple of str
            The class labels of a classification target (targets are codes 0 .. C-1).

        Returns
        -------
        FitContext
        """
        if isinstance(kinds, int):
            kinds = ["real"] * kinds
        return cls(
            rng=np.random.default_rng(seed),
            budget=Budget(mode="work") if budget is None else budget,
            kinds=list(kinds),
            classes=tuple(classes),
        )


class Method(ABC):
    """Base class of plugins. Subclasses take their fixed parameters as keyword arguments
    (from the method YAML) and implement :meth:`fit` and :meth:`predict`."""

    #: losses the method can serve; 'L' needs a predictive density
    losses: tuple[str, ...] = REGRESSION_LOSSES
    #: True to receive raw (un-encoded) inputs and targets
    wants_raw: bool = False
    #: True when the method implements :meth:`snapshot` (``METHOD@F`` from one run)
    anytime: bool = False
    #: optional packages the method imports when it fits: {module: pip extra}; a missing
    #: one is a one-line error before any job runs, not a failure of every job
    requires: dict[str, str] = {}

    @abstractmethod
    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        """Learn from one training set.

        Parameters
        ----------
        X : ndarray of shape (n, m)
            Encoded training inputs (DELVE's default coding, fitted on this training set:
            real inputs ``(x - median) / absDev``, binary 0/1, nominal one-of-n).
        y : ndarray of shape (n,)
            Encoded training targets (regression), or class codes 0 .. C-1
            (classification, ``C = len(ctx.classes)``).
        ctx : FitContext
            The seeded generator (the only source of randomness), the budget, the input
            kinds, a progress callback and ``info`` for facts to record in meta.json.
        """

    @abstractmethod
    def predict(self, X: np.ndarray) -> Prediction:
        """Predict for the test cases.

        Parameters
        ----------
        X : ndarray of shape (t, m)
            Encoded test inputs, coded as the training inputs were.

        Returns
        -------
        Prediction
            In the encoded target space; the harness decodes it and computes the losses.
        """

    @classmethod
    def is_classifier(cls) -> bool:
        """True when the method serves classification tasks (its losses are Z, Q, L)."""
        return "Z" in cls.losses or "Q" in cls.losses

    def snapshot(self, fraction: float, X: np.ndarray) -> Prediction:
        """The prediction of a run whose budget was ``ctx.snapshots[fraction]``, from the
        state kept during :meth:`fit` (anytime methods only). In ``work`` mode it must be
        identical to what a separate run of ``METHOD@F`` predicts."""
        raise NotImplementedError(f"{type(self).__name__} makes no snapshots")

    def snapshot_info(self, fraction: float) -> dict:
        """Facts for the snapshot's meta.json; must hold ``fit_cpu_seconds``, the CPU time
        the run had used when the snapshot's budget was exhausted."""
        raise NotImplementedError(f"{type(self).__name__} makes no snapshots")


class Classifier(Method):
    """Base class of classification plugins: ``fit`` receives class codes 0 .. C-1 with
    ``C = len(ctx.classes)``; ``predict`` returns :meth:`Prediction.of_probs`."""

    losses: tuple[str, ...] = CLASSIFICATION_LOSSES
    #: largest number of classes the method handles (2: two-class methods)
    max_classes: int | None = None

    def _classes(self, y: np.ndarray, ctx: FitContext) -> int:
        """The number of classes C, checked against :attr:`max_classes`."""
        C = len(ctx.classes) or int(np.max(y)) + 1
        if self.max_classes is not None and C > self.max_classes:
            raise ValueError(
                f"{type(self).__name__} is a {self.max_classes}-class method; "
                f"this target has {C} classes"
            )
        return C
