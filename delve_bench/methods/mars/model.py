"""Fit MARS 3.6 end to end: standardize, forward pass, backward pass, cubic model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .backward import BackwardPass, backward_pass
from .basis import BasisFunction, MarsSettings, linear_design
from .cubic import CubicModel, fit_cubic
from .forward import ForwardPass, forward_pass


@dataclass(frozen=True)
class MarsFit:
    """A fitted MARS model; knots are held in standardized units (``(x - mean) / scale``).

    ``forward`` and ``backward`` are the two passes, ``cubic`` the final
    piecewise-cubic model; :meth:`predict` uses it unless ``cubic=False``.
    """

    settings: MarsSettings
    mean: np.ndarray
    scale: np.ndarray
    forward: ForwardPass
    backward: BackwardPass
    cubic: CubicModel

    @property
    def selected(self) -> list[int]:
        """1-based numbers of the basis functions the backward pass kept."""
        return [int(m) + 1 for m in np.flatnonzero(self.backward.selected)]

    def standardize(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=float) - self.mean) / self.scale

    def predict(self, X: np.ndarray, cubic: bool = True) -> np.ndarray:
        """Predictions at ``X`` (n, p): the piecewise-cubic model, or the linear one."""
        Z = self.standardize(X)
        if cubic:
            return self.cubic.predict(Z)
        sel = self.selected
        b = self.backward
        return (
            b.intercept + linear_design(Z, self.forward.basis, sel) @ b.coef[np.array(sel, int) - 1]
        )

    def basis_function(self, m: int) -> BasisFunction:
        """Basis function ``m`` with its knot in the input's own units."""
        f = self.forward.basis[m - 1]
        return BasisFunction(
            f.variable,
            f.sign,
            float(self.mean[f.variable] + self.scale[f.variable] * f.knot),
            f.parent,
        )

    def describe(self) -> dict:
        """Facts for meta.json: the basis functions (input index from 0, knot in input
        units, sign, parent from 1; 0 = constant), which were selected, GCVs."""
        sel = set(self.selected)
        bfs = []
        for m in range(1, len(self.forward.basis) + 1):
            f = self.basis_function(m)
            bfs.append(
                {
                    "bf": m,
                    "input": f.variable,
                    "knot": f.knot,
                    "sign": f.sign,
                    "parent": f.parent,
                    "linear": bool(self.forward.basis[m - 1].knot <= self.forward.xmin[f.variable]),
                    "selected": m in sel,
                    "coef_linear": float(self.backward.coef[m - 1]),
                }
            )
        return {
            "basis_functions": bfs,
            "n_selected": len(sel),
            "forward_iterations": self.forward.iterations,
            "n_independent": self.backward.n_independent,
            "cost_per_bf": self.backward.cost_per_bf,
            "gcv_linear": self.backward.gcv,
            "gcv_cubic": self.cubic.gcv,
        }


def fit_mars(X: np.ndarray, y: np.ndarray, settings: MarsSettings | None = None) -> MarsFit:
    """Fit MARS 3.6 to inputs ``X`` (n, p) and targets ``y`` (n,).

    Inputs are standardized internally (mean 0, population SD 1; constant inputs are
    never used), which changes nothing but the units of the duplicate-knot tolerance.
    """
    settings = settings or MarsSettings()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError(f"need X (n, p) and y (n,), got {X.shape} and {y.shape}")
    if len(y) < 2:
        raise ValueError("MARS needs at least 2 training cases")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("MARS needs finite inputs and targets")
    mean = X.mean(axis=0)
    sd = np.sqrt(((X - mean) ** 2).mean(axis=0))
    scale = np.where(sd > 0, sd, 1.0)
    Z = (X - mean) / scale
    fwd = forward_pass(Z, y, settings)
    bwd = backward_pass(fwd.columns, y, fwd.iterations, fwd.knot_cost)
    sel = [int(m) + 1 for m in np.flatnonzero(bwd.selected)]
    cub = fit_cubic(Z, y, fwd.basis, sel, bwd.cost_per_bf, fwd.xmin, fwd.xmax)
    return MarsFit(settings=settings, mean=mean, scale=scale, forward=fwd, backward=bwd, cubic=cub)
