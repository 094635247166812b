"""mlp-mc-1: Bayesian MLP sampled by hybrid Monte Carlo, as Neal's software ran it for the
thesis (Rasmussen 1996 §3.7, run script in App. A.4; Neal's FBM bnn.1996-08-26;
docs/methods/mlp.md).

* Network (:mod:`.network`): one tanh hidden layer with direct input->output connections;
  H = the smallest number with at least as many weights as training cases, clamped to
  6..25 (thesis §3.7).
* Prior (:mod:`.prior`): Neal's gamma hierarchy with ARD on the inputs (thesis §3.7).
* Sampler: the package's one HMC sampler (:mod:`delve_bench.numerics.hmc`) on the weights,
  with trajectories of 100 leapfrog steps, acceptance windows of 10, step sizes 0.15 x
  Neal's per-weight heuristic (recomputed after every hyperparameter update) and momentum
  persistence 0.95 (thesis §3.7; FBM ``mc-hybrid.c``); hyperparameters by Gibbs sampling
  between trajectories (FBM ``net-mc.c``).
* Schedule (the App. A.4 script): all weights zero, hyperparameters fixed at
  ``net-gen fix 0.1 0.5``; then 10 trajectories with fresh momenta in which only the noise
  level is sampled (``repeat 10 sample-noise heatbath hybrid``: the script, not the text,
  which says all hyperparameters stay fixed; docs/methods/mlp.md, mlp-mc-1 departure 2);
  then the main chain, one iteration = Gibbs update of the noise and all weight
  hyperparameters, partial momentum refresh, one windowed trajectory (its ``negate`` is
  folded into the sampler's persistent-momentum convention), until the budget is spent.
* Prediction (thesis eq. 3.15, ``net-pred``): 100 states spread evenly over the part of the
  run after its first third (by CPU time, or by work in work mode); the predictive
  distribution is the equal mixture of N(f_s(x), sigma_s^2). S: its mean; A: its **exact**
  median (bisection on the mixture CDF, :mod:`delve_bench.numerics.mixture`, instead of
  FBM's 11 draws per net; departure 1); L: its log density.

Budget units: ``cpu`` mode counts process CPU seconds of the whole run (the thesis' 30 s
per training case, including the initial phase); ``work`` mode counts trajectories (one
main iteration = 1, the initial phase = 10), so runs are deterministic.

Checked against FBM's 1995-96 sources (net-mc.c, mc-hybrid.c, mc-traj.c, mc-iter.c,
mc-heatbath.c, prior.c, net-prior.c, net-gen.c, net-model.c), with no difference found:
* step sizes are 1/sqrt(prior precision + data curvature) with ``s_h = sigma_ho^2 tau_eps``
  and ``N_train`` (not a typical hidden value) for the hidden->output weights; they are
  recomputed before the first trajectory after every Gibbs update (FBM resets
  ``have_ss`` after each application op, e.g. every ``sample-noise`` of the initial phase);
* the windowed trajectory uses states 0..L with the reject window 0..W-1 and the accept
  window L-W+1..L; a state is picked from the chosen window with probability
  proportional to exp(-H), the momentum negated on acceptance; ``negate`` follows;
* Gibbs: noise first, then ih (per input, then top, FBM's ``cond_sigma``, the same
  distribution as the GIG sampler here), bh, ho, io; ``prior_width_scaled`` as
  :func:`.prior.scaled_precision`;
* ``net-gen fix 0.1 0.5``: sigmas 0.1 (into hidden units), 0.5 (into outputs), output
  bias 1 (its prior allows no other value), noise 0.05, all weights zero.

Cross-checked by running FBM itself (the 2004-11-10 release built from source; same
arithmetic as bnn.1996-08-26 for this script) on the same encoded kin-8nm/std.256
instances (``benchmarks/nn_fbm.py``): the per-weight step sizes agree to 7 digits at equal
hyperparameters, and the pooled standardised S over 8 instances is 0.196 (FBM) against
0.191 (here) from iterations 1000-3000. Both chains occasionally sit in a high-noise state
for a few hundred iterations before finding the fitted mode, so short runs vary.

States are kept thinned (every ``stride``-th main iteration, the stride doubling whenever
more than ``2 * keep`` are held), so at least ``keep`` evenly spaced states exist for the
selection, whatever the run length (docs/methods/mlp.md, mlp-mc-1
departure 4).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...numerics.hmc import HMC, Energy
from ...numerics.mixture import mixture_median
from ..base import Budget, FitContext, GaussianMixture, Method, Prediction
from .network import MlpData, MlpShape, forward_many, mc_hidden_units
from .prior import Hypers, NealPrior


@dataclass
class Saved:
    """One stored state of the main chain."""

    iteration: int  # main-phase iteration (1-based) after which it was taken
    work: int  # trajectories done so far (work units)
    cpu: float  # CPU seconds since the start of the run
    fraction: float  # share of the budget used
    used: float  # budget spent, in its units (Budget.used: CPU seconds or trajectories)
    w: np.ndarray
    hypers: Hypers


@dataclass
class Chain:
    """A finished run: the thinned states and the sampler statistics."""

    shape: MlpShape
    saved: list[Saved]
    stride: int
    iterations: int
    init_accept: float
    main_accepted: int
    main_accept_prob: float
    accept_trace: list[float] = field(default_factory=list)
    #: budget fraction -> the chain as a run with that budget would have ended it
    snapshots: dict[float, Frozen] = field(default_factory=dict)


@dataclass
class Frozen:
    """The stored states when a snapshot's budget ran out, and when that was."""

    saved: list[Saved]
    iterations: int
    budget: Budget
    fit_cpu: float

    def values(self) -> list[float]:
        """Each state's share of this budget (the key of the thesis' selection)."""
        total = self.budget.require_finite("a snapshot")  # same clock as the run's budget
        return [s.used / total for s in self.saved]


