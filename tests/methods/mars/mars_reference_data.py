"""The test problem of MARS 3.6's reference runs (a Friedman-type function on a
quasi-random design; exact in binary so every port reads the same numbers)."""

from __future__ import annotations

import numpy as np

PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53]


def design(i: np.ndarray, p: int) -> np.ndarray:
    """x_ij = floor(1024 frac(i sqrt(P_j))) / 1024 for rows ``i`` (1-based)."""
    v = np.asarray(i, float)[:, None] * np.sqrt(np.array(PRIMES[:p], float))[None, :]
    return np.floor(1024 * (v - np.floor(v))) / 1024


def problem(n: int, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training inputs (n, p), targets (n,) and the five test inputs (rows 1001..1005)."""
    i = np.arange(1, n + 1)
    x = design(i, p)
    f = (
        10 * np.sin(np.pi * x[:, 0] * x[:, 1])
        + 20 * (x[:, 2] - 0.5) ** 2
        + 10 * x[:, 3]
        + 5 * x[:, 4]
    )
    y = np.round(1024 * (f + 0.5 * np.sin(7.3 * i))) / 1024
    return x, y, design(np.arange(1001, 1006), p)
