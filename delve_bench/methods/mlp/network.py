"""The multilayer perceptron shared by mlp-ese-1 and mlp-mc-1 (Rasmussen 1996 §3.6,
§3.7): one hidden layer of tanh units, linear outputs, biases everywhere and direct
input->output connections (thesis eq. 3.12)::

    f_o(x) = sum_h v_oh tanh(sum_i u_hi x_i + a_h) + sum_i w_oi x_i + b_o

The weights live in one flat vector so that optimisers and samplers see a plain array.
Layout (``MlpShape``): first the (I+1) x H matrix ``[U; a]`` into the hidden units (row i
is input i, the last row the hidden biases), then the (H+I+1) x T matrix ``[V; W; b]``
into the outputs (hidden units, inputs, output bias). With this layout the forward and
backward passes are four matrix products over all cases at once (:class:`MlpData`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MlpShape:
    """Sizes of a network with I inputs, H hidden tanh units and T linear outputs."""

    n_in: int
    n_hidden: int
    n_out: int = 1

    @property
    def n_inner(self) -> int:
        """Weights into the hidden units: (I+1)*H (input->hidden and hidden biases)."""
        return (self.n_in + 1) * self.n_hidden

    @property
    def n_weights(self) -> int:
        """W(H) = (I+1)H + (H+I+1)T."""
        return self.n_inner + (self.n_hidden + self.n_in + 1) * self.n_out

    def inner(self, w: np.ndarray) -> np.ndarray:
        """View of ``[U; a]``, shape (I+1, H)."""
        return w[: self.n_inner].reshape(self.n_in + 1, self.n_hidden)

    def outer(self, w: np.ndarray) -> np.ndarray:
        """View of ``[V; W; b]``, shape (H+I+1, T)."""
        return w[self.n_inner :].reshape(self.n_hidden + self.n_in + 1, self.n_out)

    def group_index(self) -> dict[str, np.ndarray]:
        """Flat indices of the weight groups of Neal's prior (thesis §3.7).

        ``ih`` (I, H): row i = the H weights out of input i; ``bh`` (H,); ``ho`` (H, T);
        ``io`` (I, T): row i = the T weights out of input i; ``bo`` (T,).
        """
        I, H, T = self.n_in, self.n_hidden, self.n_out
        inner = np.arange(self.n_inner).reshape(I + 1, H)
        outer = self.n_inner + np.arange((H + I + 1) * T).reshape(H + I + 1, T)
        return {
            "ih": inner[:I],
            "bh": inner[I],
            "ho": outer[:H],
            "io": outer[H : H + I],
            "bo": outer[H + I],
        }

    def groups(self, w: np.ndarray) -> dict[str, np.ndarray]:
        """Views of ``w`` (W,) by weight group, shaped as :meth:`group_index` (each group is
        a contiguous run of the layout, so no index array is needed)."""
        I, H = self.n_in, self.n_hidden
        inner, outer = self.inner(w), self.outer(w)
        return {"ih": inner[:I], "bh": inner[I], "ho": outer[:H], "io": outer[H : H + I],
                "bo": outer[H + I]}  # fmt: skip

    def fan_in(self) -> np.ndarray:
        """Fan-in (bias included) of the unit each weight feeds: I+1 for weights into
        hidden units, H+I+1 for weights into outputs (App. A.3)."""
        f = np.empty(self.n_weights)
        f[: self.n_inner] = self.n_in + 1
        f[self.n_inner :] = self.n_hidden + self.n_in + 1
        return f


def ese_hidden_units(n: int, n_in: int, n_out: int = 1, validate_fraction: int = 3) -> int:
    """mlp-ese-1 size rule (thesis §3.6): the smallest H whose weight count reaches the
    number of training cases left after removing floor(n/3) validation cases,
    ``H = ceil((Nt - (I+1)T) / (I+T+1))``, clamped to H >= 1 (docs/methods/mlp.md,
    mlp-ese-1 departure 2)."""
    nt = n - n // validate_fraction
    h = math.ceil((nt - (n_in + 1) * n_out) / (n_in + n_out + 1))
    return max(1, h)


def mc_hidden_units(n: int, n_in: int, n_out: int = 1, lo: int = 6, hi: int = 25) -> int:
    """mlp-mc-1 size rule (thesis §3.7): the smallest H with P(H) >= n over the *whole*
    training set, clamped to 6 <= H <= 25 (I = 8, n = 64 gives 6)."""
    h = math.ceil((n - (n_in + 1) * n_out) / (n_in + n_out + 1))
    return int(min(hi, max(lo, h)))


def random_weights(shape: MlpShape, rng: np.random.Generator, scale: float = 0.1) -> np.ndarray:
    """``randomizeNet(0.1)`` of the thesis C code (App. A.3): every weight drawn from
    ``N(0, (0.1/sqrt(fan_in))^2)``, the fan-in counted at the destination unit including its
    bias (the code's 0.1/sqrt(fan_in), not the OCR'd text; docs/methods/mlp.md, mlp-ese-1
    departure 3)."""
    return scale * rng.standard_normal(shape.n_weights) / np.sqrt(shape.fan_in())


def forward(shape: MlpShape, w: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Outputs (n, T) of the network ``w`` for inputs X (n, I)."""
    inner, outer = shape.inner(w), shape.outer(w)
    H, I = shape.n_hidden, shape.n_in
    G = np.tanh(X @ inner[:I] + inner[I])
    return G @ outer[:H] + X @ outer[H : H + I] + outer[H + I]


