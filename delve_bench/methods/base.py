"""The plugin interface every method implements (DESIGN §5).

A method sees encoded data only (DELVE's default encoding, fitted by the harness on the
training set) and returns a :class:`Prediction` in that encoded target space; the harness
decodes point predictions and adds the Jacobian to log densities before computing losses.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from scipy.special import logsumexp

LOG2PI = float(np.log(2 * np.pi))


class Density(Protocol):
    """A predictive density per test case: ``logpdf(t)[j] = log p(t[j] | case j)``."""

    def logpdf(self, t: np.ndarray) -> np.ndarray: ...

    def variance(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Gaussian:
    """Independent Gaussian predictive distributions, one per test case."""

    mean: np.ndarray
    var: np.ndarray

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        return -0.5 * (LOG2PI + np.log(self.var) + (t - self.mean) ** 2 / self.var)

    def variance(self) -> np.ndarray:
        return np.asarray(self.var, dtype=float)


@dataclass(frozen=True)
class GaussianMixture:
    """Per-case mixtures of Gaussians: ``means``/``vars`` are (cases, components)."""

    means: np.ndarray
    vars: np.ndarray
    weights: np.ndarray  # (components,), sums to 1

    def logpdf(self, t: np.ndarray) -> np.ndarray:
        lp = -0.5 * (LOG2PI + np.log(self.vars) + (t[:, None] - self.means) ** 2 / self.vars)
        return logsumexp(lp + np.log(self.weights)[None, :], axis=1)

    def mean(self) -> np.ndarray:
        return self.means @ self.weights

    def variance(self) -> np.ndarray:
        m = self.mean()
        return (self.vars + self.means**2) @ self.weights - m**2


@dataclass(frozen=True)
class Prediction:
    """What the losses need: the mean (S), the median (A; defaults to the mean) and a
    predictive density (L) or None when the method has none."""

    mean: np.ndarray
    median: np.ndarray | None = None
    density: Density | None = None
    info: dict = field(default_factory=dict)

    @property
    def point_for_A(self) -> np.ndarray:
        return self.mean if self.median is None else self.median


@dataclass
class Budget:
    """A method's allowance: CPU seconds (``cpu`` mode) or work units (``work`` mode).

    Iterative methods call :meth:`exhausted` between iterations with the number of work
    units (iterations, evaluations) done so far. In ``work`` mode only the count matters,
    so runs are deterministic; in ``cpu`` mode only process CPU time does.
    """

    mode: str = "work"
    cpu_seconds: float | None = None
    work: int | None = None
    start_cpu: float = field(default_factory=time.process_time)

    def used_cpu(self) -> float:
        return time.process_time() - self.start_cpu

    def exhausted(self, done: int) -> bool:
        if self.mode == "cpu":
            return self.cpu_seconds is not None and self.used_cpu() >= self.cpu_seconds
        return self.work is not None and done >= self.work

    def fraction(self, done: int) -> float:
        """Share of the budget used (0..1+); 0 when unlimited."""
        if self.mode == "cpu":
            return self.used_cpu() / self.cpu_seconds if self.cpu_seconds else 0.0
        return done / self.work if self.work else 0.0

    def describe(self) -> dict:
        return {"mode": self.mode, "cpu_seconds": self.cpu_seconds, "work": self.work}


@dataclass
class FitContext:
    """Everything a method may use besides the data."""

    rng: np.random.Generator
    budget: Budget
    kinds: list[str]  # 'real' | 'binary' per encoded input column
    progress: Callable[[float], None] = lambda fraction: None
    info: dict = field(default_factory=dict)  # the method may record facts for meta.json
    #: budget fraction F -> the Budget of a run with F of the budget (same CPU clock): an
    #: anytime method keeps, at the moment each is exhausted, what that shorter run would
    #: have predicted with (see :meth:`Method.snapshot`)
    snapshots: dict[float, Budget] = field(default_factory=dict)


class Method(ABC):
    """Base class of plugins. Subclasses take their fixed parameters as keyword arguments
    (from the method YAML) and implement :meth:`fit` and :meth:`predict`."""

    #: losses the method can serve; 'L' needs a predictive density
    losses: tuple[str, ...] = ("S", "A", "L")
    #: True to receive raw (un-encoded) inputs and targets
    wants_raw: bool = False
    #: True when the method implements :meth:`snapshot` (``METHOD@F`` from one run)
    anytime: bool = False

    @abstractmethod
    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        """Learn from encoded inputs ``X`` (n x m) and targets ``y`` (n,)."""

    @abstractmethod
    def predict(self, X: np.ndarray) -> Prediction:
        """Predict for encoded test inputs, in the encoded target space."""

    def snapshot(self, fraction: float, X: np.ndarray) -> Prediction:
        """The prediction of a run whose budget was ``ctx.snapshots[fraction]``, from the
        state kept during :meth:`fit` (anytime methods only). In ``work`` mode it must be
        identical to what a separate run of ``METHOD@F`` predicts."""
        raise NotImplementedError(f"{type(self).__name__} makes no snapshots")

    def snapshot_info(self, fraction: float) -> dict:
        """Facts for the snapshot's meta.json; must hold ``fit_cpu_seconds``, the CPU time
        the run had used when the snapshot's budget was exhausted."""
        raise NotImplementedError(f"{type(self).__name__} makes no snapshots")
