"""Rank-one evidence updates shared by the SSGE family and the fast RVM.

The state is the Gaussian weight posterior of a Bayesian linear model whose design is a
subset ``I`` of the columns of a dictionary ``B`` (N x P), with weight precisions
``alpha_i`` (one shared value for SSGE, one per weight for the RVM) and noise precision
``beta`` (Barrio et al. 2009 §3, §5.2; Tipping & Faul 2003):

    Sigma = (beta Phi^T Phi + A)^-1,  mu = beta Sigma Phi^T t,  Phi = B[:, I].

For every candidate m it keeps the Tipping & Faul factors ``S_m = phi_m^T C^-1 phi_m``,
``Q_m = phi_m^T C^-1 t`` (eqs. 25, 26) and Barrio et al.'s ``R_m = ||Sigma Phi^T phi_m||^2``
(needed to predict gamma after an addition). Adding, deleting and re-estimating one alpha
are rank-one updates (Barrio et al. eqs. 28-37, 40-46, with Sigma_ii^2 in the last
denominator of eq. 46 where the print is wrong, and T&F's re-estimation update); a change of
beta (or of the shared alpha) needs :meth:`EvidenceState.recompute`. The Gram matrix
``K = B^T B`` is formed once, so every update costs O(P M) instead of O(P N M).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_solve, cholesky

from ..base import LOG2PI

#: the noise precision is clamped at ``BETA_MAX_FACTOR / var(t)`` (SparseBayes 2.0's
#: BetaMaxFactor): on noise-free targets the evidence keeps rising as the residual
#: vanishes, MacKay's update ``(N - gamma) / ||t - Phi mu||^2`` grows without bound and
#: ``beta**2`` overflows a float. The clamp is a residual variance of a millionth of the
#: targets', far below any noise the DELVE data carry, so on noisy data it never binds.
BETA_MAX_FACTOR = 1e6


def beta_max(t: np.ndarray) -> float:
    """The largest noise precision allowed for targets ``t`` (N,)."""
    return BETA_MAX_FACTOR / float(np.var(t))


class EvidenceState:
    """Posterior, S/Q/R factors and marginal likelihood of a sparse Bayesian linear model."""

    def __init__(self, B: np.ndarray, t: np.ndarray, beta: float, track_R: bool = False):
        self.B = B
        self.t = np.asarray(t, float)
        self.N, self.P = B.shape
        self.K = B.T @ B
        self.diagK = np.diag(self.K).copy()
        self.Btt = B.T @ self.t
        self.tt = float(self.t @ self.t)
        self.beta = float(beta)
        self.track_R = track_R
        self.idx: list[int] = []
        self.alpha = np.empty(0)
        self.recompute()

    # ----------------------------------------------------------------------------- basics
    @property
    def M(self) -> int:
        return len(self.idx)

    def in_model(self) -> np.ndarray:
        mask = np.zeros(self.P, bool)
        mask[self.idx] = True
        return mask

    def copy(self) -> EvidenceState:
        new = object.__new__(EvidenceState)
        new.__dict__.update(self.__dict__)
        for name in ("alpha", "Sigma", "mu", "S", "Q", "R"):
            setattr(new, name, np.array(getattr(self, name), copy=True))
        new.idx = list(self.idx)
        return new

    def recompute(self) -> None:
        """Sigma, mu and all S, Q (and R) from scratch: O(M^3 + P M^2)."""
        M, beta = self.M, self.beta
        if M == 0:
            self.Sigma, self.mu = np.zeros((0, 0)), np.zeros(0)
            self.S, self.Q = beta * self.diagK, beta * self.Btt
            self.R = np.zeros(self.P)
            self.logdet_Sigma = 0.0
            return
        I = np.asarray(self.idx)
        H = beta * self.K[np.ix_(I, I)] + np.diag(self.alpha)
        L = _cholesky(H)
        self.Sigma = cho_solve((L, True), np.eye(M))
        self.logdet_Sigma = -2.0 * float(np.log(np.diag(L)).sum())
        self.mu = beta * self.Sigma @ self.Btt[I]
        G = self.K[:, I]
        GS = G @ self.Sigma
        self.S = beta * self.diagK - beta**2 * np.einsum("pm,pm->p", GS, G)
        self.Q = beta * self.Btt - beta * (G @ self.mu)
        self.R = np.einsum("pm,pm->p", GS, GS) if self.track_R else np.zeros(self.P)

    def sse(self) -> float:
        """``||t - Phi mu||^2`` from the Gram matrix, O(M^2)."""
        if self.M == 0:
            return self.tt
        I = np.asarray(self.idx)
        mu = self.mu
        return max(self.tt - 2 * mu @ self.Btt[I] + mu @ self.K[np.ix_(I, I)] @ mu, 0.0)

    def gamma(self) -> float:
        """Number of well-determined parameters ``sum_i (1 - alpha_i Sigma_ii)``."""
        return float(self.M - self.alpha @ np.diag(self.Sigma)) if self.M else 0.0

    def log_marginal(self) -> float:
        """``log P(t | alpha, beta)`` by the M x M form (eq. 48 without the gamma terms);
        ``log|Sigma|`` from a fresh factorisation."""
        if self.M:
            sign, logdet = np.linalg.slogdet(self.Sigma)
        else:
            logdet = 0.0
        return -0.5 * (
            self.N * LOG2PI
            - logdet
            - self.N * np.log(self.beta)
            - np.log(self.alpha).sum()
            + self.beta * self.sse()
            + self.mu @ (self.alpha * self.mu)
        )

    def sparsity_quality(self) -> tuple[np.ndarray, np.ndarray]:
        """T&F's ``s_m, q_m``: the factors with m itself left out of C (Tipping & Faul 2003)."""
        return sparsity_quality(self.S, self.Q, self.idx, self.alpha)

    # ---------------------------------------------------------------------- rank-one moves
    def add(self, i: int, alpha_i: float) -> None:
        """Add candidate ``i`` with precision ``alpha_i`` (eqs. 28, 32-37)."""
        beta = self.beta
        Sii = 1.0 / (alpha_i + self.S[i])
        w_i = Sii * self.Q[i]
        Ki = self.K[:, i]
        if self.M:
            I = np.asarray(self.idx)
            G = self.K[:, I]
            a = self.Sigma @ Ki[I]  # Sigma Phi^T phi_i
            Ga = G @ a
            e0 = Ki - beta * Ga  # phi_m^T e_0
            if self.track_R:
                b = self.Sigma @ a
                e2 = G @ b  # phi_m^T e_2
                e1 = beta * Sii * Ga + beta * e2 - Sii * Ki
                self.R = self.R + (a @ a) * (Sii * beta * e0) ** 2 + e1**2 - (beta * e2) ** 2
            Sig = self.Sigma + beta**2 * Sii * np.outer(a, a)
            col = -beta * Sii * a
            self.Sigma = np.block([[Sig, col[:, None]], [col[None, :], np.array([[Sii]])]])
            self.mu = np.append(self.mu - w_i * beta * a, w_i)
        else:
            e0 = Ki.copy()
            if self.track_R:
                self.R = self.R + (Sii * e0) ** 2  # R_m = (Sigma_ii phi_i^T phi_m)^2
            self.Sigma = np.array([[Sii]])
            self.mu = np.array([w_i])
        self.S = self.S - Sii * (beta * e0) ** 2
        self.Q = self.Q - w_i * (beta * e0)
        self.idx.append(int(i))
        self.alpha = np.append(self.alpha, alpha_i)
        self.logdet_Sigma += np.log(Sii)

    def delete(self, j: int) -> None:
        """Remove the in-model basis function at model position ``j`` (eqs. 40, 44-46)."""
        beta = self.beta
        Sj = self.Sigma[:, j].copy()
        Sjj = Sj[j]
        w_j = self.mu[j]
        G = self.K[:, np.asarray(self.idx)]
        x = G @ Sj  # Sigma_j^T Phi^T phi_m
        self.S = self.S + (beta * x) ** 2 / Sjj
        self.Q = self.Q + (w_j / Sjj) * beta * x
        if self.track_R:
            y = G @ (self.Sigma @ Sj)  # phi_m^T Phi Sigma Sigma_j
            self.R = self.R - (2.0 / Sjj) * y * x + (Sj @ Sj) / Sjj**2 * x**2
        Sig = self.Sigma - np.outer(Sj, Sj) / Sjj
        mu = self.mu - w_j * Sj / Sjj
        keep = np.arange(self.M) != j
        self.Sigma = Sig[np.ix_(keep, keep)]
        self.mu = mu[keep]
        self.alpha = self.alpha[keep]
        del self.idx[j]
        self.logdet_Sigma -= np.log(Sjj)

    def reestimate(self, j: int, new_alpha: float) -> None:
        """Change the precision of in-model position ``j`` (T&F Appendix; R not kept)."""
        beta = self.beta
        Sj = self.Sigma[:, j].copy()
        kappa = 1.0 / (Sj[j] + 1.0 / (new_alpha - self.alpha[j]))
        w_j = self.mu[j]
        x = self.K[:, np.asarray(self.idx)] @ Sj
        self.Sigma = self.Sigma - kappa * np.outer(Sj, Sj)
        self.mu = self.mu - kappa * w_j * Sj
        self.S = self.S + kappa * (beta * x) ** 2
        self.Q = self.Q + kappa * w_j * beta * x
        self.logdet_Sigma += np.log1p(-kappa * Sj[j])
        self.alpha = self.alpha.copy()
        self.alpha[j] = new_alpha

    # -------------------------------------------------------------------------- prediction
    def predict(self, Phi_star: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Predictive mean and variance ``1/beta + phi^T Sigma phi`` (eqs. 12-14); columns
        of ``Phi_star`` are the in-model basis functions in model order."""
        mean = Phi_star @ self.mu
        var = 1.0 / self.beta + np.einsum("ij,jk,ik->i", Phi_star, self.Sigma, Phi_star)
        return mean, var


def sparsity_quality(
    S: np.ndarray, Q: np.ndarray, idx: list[int], alpha: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Tipping & Faul's sparsity and quality factors ``s_m, q_m`` from ``S_m, Q_m``: equal
    for candidates outside the model, ``alpha S / (alpha - S)`` and ``alpha Q / (alpha - S)``
    for those in it (the factors with m itself left out of C)."""
    s, q = S.copy(), Q.copy()
    if len(idx):
        I = np.asarray(idx)
        d = alpha - S[I]
        s[I] = alpha * S[I] / d
        q[I] = alpha * Q[I] / d
    return s, q


def _cholesky(H: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor, with growing jitter if ``H`` is numerically singular
    (the ill-conditioning Barrio et al. §5.2.6 warn of)."""
    jitter = 0.0
    scale = float(np.mean(np.diag(H)))
    for _ in range(8):
        try:
            return cholesky(H + jitter * np.eye(len(H)), lower=True)
        except np.linalg.LinAlgError:
            jitter = scale * 1e-12 if jitter == 0 else jitter * 100
    raise np.linalg.LinAlgError("Hessian is not positive definite even with jitter")