class _Store:
    """Thinned, evenly spaced storage of main-chain states (see the module docstring)."""

    def __init__(self, keep: int):
        self.keep, self.stride = keep, 1
        self.items: list[Saved] = []

    def wants(self, it: int) -> bool:
        return it % self.stride == 0

    def add(self, state: Saved) -> None:
        self.items.append(state)
        if len(self.items) > 2 * self.keep:
            self.stride *= 2
            self.items = [s for s in self.items if s.iteration % self.stride == 0]


class PosteriorEnergy(Energy):
    """The HMC potential energy of the weights given the hyperparameters ``h``,
    ``E(w) = sum_o tau_o/2 sum_c (f_o(x_c) - t_co)^2 + sum_k tau_(k) w_k^2 / 2``, with its
    gradient written in place (one network pass into preallocated buffers,
    :meth:`MlpData.likelihood_into`).
    Calling it, ``energy(w) -> (E, dE/dw)``, gives a fresh gradient."""

    def __init__(self, data: MlpData, prior: NealPrior, h: Hypers):
        self.data = data
        self.prec, self.noise = prior.precisions(h), np.array(h.noise, dtype=float)
        self._pw = np.empty_like(self.prec)

    def into(self, w: np.ndarray, grad: np.ndarray, with_energy: bool = True) -> float:
        e = self.data.likelihood_into(w, self.noise, grad, with_energy)
        pw = np.multiply(self.prec, w, self._pw)
        np.add(grad, pw, grad)
        return e + 0.5 * float(w @ pw) if with_energy else 0.0

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        g = np.empty_like(w)
        return self.into(w, g), g


def posterior_energy(data: MlpData, prior: NealPrior, h: Hypers) -> PosteriorEnergy:
    """The potential energy of the weights given ``h`` (:class:`PosteriorEnergy`)."""
    return PosteriorEnergy(data, prior, h)


