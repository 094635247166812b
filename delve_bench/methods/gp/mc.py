"""gp-mc-1: the GP with its hyperparameters integrated out by hybrid Monte Carlo
(Rasmussen 1996 §4.6, C ``gp-mc.c``, ``leapfrog.c``, ``gp-pred.c`` in App. A.5;
docs/methods/gp.md).

Sampler (:mod:`delve_bench.numerics.hmc`): Horowitz' persistent HMC on ``theta`` with one
leapfrog step per proposal, step ``eps = 0.5 / sqrt(n)`` for every hyperparameter, unit
masses, momentum starting at 0; a rejection restores the state *and its gradient*
(docs/methods/gp.md, gp-mc-1 departure 2) and negates the momentum; then the momentum is
partially refreshed, ``p <- 0.95 p + sqrt(1 - 0.95^2) nu``. The energy is the negative log
posterior of :mod:`.model`.

Run length ``T`` and the save schedule: 39 records at equal intervals ``T/39`` of the run's
clock; prediction uses 26 of them spread evenly by iteration index from the first record
at or after ``T/3`` to the last (the thesis' selection code), i.e. the last two thirds.
The clock is process CPU time in ``cpu`` mode (30 s per training case on the 1996 machine,
scaled by ``--time-scale``) and the iteration count in ``work`` mode, where the budget's
work units are iterations *at n = 64*: ``iterations = work (64/n)^2``, because time grows
as n and an iteration costs n^3 (the thesis' "roughly 20000 iterations for the smallest
training sets", §4.6); at least ``min_iterations`` so that large n still moves away from
the start.

Prediction: the equal-weight mixture of the 26 Gaussians of eq. 4.10. S: the mixture mean.
A: the exact mixture median (departure 1; ``faithful_median=True``: median of 11 draws per
component). L: log mixture density after the C code's widening heuristic: when the sum of
the 26 predictive standard deviations is below the spread of the central 2/3 of the 26
means (21st minus 4th smallest), all variances are scaled up to match (``gp-pred.c``; a zero spread
is guarded, departure 3).

The sampler runs with one BLAS thread whatever the caller set: its budget is process CPU
time, which threads only inflate, and threaded BLAS is many times slower on
the small matrices of the smaller tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from ...defaults import REGRESSION_LOSSES
from ...numerics.hmc import HMC
from ...numerics.mixture import mixture_median, sampled_median
from ..base import Budget, FitContext, GaussianMixture, Method, Prediction
from .model import GPObjective, Hyper, Posterior, initial_theta


def select_records(iters: np.ndarray, low: int, high: int, k: int) -> np.ndarray:
    """The thesis' choice of ``k`` records between iteration indices ``low`` and ``high``:
    for l = 0..k-1 the first record whose index is >= ``low + floor(l (high-low)/(k-1))``.
    ``iters`` is the sorted iteration index of every record; returns record positions."""
    targets = low + (np.arange(k) * (high - low)) // max(k - 1, 1)
    return np.searchsorted(iters, targets, side="left")


def widen(means: np.ndarray, vars: np.ndarray) -> np.ndarray:
    """The ``gp-pred`` widening of the predictive variances (rows = test cases)."""
    k = means.shape[1]
    srt = np.sort(means, axis=1)
    lo, hi = max(k // 6, 1), max(5 * k // 6, 1)  # 1-based order statistics; select(.,0)=min
    spread = srt[:, hi - 1] - srt[:, lo - 1]
    ssd = np.sqrt(vars).sum(1)
    factor = np.ones(len(means))
    small = (spread > 0) & (ssd < spread)  # guards the C code's division by a zero spread
    factor[small] = (spread[small] / ssd[small]) ** 2
    return vars * factor[:, None]


@dataclass
class _Schedule:
    """The records of one run length ``T`` (the main run's, or a snapshot's): ``saves``
    states at equal intervals ``T / saves`` of the run's clock."""

    T: float
    saves: int
    iters: list[int] = field(default_factory=list)
    thetas: list[np.ndarray] = field(default_factory=list)
    energies: list[float] = field(default_factory=list)
    rejects: list[float] = field(default_factory=list)
    fit_cpu: float = 0.0

    @property
    def full(self) -> bool:
        return len(self.iters) >= self.saves

    def record(self, it: int, now: float, sampler, cpu: float) -> None:
        # one record per save time passed (several if one iteration spans them)
        while not self.full and now >= (len(self.iters) + 1) * self.T / self.saves:
            self.iters.append(it)
            self.thetas.append(sampler.x.copy())
            self.energies.append(sampler.E)
            self.rejects.append(1.0 - sampler.acceptance_rate)
            if self.full:
                self.fit_cpu = cpu

    def chosen(self, used: int) -> np.ndarray:
        """Positions of the ``used`` records of the last two thirds (the thesis' code)."""
        rec = np.array(self.iters)
        first = int(np.ceil(self.saves / 3.0))  # first scheduled time >= T/3 (record 13 of 39)
        tail = rec[first - 1 :]
        return first - 1 + select_records(tail, tail[0], tail[-1], used)


