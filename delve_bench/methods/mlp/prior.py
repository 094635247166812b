"""Neal's hierarchical gamma priors for mlp-mc-1 and their Gibbs updates
(Rasmussen 1996 §3.7 and App. A.4; FBM bnn.1996-08-26 ``prior.c``, ``net-prior.c``,
``net-mc.c``).

The thesis' run script (App. A.4) is ::

    net-spec  log 8 H 1 / - x0.2:0.5:1 0.1:0.5 - x0.05:0.5 x0.2:0.5:1 1
    model-spec log real 0.05:0.5

i.e. (precisions tau = 1/sigma^2, ``Gamma(mean, alpha)`` in Neal's parameterisation, eq. 3.14)

* noise: ``tau_eps ~ Gamma(400, 0.5)``;
* hidden biases: one ``tau_bh ~ Gamma(100, 0.5)``;
* hidden->output: one ``tau_ho ~ Gamma(400 H, 0.5)`` (width 0.05 scaled by H;
  docs/methods/mlp.md, mlp-mc-1 departure 3);
* input->hidden (ARD): ``tau_i ~ Gamma(omega_ih, 1)`` per input, ``omega_ih ~ Gamma(25 I^2, 0.5)``;
* input->output (ARD, its own hyperparameters): the same form, ``tau'_i``, ``omega_io``;
* output bias: sigma fixed at 1.

Each conditional of a precision is a gamma distribution; the top-level ARD precision given
the I per-input precisions is a generalised inverse Gaussian, sampled exactly by
:func:`delve_bench.numerics.gig.gig_draw` (scipy's method and draws, without its
per-call overhead; FBM used adaptive rejection sampling on log omega; same distribution).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...numerics.gig import gig_draw
from .network import MlpShape


def scaled_precision(width: float, n_source: int, alpha: float) -> float:
    """Mean precision of an ``x``-scaled prior width (FBM ``prior_width_scaled``).

    ``alpha`` is the shape of the lowest level that has one (inf if none): the precision is
    ``N^(2/alpha)/W^2`` for alpha < 2, ``N log N / W^2`` for alpha = 2 (N >= 3),
    ``N alpha/(alpha-2) / W^2`` for alpha > 2 and ``N / W^2`` for alpha = inf.
    """
    n = float(n_source)
    if math.isinf(alpha):
        scale = n
    elif alpha < 2:
        scale = n ** (2.0 / alpha)
    elif alpha == 2:
        scale = n * math.log(n) if n >= 3 else n
    else:
        scale = n * alpha / (alpha - 2)
    return scale / width**2


def gamma_conditional(
    rng: np.random.Generator, mean: float | np.ndarray, alpha: float, k, ss
) -> np.ndarray:
    """Sample a precision with prior ``Gamma(mean, alpha)`` given ``k`` zero-mean Gaussian
    values of sum of squares ``ss``: ``Gamma(shape=(alpha+k)/2, rate=(alpha/mean+ss)/2)``
    (FBM ``net-mc.c``). Vectorised over array arguments; all-scalar arguments take
    numpy's scalar path (the same draw, without the array checks)."""
    if np.ndim(mean) == 0 and np.ndim(k) == 0 and np.ndim(ss) == 0:
        rate = 0.5 * (alpha / float(mean) + float(ss))
        return np.asarray(rng.gamma(0.5 * (alpha + float(k)), 1.0 / rate))
    shape = 0.5 * (alpha + np.asarray(k, dtype=float))
    rate = 0.5 * (alpha / np.asarray(mean, dtype=float) + np.asarray(ss, dtype=float))
    return rng.gamma(shape, 1.0 / rate)