def run_chain(
    X: np.ndarray,
    Y: np.ndarray,
    rng: np.random.Generator,
    budget: Budget,
    step_factor: float = 0.15,
    n_steps: int = 100,
    window: int = 10,
    persistence: float = 0.95,
    init_repeats: int = 10,
    keep: int = 500,
    progress=None,
    snapshots: dict[float, Budget] | None = None,
) -> Chain:
    """Run the mlp-mc-1 Markov chain on encoded data X (n, I), Y (n, T) until ``budget`` is
    exhausted (checked between iterations, with done = trajectories so far). For each of
    ``snapshots`` (fraction -> smaller budget on the same clock) the stored states are
    frozen after the iteration at which that budget is exhausted, where a run with it
    would have stopped."""
    t0 = time.process_time()
    n, n_in = X.shape
    shape = MlpShape(n_in, mc_hidden_units(n, n_in, Y.shape[1]), Y.shape[1])
    data = MlpData(shape, X, Y)
    prior = NealPrior(shape)
    h = prior.initial_hypers()

    def energy_for(hy: Hypers):
        return posterior_energy(data, prior, hy)

    def steps(hy: Hypers) -> np.ndarray:
        return step_factor * prior.step_scales(hy, n, data.sum_x2)

    hmc = HMC(
        energy_for(h),
        np.zeros(shape.n_weights),
        rng,
        steps(h),
        n_steps=n_steps,
        window=window,
        persistence=persistence,
    )
    # level 2: weights grow under fixed weight hyperparameters; the noise is sampled
    for _ in range(init_repeats):
        prior.sample_noise(rng, h, data.residuals(hmc.x))
        hmc.set_energy(energy_for(h))
        hmc.step_size = steps(h)
        hmc.refresh_momentum(0.0)  # heatbath with decay 0: fresh momenta
        hmc.trajectory()
    init_accept = hmc.accepted / max(1, hmc.trajectories)
    acc0, prob0 = hmc.accepted, hmc.sum_accept_prob
    done, it = init_repeats, 0
    store = _Store(keep)
    trace, last_acc, last_it = [], acc0, 0
    pending = dict(sorted((snapshots or {}).items()))
    frozen: dict[float, Frozen] = {}
    while it == 0 or not budget.exhausted(done):
        prior.sample_noise(rng, h, data.residuals(hmc.x))
        prior.sample_sigmas(rng, h, hmc.x)
        hmc.set_energy(energy_for(h))
        hmc.step_size = steps(h)
        hmc.refresh_momentum()
        hmc.trajectory()
        it += 1
        done += 1
        if store.wants(it):
            cpu = time.process_time() - t0
            store.add(
                Saved(
                    iteration=it,
                    work=done,
                    cpu=cpu,
                    fraction=budget.fraction(done),
                    used=budget.used(done),
                    w=hmc.x.copy(),
                    hypers=h.copy(),
                )
            )
        for f, sb in list(pending.items()):
            if sb.exhausted(done):
                frozen[f] = Frozen(
                    saved=list(store.items), iterations=it, budget=sb, fit_cpu=sb.used_cpu()
                )
                del pending[f]
        if it - last_it >= 100:  # acceptance rate per block of 100 iterations
            trace.append((hmc.accepted - last_acc) / (it - last_it))
            last_acc, last_it = hmc.accepted, it
            if progress is not None:
                progress(min(1.0, budget.fraction(done)))
    return Chain(
        shape=shape,
        saved=store.items,
        stride=store.stride,
        iterations=it,
        init_accept=init_accept,
        main_accepted=hmc.accepted - acc0,
        main_accept_prob=(hmc.sum_accept_prob - prob0) / it,
        accept_trace=trace,
        snapshots=frozen,
    )


def select_states(
    saved: list[Saved],
    n_use: int = 100,
    start: float = 1 / 3,
    end: float | None = None,
    key: str = "fraction",
    values: list[float] | None = None,
) -> list[Saved]:
    """``net-pred @T/3:T+100`` (thesis App. A.4): the states whose ``key`` (budget fraction by
    default; ``cpu`` or ``iteration`` for studies of a longer run; or the given
    ``values``) lies in [start, end] (end = the whole run when None), ``n_use`` of them
    spread evenly over that range; all of them if fewer (the last state if the range is
    empty)."""
    vals = values if values is not None else [getattr(s, key) for s in saved]
    if end is None:
        end = max(vals)
    cands = [s for s, v in zip(saved, vals, strict=True) if start <= v <= end]
    if not cands:
        return [saved[-1]]
    if len(cands) <= n_use:
        return cands
    idx = np.round(np.linspace(0, len(cands) - 1, n_use)).astype(int)
    return [cands[i] for i in idx]


