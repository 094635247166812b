"""A documented, version-proof source of uniforms for everything that must never change.

numpy guarantees the raw output stream of its bit generators, not the algorithms of
``Generator`` methods. Splits and generated datasets therefore draw raw 64-bit words from
``PCG64(seed)`` and turn them into numbers here, with formulas that are ours:

* uniform on [0, 1): ``(word >> 11) * 2**-53`` (53 random bits);
* DELVE's ``d_random(m)``: ``floor(m * U)``;
* standard normal: Box-Muller on consecutive uniform pairs.
"""

from __future__ import annotations

import hashlib

import numpy as np


def uniforms(seed: int, n: int, skip: int = 0) -> np.ndarray:
    """``n`` uniforms on [0, 1) from stream ``seed`` (after skipping ``skip`` words)."""
    bg = np.random.PCG64(seed)
    if skip:
        bg.advance(skip)
    words = bg.random_raw(n)
    return (words >> np.uint64(11)).astype(np.float64) * 2.0**-53


def normals(seed: int, n: int, skip: int = 0) -> np.ndarray:
    """``n`` standard normals by Box-Muller from the uniform stream ``seed``."""
    m = (n + 1) // 2
    u = uniforms(seed, 2 * m, skip)
    u1, u2 = 1.0 - u[0::2], u[1::2]  # u1 in (0, 1]
    r = np.sqrt(-2.0 * np.log(u1))
    z = np.concatenate([r * np.cos(2 * np.pi * u2), r * np.sin(2 * np.pi * u2)])
    return z.reshape(2, m).T.ravel()[:n]


def random_order(n: int, seed: int) -> np.ndarray:
    """A permutation of 1..n, made as DELVE's ``d_randList`` does (Fisher-Yates):
    position k = 0..n-1 swaps with k + d_random(n - k)."""
    u = uniforms(seed, n)
    perm = list(range(1, n + 1))
    jumps = np.floor((n - np.arange(n)) * u).astype(np.int64)
    for k, jump in enumerate(jumps.tolist()):  # sequential by nature: one swap per position
        j = k + jump
        perm[k], perm[j] = perm[j], perm[k]
    return np.asarray(perm, dtype=np.int64)


def derived_seed(*parts: object) -> int:
    """A 63-bit seed from names (method, task, instance): stable across runs and machines."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "little") >> 1