def top_level_conditional(
    rng: np.random.Generator, taus: np.ndarray, mu0: float, alpha0: float, alpha1: float
) -> float:
    """Sample the top-level mean precision omega of an ARD group given its I lower-level
    precisions ``taus`` (each ``~ Gamma(omega, alpha1)``), with prior ``omega ~ Gamma(mu0,
    alpha0)``. The conditional is ``omega^(p-1) exp(-(a omega + b/omega)/2)`` with
    ``p = (alpha0 - I alpha1)/2``, ``a = alpha0/mu0``, ``b = alpha1 sum(taus)``,
    a generalised inverse Gaussian."""
    p = 0.5 * (alpha0 - len(taus) * alpha1)
    a = alpha0 / mu0
    b = alpha1 * float(np.sum(taus))
    # scipy's geninvgauss(p, sqrt(ab), scale=sqrt(b/a)), drawn without its overhead
    return gig_draw(p, math.sqrt(a * b), rng) * math.sqrt(b / a)


@dataclass(frozen=True)
class NealPrior:
    """The mlp-mc-1 prior (thesis §3.7, docs/methods/mlp.md) for a network shape; widths and
    shapes as in the
    thesis script. ``mean``s are mean precisions, ``alpha``s Neal's shape parameters."""

    shape: MlpShape
    noise_width: float = 0.05
    noise_alpha: float = 0.5
    bh_width: float = 0.1
    bh_alpha: float = 0.5
    ho_width: float = 0.05  # x-scaled by H
    ho_alpha: float = 0.5
    ard_width: float = 0.2  # x-scaled by I, for both input->hidden and input->output
    ard_alpha_top: float = 0.5
    ard_alpha_input: float = 1.0
    bo_sigma: float = 1.0
    index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", self.shape.group_index())

    @property
    def noise_mean(self) -> float:
        return 1.0 / self.noise_width**2  # 400

    @property
    def bh_mean(self) -> float:
        return 1.0 / self.bh_width**2  # 100

    @property
    def ho_mean(self) -> float:
        return scaled_precision(self.ho_width, self.shape.n_hidden, math.inf)  # 400 H

    @property
    def ard_mean(self) -> float:
        return scaled_precision(self.ard_width, self.shape.n_in, self.ard_alpha_input)  # 25 I^2

    def initial_hypers(self, low: float = 0.1, out: float = 0.5) -> Hypers:
        """``net-gen fix 0.1 0.5`` + the model-spec noise width (the App. A.4 script's first
        step): sigmas
        of groups into hidden units 0.1, into output units 0.5, noise sigma 0.05."""
        I = self.shape.n_in
        return Hypers(
            noise=np.full(self.shape.n_out, 1.0 / self.noise_width**2),
            bh=1.0 / low**2,
            ho=1.0 / out**2,
            ih=np.full(I, 1.0 / low**2),
            ih_top=1.0 / low**2,
            io=np.full(I, 1.0 / out**2),
            io_top=1.0 / out**2,
        )

    def precisions(self, h: Hypers) -> np.ndarray:
        """The prior precision of every weight (flat, in the network's layout)."""
        prec = np.empty(self.shape.n_weights)
        g = self.shape.groups(prec)
        g["ih"][...] = h.ih[:, None]
        g["bh"][...] = h.bh
        g["ho"][...] = h.ho
        g["io"][...] = h.io[:, None]
        g["bo"][...] = 1.0 / self.bo_sigma**2
        return prec

    def sample_noise(self, rng: np.random.Generator, h: Hypers, resid: np.ndarray) -> None:
        """Gibbs update of the noise precision of each output given the training residuals
        (n, T): K = n, SS = sum of squared residuals (FBM ``sample-noise``)."""
        ss = (resid * resid).sum(axis=0)
        if len(ss) == 1:  # numpy's scalar path: the same draw, a third of the time
            ss = float(ss[0])
        noise = gamma_conditional(rng, self.noise_mean, self.noise_alpha, len(resid), ss)
        h.noise = noise.reshape(-1)

    def sample_sigmas(self, rng: np.random.Generator, h: Hypers, w: np.ndarray) -> None:
        """Gibbs update of all weight hyperparameters given the weights, in FBM's order:
        ih (per input, then top), bh, ho, io (per input, then top); bo is fixed."""
        ix, a1, a0 = self.shape.groups(w), self.ard_alpha_input, self.ard_alpha_top
        ih = ix["ih"]  # (I, H)
        h.ih = gamma_conditional(rng, h.ih_top, a1, ih.shape[1], (ih * ih).sum(axis=1))
        h.ih_top = top_level_conditional(rng, h.ih, self.ard_mean, a0, a1)
        bh = ix["bh"]
        h.bh = float(gamma_conditional(rng, self.bh_mean, self.bh_alpha, bh.size, bh @ bh))
        ho = ix["ho"]
        h.ho = float(gamma_conditional(rng, self.ho_mean, self.ho_alpha, ho.size, np.vdot(ho, ho)))
        io = ix["io"]  # (I, T)
        h.io = gamma_conditional(rng, h.io_top, a1, io.shape[1], (io * io).sum(axis=1))
        h.io_top = top_level_conditional(rng, h.io, self.ard_mean, a0, a1)

    def step_scales(self, h: Hypers, n: int, sum_x2: np.ndarray) -> np.ndarray:
        """Neal's per-weight step-size factors ``e_k = 1/sqrt(H_k)``, H_k an estimate of the
        largest second derivative of the energy in weight k (Neal's heuristic, FBM
        ``net-mc.c``): the prior precision plus the data curvature, with ``s_o = tau_eps,o``
        per output and
        ``s_h = sigma_ho^2 sum_o s_o`` per hidden unit."""
        s_o = np.asarray(h.noise, dtype=float)  # (T,)
        s_h = float(s_o.sum()) / h.ho
        curv = np.empty(self.shape.n_weights)
        g = self.shape.groups(curv)
        g["ih"][...] = h.ih[:, None] + sum_x2[:, None] * s_h
        g["bh"][...] = h.bh + n * s_h
        g["ho"][...] = h.ho + n * s_o[None, :]
        g["io"][...] = h.io[:, None] + sum_x2[:, None] * s_o[None, :]
        g["bo"][...] = 1.0 / self.bo_sigma**2 + n * s_o
        return 1.0 / np.sqrt(curv)


