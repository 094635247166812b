"""Hybrid (Hamiltonian) Monte Carlo on a flat parameter vector (Duane et al. 1987,
Horowitz 1991, Neal 1994; Rasmussen 1996 §3.7 and §4.6).

The one HMC sampler of the package, shared by gp-mc-1 (GP hyperparameters: one leapfrog
step, persistence 0.95) and mlp-mc-1 (network weights: 100 steps, window 10, per-weight
step sizes, persistence 0.95). It knows nothing about either model: it samples from
``exp(-E(x))`` given a function returning ``(E, dE/dx)`` (the gradient may be a
zero-argument callable, as for :mod:`.cg`). ``E = +inf`` (or NaN) marks an
impossible state (e.g. a covariance that is not positive definite): the
trajectory is rejected, never an exception.

Pieces, used in the order the caller wants:

* :meth:`HMC.refresh_momentum`: ``p <- a p + sqrt(1 - a^2) nu`` (``a = persistence``;
  0 gives a full refresh, Neal's ``heatbath``);
* :meth:`HMC.trajectory`: ``n_steps`` leapfrog steps with per-coordinate step sizes
  ``eps_k`` (``p_k -= eps_k/2 dE/dx_k; x_k += eps_k p_k; p_k -= eps_k/2 dE/dx_k``; unit
  masses, kinetic energy ``|p|^2/2``), accepted with Metropolis' rule, or with Neal's
  windowed rule when ``window > 1``;
* hyperparameter Gibbs updates are the caller's, between trajectories: change the energy
  with :meth:`HMC.set_energy` (which re-evaluates E and its gradient at the current x).

Momentum convention (persistent HMC): after an accepted trajectory the momentum is the
simulated one, after a rejection it is the *negated* start-window momentum. This is
Horowitz' rule as used by gp-mc-1 (thesis §4.6) and equals FBM's ``hybrid`` (negate on accept)
followed by ``negate`` as used by mlp-mc-1 (thesis App. A.4). With a full refresh it is immaterial.

Windowed acceptance (Neal 1994; FBM ``hybrid L:W``): the current state is put at a
uniformly drawn index ``s`` in ``0..W-1`` of a trajectory of states ``0..L``, simulated
``s`` steps backwards and ``L - s`` forwards; the reject window is states ``0..W-1``, the
accept window ``L-W+1..L``; accept with probability ``min(1, exp(F_rej - F_acc))``,
``F = -log sum exp(-H)`` over a window, and then pick a state of the chosen window with
probability proportional to ``exp(-H)``. ``window = 1`` is plain HMC.
A trajectory that meets a non-finite energy is stopped there and rejected as a whole: the
rule depends only on the set of states of the trajectory, so it keeps detailed balance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy.special import logsumexp

EnergyGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]


def _safe_eval(energy: EnergyGrad, x: np.ndarray) -> tuple[float, np.ndarray]:
    E, g = energy(x)
    E = float(E)
    if not np.isfinite(E):
        return np.inf, np.zeros_like(x)
    g = np.asarray(g() if callable(g) else g, dtype=float)  # a lazy gradient is resolved
    if not np.isfinite(E) or not np.all(np.isfinite(g)):
        return np.inf, np.zeros_like(x)
    return E, g


class PhaseState(NamedTuple):
    """A point of phase space and what the sampler needs there.

    Attributes
    ----------
    x : ndarray of shape (d,)
        Position (the sampled parameters).
    p : ndarray of shape (d,)
        Momentum.
    E : float
        Potential energy ``E(x)`` (``inf`` for an impossible state).
    grad : ndarray of shape (d,)
        ``dE/dx`` at ``x`` (zeros where ``E`` is not finite).
    """

    x: np.ndarray
    p: np.ndarray
    E: float
    grad: np.ndarray

    @property
    def H(self) -> float:
        """The Hamiltonian ``E + |p|^2 / 2`` (unit masses)."""
        return self.E + 0.5 * float(self.p @ self.p)


def leapfrog(
    energy: EnergyGrad,
    x: np.ndarray,
    p: np.ndarray,
    grad: np.ndarray,
    step: np.ndarray | float,
    n_steps: int,
) -> list[PhaseState]:
    """``n_steps`` leapfrog steps from ``(x, p)``.

    Parameters
    ----------
    energy : callable
        ``energy(x) -> (E, dE/dx)``; the gradient may be a zero-argument callable.
    x, p : ndarray of shape (d,)
        Start position and momentum.
    grad : ndarray of shape (d,)
        ``dE/dx`` at ``x``.
    step : float or ndarray of shape (d,)
        Step size, per coordinate if an array; a negative step runs time backwards.
    n_steps : int
        Number of steps.

    Returns
    -------
    list of PhaseState
        The state after each step; the list ends early at the first state with a
        non-finite energy (``E = inf``).
    """
    out = []
    for _ in range(n_steps):
        p = p - 0.5 * step * grad
        x = x + step * p
        E, grad = _safe_eval(energy, x)
        if not np.isfinite(E):
            out.append(PhaseState(x=x, p=p, E=np.inf, grad=grad))
            break
        p = p - 0.5 * step * grad
        out.append(PhaseState(x=x, p=p, E=E, grad=grad))
    return out


@dataclass(frozen=True)
class Trajectory:
    """The outcome of one trajectory: accepted or not, ``delta_H`` = H(end) - H(start) of
    the simulated path (``inf`` when it met an impossible state; for windows the
    free-energy difference ``F_acc - F_rej``), the acceptance probability and the number
    of energy evaluations."""

    accepted: bool
    delta_H: float
    accept_prob: float
    evals: int


class HMC:
    """Hybrid Monte Carlo state and statistics for one chain, sampling ``exp(-E(x))``.

    Parameters
    ----------
    energy : callable
        ``energy(x) -> (E, grad)`` for x of shape (d,); the gradient (d,) may be a
        zero-argument callable. ``E = +inf`` (or NaN) marks an impossible state.
    x0 : ndarray of shape (d,)
        Start point; the energy must be finite there.
    rng : numpy.random.Generator
        Source of momenta, window offsets and acceptance draws.
    step_size : float or ndarray of shape (d,)
        Leapfrog step, per coordinate if an array; may be changed between trajectories
        (e.g. Neal's heuristic after each Gibbs update).
    n_steps : int
        Leapfrog steps per trajectory (L).
    window : int
        Acceptance window W, 1 <= W <= L + 1 (1: plain Metropolis acceptance).
    persistence : float
        Momentum persistence a in [0, 1) of :meth:`refresh_momentum`.
    momentum : ndarray of shape (d,), optional
        Initial momentum; zero by default, as in gp-mc-1 (call :meth:`refresh_momentum`
        with persistence 0 for a fresh draw).

    Attributes
    ----------
    x, p, grad : ndarray of shape (d,)
        Current position, momentum and gradient; ``E`` the current energy.
    evals, trajectories, accepted : int
        Energy evaluations, trajectories run and accepted so far.
    """

    def __init__(
        self,
        energy: EnergyGrad,
        x0: np.ndarray,
        rng: np.random.Generator,
        step_size: np.ndarray | float,
        n_steps: int = 1,
        window: int = 1,
        persistence: float = 0.0,
        momentum: np.ndarray | None = None,
    ):
        if n_steps < 1 or not 1 <= window <= n_steps + 1:
            raise ValueError("hmc: need n_steps >= 1 and 1 <= window <= n_steps + 1")
        if not 0.0 <= persistence < 1.0:
            raise ValueError("hmc: persistence must be in [0, 1)")
        self.rng = rng
        self.step_size = step_size
        self.n_steps = n_steps
        self.window = window
        self.persistence = persistence
        self.x = np.array(x0, dtype=float)
        self.p = np.zeros_like(self.x) if momentum is None else np.array(momentum, float)
        self.evals = 0
        self.trajectories = 0
        self.accepted = 0
        self.sum_accept_prob = 0.0
        self.set_energy(energy)
        if not np.isfinite(self.E):
            raise ValueError("hmc: the energy is not finite at the start point")

    # -- pieces ---------------------------------------------------------------------
    def set_energy(self, energy: EnergyGrad) -> None:
        """Use a new energy function (e.g. after a Gibbs update of hyperparameters) and
        re-evaluate E and its gradient at the current point."""
        self.energy = energy
        self.E, self.grad = _safe_eval(energy, self.x)
        self.evals += 1

    def kinetic(self) -> float:
        return 0.5 * float(self.p @ self.p)

    def hamiltonian(self) -> float:
        return self.E + self.kinetic()

    def refresh_momentum(self, persistence: float | None = None) -> None:
        """``p <- a p + sqrt(1 - a^2) nu``, ``nu ~ N(0, I)``; ``a`` defaults to the
        chain's persistence (0 = full refresh)."""
        a = self.persistence if persistence is None else persistence
        nu = self.rng.standard_normal(self.x.shape)
        self.p = a * self.p + np.sqrt(1.0 - a * a) * nu

    def trajectory(self) -> Trajectory:
        """One leapfrog trajectory and its accept/reject step (windowed if ``window > 1``)."""
        L, W = self.n_steps, self.window
        eps = self.step_size
        start = PhaseState(x=self.x, p=self.p, E=self.E, grad=self.grad)
        s = int(self.rng.integers(W)) if W > 1 else 0
        back = leapfrog(self.energy, self.x, self.p, self.grad, -eps, s) if s else []
        fwd = leapfrog(self.energy, self.x, self.p, self.grad, eps, L - s)
        evals = len(back) + len(fwd)
        self.evals += evals
        self.trajectories += 1
        complete = len(back) == s and len(fwd) == L - s
        if complete and np.isfinite([st.E for st in back + fwd]).all():
            states = back[::-1] + [start] + fwd  # indices 0..L, start at index s
            H = np.array([st.H for st in states])
            if W == 1:
                dH = H[L] - H[0]
            else:
                dH = float(logsumexp(-H[:W]) - logsumexp(-H[L - W + 1 :]))  # F_acc - F_rej
            prob = float(np.exp(min(0.0, -dH))) if np.isfinite(dH) else 0.0
        else:  # impossible: rejected, and the reject window is the start alone
            states, H, dH, prob = [], np.empty(0), np.inf, 0.0
        self.sum_accept_prob += prob
        if prob > 0 and self.rng.random() < prob:
            lo = L - W + 1
            k = lo + self._pick(H[lo:])
            new = states[k]
            self.x, self.p, self.E, self.grad = new.x, new.p, new.E, new.grad
            self.accepted += 1
            return Trajectory(accepted=True, delta_H=float(dH), accept_prob=prob, evals=evals)
        if W > 1 and states:  # a state of the reject window
            back_to = states[self._pick(H[:W])]
        else:
            back_to = start
        # negated momentum (persistence)
        self.x, self.p, self.E, self.grad = back_to.x, -back_to.p, back_to.E, back_to.grad
        return Trajectory(accepted=False, delta_H=float(dH), accept_prob=prob, evals=evals)

    def _pick(self, H: np.ndarray) -> int:
        if len(H) == 1:
            return 0
        w = np.exp(-(H - H.min()))
        return int(self.rng.choice(len(H), p=w / w.sum()))

    # -- convenience ----------------------------------------------------------------
    def step(self) -> Trajectory:
        """Neal's iteration without Gibbs: refresh the momentum, then one trajectory."""
        self.refresh_momentum()
        return self.trajectory()

    @property
    def acceptance_rate(self) -> float:
        """Share of trajectories accepted so far (NaN before the first)."""
        return self.accepted / self.trajectories if self.trajectories else float("nan")

    @property
    def mean_accept_prob(self) -> float:
        """Average Metropolis acceptance probability so far (NaN before the first)."""
        return self.sum_accept_prob / self.trajectories if self.trajectories else float("nan")
