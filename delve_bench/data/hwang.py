"""The DELVE hwang family, generated: five functions on [0, 1]^2 (Hwang et al. 1994).

Barrio et al. (2009) §6.2.3 used them: g1..g5 as below; noise sd 0.25 as in Hwang et al. Each
dataset ``hwang-gK`` has attributes x1, x2, the noiseless value and a noisy value, so the
prototasks ``clean`` and ``noisy`` share inputs and splits. Inputs and noise come from
:mod:`delve_bench.rng`, so the data is identical on every machine and numpy version; the
dataset spec records the seed and the sha256 of the generated text.
"""

from __future__ import annotations

import numpy as np

from ..rng import normals, uniforms


def g1(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    return 10.391 * ((x1 - 0.4) * (x2 - 0.6) + 0.36)


def g2(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    r2 = (x1 - 0.5) ** 2 + (x2 - 0.5) ** 2
    return 24.234 * r2 * (0.75 - r2)


def g3(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    a, b = x1 - 0.5, x2 - 0.5
    return 42.659 * (0.1 + a * (0.05 + a**4 - 10 * a**2 * b**2 + 5 * b**4))


def g4(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    return 1.3356 * (
        1.5 * (1 - x1)
        + np.exp(2 * x1 - 1) * np.sin(3 * np.pi * (x1 - 0.6) ** 2)
        + np.exp(3 * (x2 - 0.5)) * np.sin(4 * np.pi * (x2 - 0.9) ** 2)
    )


def g5(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
    return 1.9 * (1.35 + np.exp(x1) * np.sin(13 * (x1 - 0.6) ** 2) * np.exp(-x2) * np.sin(7 * x2))


FUNCTIONS = {"g1": g1, "g2": g2, "g3": g3, "g4": g4, "g5": g5}


def generate(function: str, n: int, seed: int, noise_sd: float = 0.25) -> np.ndarray:
    """``n`` cases (x1, x2, clean, noisy) of hwang function ``function``."""
    f = FUNCTIONS[function]
    u = uniforms(seed, 2 * n)
    x1, x2 = u[0::2], u[1::2]
    clean = f(x1, x2)
    noisy = clean + noise_sd * normals(seed + 1, n)
    return np.column_stack([x1, x2, clean, noisy])


def generate_text(function: str, n: int, seed: int, noise_sd: float = 0.25) -> str:
    """The generated cases in DELVE's data-file layout (``%.7e``, one case per line)."""
    rows = generate(function, n, seed, noise_sd)
    return "".join(" ".join(f"{v:.7e}" for v in row) + "\n" for row in rows.tolist())
