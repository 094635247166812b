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
A trajectory that meets a non-finite energy is stopped there (or, for a state between the
windows whose energy is not computed, at the next state whose energy is) and rejected as
a whole: the rule depends only on the set of states of the trajectory, so it keeps
detailed balance.

Speed (issue 30): a trajectory runs in place on preallocated position, momentum and
gradient buffers, and keeps copies of the states of the two windows only (the others are
never looked at, so an :class:`Energy` is asked only for their gradient). An energy that
writes its gradient into a given buffer (:class:`Energy`, e.g. mlp-mc-1's network pass)
is called directly; a plain ``energy(x) -> (E, grad)`` function is wrapped
(:class:`FunctionEnergy`). The arithmetic of a step is the one written above, in the same
order, so the path does not depend on which kind of energy is given beyond what the
energy itself computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

EnergyGrad = Callable[[np.ndarray], tuple[float, np.ndarray]]


class Energy:
    """A potential energy that writes its gradient into the caller's buffer.

    Subclasses implement :meth:`into`; the sampler calls it once per leapfrog step, so it
    should avoid temporaries.
    """

    def into(self, x: np.ndarray, grad: np.ndarray, with_energy: bool = True) -> float:
        """Return ``E(x)`` and write ``dE/dx`` (shape (d,)) into ``grad``.

        Return ``inf`` for an impossible state (``grad`` is then ignored); a finite
        energy must come with a finite gradient. With ``with_energy=False`` the sampler
        needs only the gradient (a state inside a trajectory that no window holds): an
        energy may then skip computing E and return any finite number, provided that an
        impossible state leaves a non-finite position or gradient (which the sampler
        carries to the trajectory's last state, whose energy it does ask for).
        """
        raise NotImplementedError


class FunctionEnergy(Energy):
    """An ``energy(x) -> (E, dE/dx)`` function (the gradient may be a zero-argument
    callable, resolved only where E is finite) as an :class:`Energy`; a non-finite E or
    gradient is an impossible state."""

    def __init__(self, energy: EnergyGrad):
        self.energy = energy

    def into(self, x: np.ndarray, grad: np.ndarray, with_energy: bool = True) -> float:
        E, g = self.energy(x)
        E = float(E)
        if not math.isfinite(E):
            return math.inf
        g = np.asarray(g() if callable(g) else g, dtype=float)
        if not np.all(np.isfinite(g)):
            return math.inf
        grad[...] = g
        return E


def as_energy(energy: EnergyGrad | Energy) -> Energy:
    """``energy`` itself if it is an :class:`Energy`, else wrapped as one."""
    return energy if isinstance(energy, Energy) else FunctionEnergy(energy)


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


class _Kept(NamedTuple):
    x: np.ndarray
    p: np.ndarray
    E: float
    grad: np.ndarray
    H: float


def _run(
    energy: Energy,
    x: np.ndarray,
    p: np.ndarray,
    grad: np.ndarray,
    step: np.ndarray | float,
    n: int,
    keep: Callable[[int], bool],
) -> tuple[int, bool, list[tuple[int, _Kept]]]:
    """``n`` leapfrog steps in place on ``x``, ``p``, ``grad``, each
    ``p -= step/2 grad; x += step p; grad = dE/dx; p -= step/2 grad``.

    Returns the steps taken, False if the last of them met an impossible state (True
    otherwise), and copies of the states ``k`` (1..n) with ``keep(k)``, the only ones
    whose energy is asked for (see :meth:`Energy.into`). ``step/2 grad`` of a step's second half-kick is the first
    half-kick of the next: computed once, the same numbers."""
    half = 0.5 * step
    kick = half * grad
    tmp = np.empty_like(x)
    out: list[tuple[int, _Kept]] = []
    multiply, subtract, add, into, isfinite = (
        np.multiply,
        np.subtract,
        np.add,
        energy.into,
        math.isfinite,
    )
    for k in range(1, n + 1):  # (ufunc outputs passed positionally: keywords cost time)
        subtract(p, kick, p)
        multiply(step, p, tmp)
        add(x, tmp, x)
        want = keep(k)
        E = into(x, grad, want)
        if not isfinite(E):
            return k, False, out
        multiply(half, grad, kick)
        subtract(p, kick, p)
        if want:
            H = E + 0.5 * float(p @ p)
            if not math.isfinite(H):
                return k, False, out
            out.append((k, _Kept(x.copy(), p.copy(), E, grad.copy(), H)))
    return n, True, out


def leapfrog(
    energy: EnergyGrad | Energy,
    x: np.ndarray,
    p: np.ndarray,
    grad: np.ndarray,
    step: np.ndarray | float,
    n_steps: int,
) -> list[PhaseState]:
    """``n_steps`` leapfrog steps from ``(x, p)`` (the inputs are not changed).

    Parameters
    ----------
    energy : callable or Energy
        ``energy(x) -> (E, dE/dx)`` (the gradient may be a zero-argument callable), or an
        :class:`Energy`.
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
        non-finite energy (``E = inf``, zero gradient).
    """
    xw, pw, gw = (np.array(v, dtype=float) for v in (x, p, grad))
    _, ok, states = _run(as_energy(energy), xw, pw, gw, step, n_steps, lambda k: True)
    out = [PhaseState(x=st.x, p=st.p, E=st.E, grad=st.grad) for _, st in states]
    if not ok:
        out.append(PhaseState(x=xw.copy(), p=pw.copy(), E=math.inf, grad=np.zeros_like(xw)))
    return out


def categorical_draw(prob: np.ndarray, rng: np.random.Generator) -> int:
    """One index drawn with probabilities ``prob`` (k,), the draw that
    ``rng.choice(k, p=prob)`` makes (inverse CDF of one uniform) without its argument
    checks, which cost more than the rest of a trajectory's bookkeeping."""
    cdf = prob.cumsum()
    cdf /= cdf[-1]
    return int(cdf.searchsorted(rng.random(), side="right"))


def _neg_log_sum_exp(H: np.ndarray) -> float:
    """``-log sum exp(-H)`` (a window's free energy), shifted by the smallest H."""
    m = float(H.min())
    return m - math.log(float(np.exp(m - H).sum()))


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
    energy : callable or Energy
        ``energy(x) -> (E, grad)`` for x of shape (d,); the gradient (d,) may be a
        zero-argument callable. Or an :class:`Energy` writing its gradient in place.
        ``E = +inf`` (or NaN) marks an impossible state.
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
        Current position, momentum and gradient; ``E`` the current energy. An update
        replaces these arrays rather than changing them in place.
    evals, trajectories, accepted : int
        Energy evaluations, trajectories run and accepted so far.
    """

    def __init__(
        self,
        energy: EnergyGrad | Energy,
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
        # leapfrog work buffers: position, momentum, gradient
        self._xw, self._pw, self._gw = (np.empty_like(self.x) for _ in range(3))
        self.evals = 0
        self.trajectories = 0
        self.accepted = 0
        self.sum_accept_prob = 0.0
        self.set_energy(energy)
        if not np.isfinite(self.E):
            raise ValueError("hmc: the energy is not finite at the start point")

    # -- pieces ---------------------------------------------------------------------
    def set_energy(self, energy: EnergyGrad | Energy) -> None:
        """Use a new energy function (e.g. after a Gibbs update of hyperparameters) and
        re-evaluate E and its gradient at the current point."""
        self.energy = as_energy(energy)
        self.grad = np.empty_like(self.x)
        self.E = self.energy.into(self.x, self.grad)
        if not math.isfinite(self.E):
            self.E = math.inf
            self.grad[...] = 0.0
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

    def _simulate(self, step, n: int, index0: int, direction: int, kept: dict) -> bool:
        """``n`` leapfrog steps from the current state, keeping the window states
        (``kept``: trajectory index -> state); False after an impossible state."""
        L, W = self.n_steps, self.window
        xw, pw, gw = self._xw, self._pw, self._gw
        np.copyto(xw, self.x)
        np.copyto(pw, self.p)
        np.copyto(gw, self.grad)

        def in_window(k: int) -> bool:
            i = index0 + direction * k
            return i < W or i > L - W

        # states between the windows are simulated for their gradient only: a non-finite
        # position or momentum stays non-finite and shows in the H of the trajectory's
        # last state, which is always kept
        done, ok, states = _run(self.energy, xw, pw, gw, step, n, in_window)
        self.evals += done
        for k, st in states:
            kept[index0 + direction * k] = st
        return ok

    def trajectory(self) -> Trajectory:
        """One leapfrog trajectory and its accept/reject step (windowed if ``window > 1``)."""
        L, W = self.n_steps, self.window
        eps = self.step_size
        evals0 = self.evals
        s = int(self.rng.integers(W)) if W > 1 else 0
        kept: dict[int, _Kept] = {s: _Kept(self.x, self.p, self.E, self.grad, self.hamiltonian())}
        ok = True
        if s:
            ok = self._simulate(-eps, s, s, -1, kept)
        if ok:
            ok = self._simulate(eps, L - s, s, +1, kept)
        evals = self.evals - evals0
        self.trajectories += 1
        lo = L - W + 1
        if ok:
            H_rej = np.array([kept[i].H for i in range(W)])
            H_acc = np.array([kept[i].H for i in range(lo, L + 1)])
            if W == 1:
                dH = H_acc[0] - H_rej[0]
            else:  # F_acc - F_rej
                dH = _neg_log_sum_exp(H_acc) - _neg_log_sum_exp(H_rej)
            prob = float(np.exp(min(0.0, -dH))) if np.isfinite(dH) else 0.0
        else:  # impossible: rejected, and the reject window is the start alone
            dH, prob = math.inf, 0.0
        self.sum_accept_prob += prob
        if prob > 0 and self.rng.random() < prob:
            new = kept[lo + self._pick(H_acc)]
            self._set(new, negate=False)
            self.accepted += 1
            return Trajectory(accepted=True, delta_H=float(dH), accept_prob=prob, evals=evals)
        # the start, or a state of the reject window; momentum negated (persistence)
        back_to = kept[self._pick(H_rej)] if W > 1 and ok else kept[s]
        self._set(back_to, negate=True)
        return Trajectory(accepted=False, delta_H=float(dH), accept_prob=prob, evals=evals)

    def _set(self, st: _Kept, negate: bool) -> None:
        # kept states are fresh copies: the sampler's arrays are replaced, never changed
        # in place, so a caller may keep a reference to ``x``
        self.x, self.grad, self.E = st.x, st.grad, st.E
        self.p = -st.p if negate else st.p

    def _pick(self, H: np.ndarray) -> int:
        """A window index drawn with probability proportional to exp(-H)."""
        if len(H) == 1:
            return 0
        w = np.exp(-(H - H.min()))
        return categorical_draw(w / w.sum(), self.rng)

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
