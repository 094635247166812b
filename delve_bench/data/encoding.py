"""DELVE's default attribute encoding, fitted on an instance's training set only.

DELVE 1.1's ``nm-abs`` and ``1-of-n`` codings as Rasmussen (1996) §3.2 describes them
(docs/architecture.md):

* real and integer inputs and targets: ``nm-abs``, ``(x - median) / absDev`` with the
  midpoint median and ``absDev = sum|x - median| / (n - 1)``; a constant column
  (absDev = 0) is only centred;
* binary: 0/1, the first listed value encoding to 0 (the thesis' "binary -> 0/1");
* nominal: one-of-n, one 0/1 column per value.

Missing inputs (NaN) stay NaN. Predictions are decoded with ``y = c + s * y'`` and log
densities with the Jacobian ``- log s``.

A binary or nominal **target** makes a classification task: the method receives class
codes 0 .. C-1 (code c is the attribute's c-th listed value, so every instance of a task
uses the same codes whichever classes its training set happens to contain) and returns
class probabilities, which need no decoding. The coding keeps the training set's class
counts (``class_counts``): what the method could learn about the class frequencies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .spec import Attribute


def median(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """The midpoint median (mean of the two middle values for an even count)."""
    return np.nanmedian(x, axis=axis)


def abs_dev(x: np.ndarray, axis: int = 0) -> np.ndarray:
    """DELVE's absDev: sum |x - median| / (n - 1)."""
    n = np.sum(~np.isnan(x), axis=axis)
    med = median(x, axis)
    return np.nansum(np.abs(x - np.expand_dims(med, axis)), axis=axis) / np.maximum(n - 1, 1)


@dataclass(frozen=True)
class Coding:
    """A fitted encoding of the input columns and the single target (real, or categorical
    with ``classes``)."""

    attributes: tuple[Attribute, ...]
    center: np.ndarray
    scale: np.ndarray
    target_center: float
    target_scale: float
    classes: tuple[str, ...] = ()  # class labels of a categorical target, else ()
    class_counts: np.ndarray | None = None  # training cases per class

    @property
    def categorical(self) -> bool:
        return bool(self.classes)

    @property
    def kinds(self) -> list[str]:
        """Kind of every encoded input column ('real' or 'binary')."""
        out: list[str] = []
        for a in self.attributes:
            out += (
                ["binary"] * len(a.values)
                if a.kind == "nominal"
                else ["binary" if a.kind == "binary" else "real"]
            )
        return out

    def inputs(self, raw: np.ndarray) -> np.ndarray:
        """Encode raw input columns (one per attribute) to the method's input matrix."""
        cols = []
        for j, a in enumerate(self.attributes):
            x = raw[:, j]
            if a.kind == "nominal":
                onehot = (x[:, None] == np.arange(len(a.values))[None, :]).astype(np.float64)
                onehot[np.isnan(x)] = np.nan
                cols.append(onehot)
            elif a.kind == "binary":
                cols.append(x[:, None].copy())  # the value's index: 0 or 1
            else:
                cols.append(((x - self.center[j]) / self.scale[j])[:, None])
        return np.hstack(cols) if cols else np.empty((len(raw), 0))

    def target(self, y: np.ndarray) -> np.ndarray:
        """Encoded targets: real ones nm-abs scaled; categorical ones as int class codes."""
        if self.classes:
            return np.asarray(y, dtype=float).astype(np.intp)
        return (y - self.target_center) / self.target_scale

    def decode(self, y: np.ndarray) -> np.ndarray:
        return self.target_center + self.target_scale * np.asarray(y)

    @property
    def log_jacobian(self) -> float:
        """Add to an encoded-space log density to get the original-units one."""
        return -float(np.log(self.target_scale))


def _nm_abs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = median(x, 0)
    s = abs_dev(x, 0)
    return c, np.where((s > 0) & np.isfinite(s), s, 1.0)


def fit_coding(
    x_raw: np.ndarray, y_raw: np.ndarray, attributes: Sequence[Attribute], target: Attribute
) -> Coding:
    """Fit the default encoding on one training set (raw inputs ``x_raw``, targets ``y_raw``)."""
    c, s = _nm_abs(x_raw) if x_raw.size else (np.zeros(0), np.ones(0))
    if target.kind in ("binary", "nominal"):
        if np.isnan(y_raw).any():
            raise ValueError(f"target {target.name} is missing for some training cases")
        counts = np.bincount(y_raw.astype(np.intp), minlength=len(target.values))
        return Coding(
            attributes=tuple(attributes),
            center=c,
            scale=s,
            target_center=0.0,
            target_scale=1.0,
            classes=tuple(target.values),
            class_counts=counts,
        )
    if target.kind not in ("real", "integer"):
        raise ValueError(f"target {target.name} is {target.kind}; it cannot be encoded")
    tc, ts = _nm_abs(y_raw[:, None])
    return Coding(
        attributes=tuple(attributes),
        center=c,
        scale=s,
        target_center=float(tc[0]),
        target_scale=float(ts[0]),
    )