@dataclass
class Hypers:
    """Current hyperparameters of mlp-mc-1, all as precisions (1/sigma^2).

    ``noise`` (T,); ``bh``, ``ho`` scalars; ``ih``, ``io`` (I,) per-input (ARD) precisions
    with their top-level mean precisions ``ih_top``, ``io_top``.
    """

    noise: np.ndarray
    bh: float
    ho: float
    ih: np.ndarray
    ih_top: float
    io: np.ndarray
    io_top: float

    def copy(self) -> Hypers:
        return Hypers(
            noise=self.noise.copy(),
            bh=self.bh,
            ho=self.ho,
            ih=self.ih.copy(),
            ih_top=self.ih_top,
            io=self.io.copy(),
            io_top=self.io_top,
        )

    def as_vector(self) -> np.ndarray:
        """All values in one vector: noise, bh, ho, ih, ih_top, io, io_top."""
        return np.concatenate(
            [self.noise, [self.bh, self.ho], self.ih, [self.ih_top], self.io, [self.io_top]]
        )

    def sigmas(self) -> dict:
        """The hyperparameters as standard deviations, for meta.json (ARD relevances: a
        small ``ih``/``io`` sigma means the input barely matters)."""
        return {
            "noise": 1.0 / np.sqrt(self.noise),
            "hidden_bias": 1.0 / math.sqrt(self.bh),
            "hidden_output": 1.0 / math.sqrt(self.ho),
            "input_hidden": 1.0 / np.sqrt(self.ih),
            "input_hidden_top": 1.0 / math.sqrt(self.ih_top),
            "input_output": 1.0 / np.sqrt(self.io),
            "input_output_top": 1.0 / math.sqrt(self.io_top),
        }
