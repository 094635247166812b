"""A search space of hyperparameters and its fixed, seeded sequence of configurations.

A method YAML writes the space as ``{name: [kind, ...]}``::

    learning_rate: [log, 0.01, 0.3]      # log-uniform on [0.01, 0.3]
    subsample: [uniform, 0.5, 1.0]       # uniform on [0.5, 1.0]
    max_depth: [int, 2, 10]              # uniform on the integers 2 .. 10
    min_child_weight: [logint, 1, 32]    # log-uniform, rounded down to an integer in 1 .. 32
    booster: [choice, gbtree, dart]      # one of the listed values, equally likely

Configuration 0 is the library's defaults (with the method's ``first_config`` on top), so
the search always weighs the untuned estimator; configuration i >= 1 is drawn from its own
generator, seeded by ``(seed, i)``. Configuration i therefore does not depend on how many
are drawn: a smaller budget evaluates a prefix of a larger one's configurations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

KINDS = ("uniform", "log", "int", "logint", "choice")


@dataclass(frozen=True)
class Dimension:
    """One hyperparameter: its name, kind and range (or its choices)."""

    name: str
    kind: str
    values: tuple

    def draw(self, u: float):
        """The value at quantile ``u`` in [0, 1) of this dimension's distribution."""
        if self.kind == "choice":
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        lo, hi = self.values
        if self.kind == "uniform":
            return float(lo + u * (hi - lo))
        if self.kind == "log":
            return float(math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo))))
        if self.kind == "int":  # uniform on lo .. hi
            return int(min(lo + math.floor(u * (hi - lo + 1)), hi))
        # logint: log-uniform on [lo, hi + 1), rounded down, so every integer is reachable
        x = math.exp(math.log(lo) + u * (math.log(hi + 1) - math.log(lo)))
        return int(min(math.floor(x), hi))


def parse_space(space: dict) -> tuple[Dimension, ...]:
    """The dimensions of a YAML search space, sorted by name (the order of the draws).

    Parameters
    ----------
    space : dict of str to list
        ``{name: [kind, low, high]}`` or ``{name: [choice, v1, v2, ...]}``.

    Returns
    -------
    tuple of Dimension

    Raises
    ------
    ValueError
        One line naming the dimension that is malformed.
    """
    if not isinstance(space, dict):
        raise ValueError("space must be a mapping {name: [kind, ...]}")
    dims = []
    for name in sorted(space):
        spec = space[name]
        if not isinstance(spec, list | tuple) or not spec or spec[0] not in KINDS:
            raise ValueError(
                f"space.{name}: expected [kind, ...] with kind one of {', '.join(KINDS)}"
            )
        kind, rest = spec[0], tuple(spec[1:])
        if kind == "choice":
            if not rest:
                raise ValueError(f"space.{name}: a choice needs at least one value")
        else:
            if len(rest) != 2 or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in rest
            ):
                raise ValueError(f"space.{name}: {kind} needs two numbers, low and high")
            lo, hi = rest
            if not lo < hi:
                raise ValueError(f"space.{name}: low {lo} must be below high {hi}")
            if kind in ("log", "logint") and lo <= 0:
                raise ValueError(f"space.{name}: a log range needs low > 0, not {lo}")
            if kind in ("int", "logint") and not (
                float(lo).is_integer() and float(hi).is_integer()
            ):
                raise ValueError(f"space.{name}: {kind} needs whole numbers, not {lo}, {hi}")
            if kind in ("int", "logint"):
                rest = (int(lo), int(hi))
        dims.append(Dimension(name, kind, rest))
    return tuple(dims)


def configuration(dims: tuple[Dimension, ...], seed: int, index: int, first: dict) -> dict:
    """Configuration ``index`` of the seeded sequence.

    Parameters
    ----------
    dims : tuple of Dimension
        The search space (:func:`parse_space`).
    seed : int
        The sequence's seed (drawn once per instance from the method's generator).
    index : int
        0 for the library's defaults updated with ``first``; i >= 1 for the i-th draw.
    first : dict
        The parameters of configuration 0 that differ from the library's defaults.

    Returns
    -------
    dict
        Parameter name -> value; only the searched (or ``first``) parameters appear.
    """
    if index == 0:
        return dict(first)
    u = np.random.default_rng([seed, index]).random(len(dims))
    return {d.name: d.draw(float(ui)) for d, ui in zip(dims, u, strict=True)}
