"""Squared Euclidean distances: the one implementation used by k-nearest neighbours, the
Gaussian-process covariance and the radial-basis design matrices."""

from __future__ import annotations

import numpy as np


def sq_distances(
    A: np.ndarray, B: np.ndarray, scale: np.ndarray | float | None = None
) -> np.ndarray:
    """Squared distances between the rows of ``A`` and ``B``, optionally per-input scaled.

    Uses ``|a|^2 + |b|^2 - 2 a.b`` (one matrix product, so O(n p m) flops in BLAS) and clips
    the result at 0, since rounding can make a distance of two near-equal rows slightly
    negative.

    Parameters
    ----------
    A : ndarray of shape (n, m)
    B : ndarray of shape (p, m)
    scale : float or ndarray of shape (m,), optional
        Length scales ``r``: the distance is ``sum_d (A[i, d] - B[j, d])^2 / r_d^2``.

    Returns
    -------
    D : ndarray of shape (n, p)
    """
    if scale is not None:
        r = np.broadcast_to(np.asarray(scale, float), (A.shape[1],))
        A, B = A / r, B / r
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
    return np.maximum(d, 0.0, out=d)
