"""Model-selection criteria for linear models (spec/rbf-ols.md A.5, A.7).

With ``S`` the training SSE, ``gamma`` the effective number of parameters and ``p`` the
number of patterns, the GCV-like criteria are ``Gamma(gamma) * S / p``; the factors
``K`` give the one-step global ridge re-estimation ``lambda <- K S tau / q`` (A.7, with the
OCR fix trace(A^-1 - lambda A^-2)).
"""

from __future__ import annotations

import numpy as np

NAMES = ("uev", "fpe", "gcv", "bic")


def msc(name: str, S: float, gamma: float, p: int) -> float:
    """UEV, FPE, GCV or BIC estimate of the prediction error (A.5); inf when p ~ gamma."""
    d = p - gamma
    if d <= 1e-12 * p:
        return float("inf")
    if name == "uev":
        return S / d
    if name == "fpe":
        return (p + gamma) * S / (p * d)
    if name == "gcv":
        return p * S / d**2
    if name == "bic":
        return (p + (np.log(p) - 1) * gamma) * S / (p * d)
    raise ValueError(f"unknown criterion {name!r}; one of {', '.join(NAMES)}")


def reest_factor(name: str, gamma: float, p: int) -> float:
    """``K_XYZ`` of the re-estimation formula (A.7)."""
    d = p - gamma
    if name == "uev":
        return 1.0 / (2.0 * d)
    if name == "fpe":
        return p / (d * (p + gamma))
    if name == "gcv":
        return 1.0 / d
    if name == "bic":
        L = np.log(p)
        return p * L / (2.0 * d * (p + (L - 1) * gamma))
    raise ValueError(f"unknown criterion {name!r}; one of {', '.join(NAMES)}")


def loo_residuals(H: np.ndarray, y: np.ndarray, lam: np.ndarray | float = 0.0) -> np.ndarray:
    """Exact leave-one-out residuals of (local) ridge regression, ``(P y)_i / P_ii`` (5.1),
    with ``P = I - H (H^T H + Lambda)^-1 H^T``."""
    m = H.shape[1]
    A = H.T @ H + np.diag(np.broadcast_to(np.asarray(lam, float), (m,)))
    HA = np.linalg.solve(A, H.T).T  # H A^-1
    Py = y - HA @ (H.T @ y)
    diagP = 1.0 - np.einsum("ij,ij->i", HA, H)
    return Py / diagP