def predictive(shape: MlpShape, states: list[Saved], X: np.ndarray) -> Prediction:
    """The equal mixture of the states' Gaussian predictive distributions (first output)."""
    ws = np.array([s.w for s in states])
    means = forward_many(shape, ws, np.asarray(X, dtype=float))[:, :, 0]  # (J, K)
    var = np.array([1.0 / s.hypers.noise[0] for s in states])
    K = len(states)
    vars_ = np.broadcast_to(var, means.shape)
    mix = GaussianMixture(means, np.array(vars_), np.full(K, 1.0 / K))
    return Prediction(mean=mix.mean(), median=mixture_median(means, vars_), density=mix)


class MlpMc(Method):
    """Neal's Bayesian MLP by HMC with the thesis' settings (Rasmussen 1996 §3.7).

    Attributes
    ----------
    chain_ : Chain
        The sampler's run: network shape, the thinned saved states, acceptance records and
        the snapshots' own records.
    states_ : list of Saved
        The ``n_use`` states the prediction mixes over (after ``burn_fraction``).
    """

    anytime = True

    def __init__(
        self,
        step_factor: float = 0.15,
        n_steps: int = 100,
        window: int = 10,
        persistence: float = 0.95,
        init_repeats: int = 10,
        n_use: int = 100,
        burn_fraction: float = 1 / 3,
        keep: int = 500,
    ):
        self.params: dict[str, Any] = dict(
            step_factor=step_factor,
            n_steps=n_steps,
            window=window,
            persistence=persistence,
            init_repeats=init_repeats,
            keep=keep,
        )
        self.n_use = n_use
        self.burn_fraction = burn_fraction

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        X = np.asarray(X, dtype=float)
        Y = np.asarray(y, dtype=float).reshape(len(X), -1)
        if Y.shape[1] != 1:
            raise ValueError("mlp-mc-1 predicts a single target")
        ctx.budget.require_finite("mlp-mc-1")
        self.chain_ = run_chain(
            X, Y, ctx.rng, ctx.budget, progress=ctx.progress, snapshots=ctx.snapshots, **self.params
        )
        self.states_ = select_states(self.chain_.saved, self.n_use, self.burn_fraction)
        ch, used = self.chain_, self.states_
        ctx.info.update(
            hidden_units=ch.shape.n_hidden,
            n_weights=ch.shape.n_weights,
            iterations=ch.iterations,
            leapfrog_steps=(ch.iterations + self.params["init_repeats"]) * self.params["n_steps"],
            init_acceptance_rate=ch.init_accept,
            acceptance_rate=ch.main_accepted / ch.iterations,
            mean_accept_prob=ch.main_accept_prob,
            acceptance_per_100_iterations=ch.accept_trace,
            states_stored=len(ch.saved),
            save_stride=ch.stride,
            **self._state_info(used),
        )

    def _state_info(self, used: list[Saved]) -> dict:
        sig = [s.hypers.sigmas() for s in used]
        mean_sig = {k: np.mean([s[k] for s in sig], axis=0) for k in sig[0]}
        return dict(
            states_used=len(used),
            first_used_iteration=used[0].iteration,
            # posterior means of the hyperparameters (as sigmas) over the used states; the
            # ARD sigmas say which inputs matter (small sigma = irrelevant input)
            posterior_sigmas=mean_sig,
            ard_input_hidden=mean_sig["input_hidden"],
            ard_input_output=mean_sig["input_output"],
        )

    def predict(self, X: np.ndarray) -> Prediction:
        return predictive(self.chain_.shape, self.states_, X)

    def _snapshot_states(self, fraction: float) -> list[Saved]:
        fz = self.chain_.snapshots[fraction]
        return select_states(fz.saved, self.n_use, self.burn_fraction, values=fz.values())

    def snapshot(self, fraction: float, X: np.ndarray) -> Prediction:
        return predictive(self.chain_.shape, self._snapshot_states(fraction), X)

    def snapshot_info(self, fraction: float) -> dict:
        fz = self.chain_.snapshots[fraction]
        return dict(
            fit_cpu_seconds=fz.fit_cpu,
            iterations=fz.iterations,
            hidden_units=self.chain_.shape.n_hidden,
            **self._state_info(self._snapshot_states(fraction)),
        )


MlpMc1 = MlpMc  # the plugin path delve_bench.methods.mlp.mc:MlpMc1 of older method YAMLs
