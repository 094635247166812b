"""Model-selection criteria for linear models (Orr 1996 §5, §6.2, App. A.9-A.10).

With ``S`` the training SSE, ``gamma`` the effective number of parameters and ``p`` the
number of patterns, the GCV-like criteria are ``Gamma(gamma) * S / p``; the factors
``K`` give the one-step global ridge re-estimation ``lambda <- K S tau / q`` (Orr App. A.10,
with its misprint corrected: trace(A^-1 - lambda A^-2)).
"""

from __future__ import annotations

import numpy as np

NAMES = ("uev", "fpe", "gcv", "bic")


def msc(name: str, S: float, gamma: float, p: int) -> float:
    """UEV, FPE, GCV or BIC estimate of the prediction error (Orr §5); inf when p ~ gamma."""
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
    """``K_XYZ`` of the re-estimation formula (Orr §6.2, App. A.10)."""
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


# ------------------------------------------------------------- two-class LOO criteria
#: the guard of Hong, Chen et al.'s LOO weights: eta <- max(eta, ETA_MIN)
ETA_MIN = 1e-12


def loo_correct(y: np.ndarray, E: np.ndarray, Eta: np.ndarray) -> np.ndarray:
    """Whether each case's leave-one-out output has the sign of its label ``y`` (+-1).

    With residuals ``E`` and LOO weights ``Eta`` (N, or N x P for P candidate models),
    Hong, Chen et al. (2014) eqs. (30)-(31): ``s_k = 1 - y_k e_k / eta_k`` is y_k times the
    LOO output, and case k counts as correct iff ``s_k > 0`` (their I_d(s) = [s <= 0])."""
    y = y if E.ndim == 1 else y[:, None]
    return y * E < np.maximum(Eta, ETA_MIN)  # 1 - y e / eta > 0 with eta > 0, no division


def mutual_information(positive: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Mutual information (bits) between the labels and the predicted labels, eqs. (14)-(17).

    ``positive`` (N,) marks y = +1; ``correct`` (N,) or (N, P) marks cases whose predicted
    label equals y. The 2 x 2 table of (y, predicted y) is filled from the two; terms with
    p(a, b) = 0 count 0, so a model predicting one class for every case has MI = 0."""
    N = len(positive)
    n_pos = int(np.count_nonzero(positive))
    n_neg = N - n_pos
    pos = positive if correct.ndim == 1 else positive[:, None]
    n_pp = np.count_nonzero(correct & pos, axis=0)  # y = +1 predicted +1
    n_mm = np.count_nonzero(correct, axis=0) - n_pp  # y = -1 predicted -1
    n_pm = n_pos - n_pp
    n_mp = n_neg - n_mm
    p_y = {1: n_pos / N, -1: n_neg / N}
    p_hat = {1: (n_pp + n_mp) / N, -1: (n_pm + n_mm) / N}
    mi = np.zeros(np.shape(n_pp))
    for a, b, n_ab in ((1, 1, n_pp), (1, -1, n_pm), (-1, 1, n_mp), (-1, -1, n_mm)):
        p = n_ab / N
        with np.errstate(divide="ignore", invalid="ignore"):
            term = p * np.log2(p / (p_y[a] * p_hat[b]))
        mi = mi + np.where(p > 0, term, 0.0)
    return mi


def loomi(y: np.ndarray, E: np.ndarray, Eta: np.ndarray) -> np.ndarray:
    """LOOMI, eq. (23): the mutual information of the labels and the LOO predictions."""
    return mutual_information(y > 0, loo_correct(y, E, Eta))


def loo_error_rate(y: np.ndarray, E: np.ndarray, Eta: np.ndarray) -> np.ndarray:
    """The leave-one-out misclassification rate ``(1/N) sum_k I_d(s_k)`` (Hong, Chen &
    Harris 2008; eqs. (12)-(13) with LOO outputs)."""
    return 1.0 - loo_correct(y, E, Eta).mean(axis=0)