class GpMc(Method):
    """gp-mc-1 (see the module docstring). Anytime: a snapshot at budget fraction F keeps
    its own 39 records at intervals of F T / 39, so it is the run a budget of F T makes.

    Attributes
    ----------
    thetas_ : ndarray of shape (used, m + 4)
        The hyperparameter records the prediction averages over (the ``used`` chosen from
        the last two thirds of the run).
    X_, y_ : ndarray of shape (n, m) and (n,)
        The training set (each record's GP posterior is conditioned on it).
    snapshots_ : dict of float to _Schedule
        The records of each snapshot fraction's shorter run.
    rng_ : numpy.random.Generator
        The fit's generator (drawn from only with ``faithful_median``).
    """

    losses = REGRESSION_LOSSES
    anytime = True
    #: iterations at n = work_reference_n when the budget is unlimited (the YAML's work)
    default_work = 20000

    def __init__(
        self,
        step: float = 0.5,
        persistence: float = 0.95,
        saves: int = 39,
        used: int = 26,
        work_reference_n: int = 64,
        min_iterations: int = 1000,
        faithful_median: bool = False,
    ):
        self.step = float(step)
        self.persistence = float(persistence)
        self.saves = int(saves)
        self.used = int(used)
        self.work_reference_n = int(work_reference_n)
        self.min_iterations = int(min_iterations)
        self.faithful_median = faithful_median

    def iterations_for(self, n: int, work: int) -> int:
        """Work-mode iteration count for ``n`` training cases."""
        return max(self.min_iterations, int(round(work * (self.work_reference_n / n) ** 2)))

    def _budget(self, budget: Budget, n: int) -> Budget:
        """An unlimited budget runs the thesis' length; work units are iterations at
        n = work_reference_n, converted to this n."""
        budget = budget if budget.total else Budget(mode="work", work=self.default_work)
        return budget.map_work(lambda work: self.iterations_for(n, work))

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        n = len(y)
        obj = GPObjective(X, y)
        eps = self.step / np.sqrt(n)
        sampler = HMC(
            obj, initial_theta(X.shape[1]), ctx.rng, eps, n_steps=1, persistence=self.persistence
        )
        budget = self._budget(ctx.budget, n)
        main = _Schedule(budget.require_finite("gp-mc-1"), self.saves)
        snaps = {
            f: _Schedule(float(self._budget(b, n).require_finite("gp-mc-1")), self.saves)
            for f, b in ctx.snapshots.items()
        }
        it = 0
        # one BLAS thread: the budget is process CPU time, which threads only inflate, and
        # threaded BLAS is many times slower on the small matrices of HMC
        with threadpool_limits(1):
            while not main.full:
                sampler.trajectory()
                sampler.refresh_momentum()
                it += 1
                now = float(budget.used(it))
                cpu = budget.used_cpu()
                main.record(it, now, sampler, cpu)
                for sc in snaps.values():
                    sc.record(it, now, sampler, cpu)
                ctx.progress(min(1.0, now / main.T))
        self.X_, self.y_ = X, y
        self.rng_ = ctx.rng
        self.snapshots_, self._cpu_clock = snaps, budget.mode == "cpu"
        self.thetas_ = np.array(main.thetas)[main.chosen(self.used)]
        ctx.info.update(
            iterations=it,
            evaluations=sampler.evals,
            step_size=eps,
            acceptance_rate=sampler.acceptance_rate,
            **self._record_info(main, budget.mode == "cpu"),
            hyper=Hyper.from_theta(sampler.x).as_dict(),
        )

    def _record_info(self, sc: _Schedule, cpu_clock: bool) -> dict:
        chosen = sc.chosen(self.used)
        thetas = np.array(sc.thetas)[chosen]
        used_h = [Hyper.from_theta(t) for t in thetas]
        return dict(
            rejection_rate_at_saves=sc.rejects,
            run_length={"clock": "cpu_seconds" if cpu_clock else "iterations", "T": sc.T},
            records_used=chosen + 1,
            record_iterations=sc.iters,
            record_energies=sc.energies,
            length_scales_mean_used=np.mean([h.as_dict()["length_scales"] for h in used_h], 0),
            theta_used=thetas,
        )

    def _mixture(self, thetas: np.ndarray, X: np.ndarray) -> Prediction:
        mus, vs = [], []
        for theta in thetas:
            mu, var = Posterior.fit(self.X_, self.y_, theta).predict(X)
            mus.append(mu)
            vs.append(var)
        means, vars = np.stack(mus, 1), np.stack(vs, 1)
        k = means.shape[1]
        if self.faithful_median:
            median = sampled_median(means, vars, self.rng_)
        else:
            median = mixture_median(means, vars)
        density = GaussianMixture(means, widen(means, vars), np.full(k, 1.0 / k))
        return Prediction(mean=means.mean(1), median=median, density=density)

    def predict(self, X: np.ndarray) -> Prediction:
        return self._mixture(self.thetas_, X)

    def snapshot(self, fraction: float, X: np.ndarray) -> Prediction:
        sc = self.snapshots_[fraction]
        return self._mixture(np.array(sc.thetas)[sc.chosen(self.used)], X)

    def snapshot_info(self, fraction: float) -> dict:
        sc = self.snapshots_[fraction]
        return dict(
            fit_cpu_seconds=sc.fit_cpu,
            iterations=sc.iters[-1],
            **self._record_info(sc, self._cpu_clock),
        )