def forward_many(shape: MlpShape, ws: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Outputs (n, K, T) of K networks, rows of ``ws`` (K, W), for inputs X (n, I); one
    batched product per layer, no loop over networks or cases."""
    I, H, T = shape.n_in, shape.n_hidden, shape.n_out
    K = ws.shape[0]
    inner = ws[:, : shape.n_inner].reshape(K, I + 1, H)
    outer = ws[:, shape.n_inner :].reshape(K, H + I + 1, T)
    G = np.tanh(np.einsum("ni,kih->knh", X, inner[:, :I]) + inner[:, None, I])
    F = G @ outer[:, :H] + np.einsum("ni,kit->knt", X, outer[:, H : H + I])
    F += outer[:, None, H + I]
    return F.transpose(1, 0, 2)


class MlpData:
    """A network shape bound to training data, with preallocated work arrays, giving the
    squared-error energy and its gradient by back-propagation for all cases at once.

    ``energy_grad(w, scale)`` returns ``E = 1/2 sum_c sum_o scale_o (f_o(x_c) - t_co)^2`` and
    dE/dw: the mlp-ese-1 training error with scale 1, the mlp-mc-1 likelihood energy with
    scale = noise precision (a scalar or one per output). The returned gradient is a fresh
    array (callers may keep it). :meth:`likelihood_into` is the same pass writing the
    gradient into a given buffer, as mlp-mc-1's sampler calls it at every leapfrog step.

    Speed (issue 30): every product is one BLAS call (``np.dot``, the least overhead)
    into a preallocated buffer, the
    elementwise work runs on contiguous arrays (a ufunc on a strided view of ``GX1`` is
    several times slower), and the views of a weight vector are made once per array (a
    sampler passes the same work buffer at every step).
    """

    def __init__(self, shape: MlpShape, X: np.ndarray, Y: np.ndarray):
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float).reshape(len(X), shape.n_out)
        n, I, H, T = len(X), shape.n_in, shape.n_hidden, shape.n_out
        self.shape, self.n, self.Y = shape, n, Y
        self.X1 = np.empty((n, I + 1))  # [X, 1]
        self.X1[:, :I] = X
        self.X1[:, I] = 1.0
        self.X1T = np.ascontiguousarray(self.X1.T)
        self.GX1 = np.empty((n, H + I + 1))  # [tanh(hidden), X, 1]
        self.GX1[:, H:] = self.X1
        self._GX1_hidden, self._GX1T = self.GX1[:, :H], self.GX1.T  # views, made once
        self._G = np.empty((n, H))  # hidden values, contiguous
        self._R = np.empty((n, T))  # residuals
        self._R2 = np.empty((n, T))
        self._D = np.empty((n, H))  # back-propagated errors
        self._S = np.empty((n, H))  # tanh'
        self.sum_x2 = (X * X).sum(axis=0)  # sum_c x_ci^2, for HMC step sizes (Neal's heuristic)
        self._w: np.ndarray | None = None
        self._g: np.ndarray | None = None

    def _forward(self, w: np.ndarray) -> np.ndarray:
        """Training-set outputs (n, T) into the work array ``_R``, hidden values into
        ``_G`` and ``GX1``. (Outputs are passed positionally: a keyword costs as much as
        a small ufunc's work.)"""
        if w is not self._w:
            s = self.shape
            self._w, self._inner, self._outer = w, s.inner(w), s.outer(w)
            self._VT = self._outer[: s.n_hidden].T  # (T, H) hidden->output weights
        G = self._G
        np.dot(self.X1, self._inner, G)
        np.tanh(G, G)
        np.copyto(self._GX1_hidden, G)
        return np.dot(self.GX1, self._outer, self._R)

    def outputs(self, w: np.ndarray) -> np.ndarray:
        """Training-set outputs (n, T) in a work array (overwritten by the next call);
        leaves the hidden values in ``GX1``."""
        return self._forward(w)

    def residuals(self, w: np.ndarray) -> np.ndarray:
        """f(x_c) - t_c for the training cases, shape (n, T)."""
        return self.outputs(w) - self.Y

    def energy(self, w: np.ndarray, scale: float | np.ndarray = 1.0) -> float:
        R = self.residuals(w)
        return 0.5 * float((R * R).sum(axis=0) @ np.broadcast_to(scale, self.shape.n_out))

    def energy_grad(
        self, w: np.ndarray, scale: float | np.ndarray = 1.0
    ) -> tuple[float, np.ndarray]:
        g = np.empty(self.shape.n_weights)
        return self.likelihood_into(w, scale, g), g

    def likelihood_into(
        self,
        w: np.ndarray,
        scale: float | np.ndarray,
        grad: np.ndarray,
        with_energy: bool = True,
    ) -> float:
        """The energy of :meth:`energy_grad`; its gradient (W,) is written into ``grad``.
        With ``with_energy=False`` only the gradient is computed (0 is returned)."""
        if grad is not self._g:
            s = self.shape
            self._g, self._ginner, self._gouter = grad, s.inner(grad), s.outer(grad)
        R = self._forward(w)
        np.subtract(R, self.Y, R)
        e = 0.0
        if getattr(scale, "ndim", 0) == 0:
            if with_energy:
                e = 0.5 * float(scale) * float(np.vdot(R, R))
            if scale != 1.0:
                np.multiply(R, scale, R)
        else:  # one scale (noise precision) per output
            if with_energy:
                np.multiply(R, R, self._R2)
                e = 0.5 * float(self._R2.sum(axis=0) @ scale)
            np.multiply(R, scale, R)
        np.dot(self._GX1T, R, self._gouter)  # dE/d[V; W; b]
        D, S, G = self._D, self._S, self._G
        # back-propagated error at the hidden units (one output: the same products as
        # a rank-1 matmul, without its BLAS call)
        if R.shape[1] == 1:
            np.multiply(R, self._VT, D)
        else:
            np.matmul(R, self._VT, D)
        np.multiply(G, G, S)
        np.subtract(1.0, S, S)
        np.multiply(D, S, D)
        np.dot(self.X1T, D, self._ginner)  # dE/d[U; a]
        return e
