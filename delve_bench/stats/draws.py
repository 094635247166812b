"""The simulated draws of the 2-way design's null and power computations.

:mod:`.power` (the power of the quasi-F test) and :mod:`.level` (its actual level under
H0) both simulate the same mean squares; sharing one cache of draws per (I, J) makes
their numbers deterministic and comparable, and keeps either from importing the other.
"""

from __future__ import annotations

import numpy as np

#: draws per (I, J): the quasi-F power's Monte Carlo SE is at most 0.0036
SIMULATIONS = 20_000
SEED = 20240601


class Draws:
    """Standard normal and chi-square draws for the 2-way power, reused across designs
    of the same (I, J) so that powers are deterministic and comparable."""

    def __init__(self, simulations: int, seed: int):
        self.simulations, self.seed = simulations, seed
        self.cache: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    def get(self, I: int, J: int) -> tuple[np.ndarray, ...]:
        key = (I, J)
        if key not in self.cache:
            rng = np.random.default_rng([self.seed, I, J])
            n = self.simulations
            z = rng.standard_normal(n)
            ca = rng.chisquare(I - 1, n) / (I - 1)
            cb = rng.chisquare(J - 1, n) / (J - 1)
            ce = rng.chisquare((I - 1) * (J - 1), n) / ((I - 1) * (J - 1))
            if len(self.cache) >= 16:  # 20000 x 4 doubles each: keep memory small
                self.cache.clear()
            self.cache[key] = (z, ca, cb, ce)
        return self.cache[key]


DRAWS = Draws(SIMULATIONS, SEED)

#: the name :mod:`.power` has always used
_DRAWS = DRAWS
