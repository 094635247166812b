"""The MARS 3.6 backward pass: GCV-guided deletion (Friedman 1991 §3.5-3.6).

The centred cross-product matrix of all forward basis functions and y is swept column
by column in basis-function order with a 1e-7 relative ridge; a column enters only if
at least 1e-4 of its sum of squares is not explained by the columns already in (its
coefficient stays 0 otherwise). With ``nli`` such columns after ``I`` forward iterations
at ``d`` per iteration, every basis function costs ``c = (d I + nli) / nli`` and a
submodel of ``M'`` functions ``C(M') = 1 + c M'``; GCV = (RSS/n) / (1 - C/n)^2.

Deletion removes, one at a time, the function whose removal raises the RSS least
(ties: the later one), down to one function, with no hierarchy constraint: children may
outlive their parents. The model with the smallest GCV is kept (a later, smaller model
must be strictly better), and the constant model wins if its GCV is not larger.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: relative ridge added to the diagonal of the cross-products (MARS 3.6 ``alr``)
RIDGE = 1e-7
#: a column enters if at least this fraction of its sum of squares is new
ENTRY = 1e-4


@dataclass(frozen=True)
class BackwardPass:
    """Result of :func:`backward_pass`.

    ``coef[m - 1]`` is the coefficient of basis function ``m`` (0 if not selected);
    ``path`` lists ``(cost, gcv)`` from the full model down to one function.
    """

    selected: np.ndarray
    coef: np.ndarray
    intercept: float
    gcv: float
    cost: float
    cost_per_bf: float
    n_independent: int
    path: list[tuple[float, float]] = field(default_factory=list)


def _sweep(A: np.ndarray, k: int, sign: float) -> None:
    """Sweep (sign -1) or reverse-sweep (sign +1) the symmetric matrix ``A`` on ``k``."""
    c = A[k, k]
    u = A[k].copy()
    u[k] = sign
    A[k, :] = 0.0
    A[:, k] = 0.0
    A -= np.outer(u, u) / c


def _fit(A: np.ndarray, dp: np.ndarray, inside: np.ndarray, xbar, ybar):
    """Coefficients, intercept and RSS of the swept-in columns (ridge removed from RSS)."""
    M = len(dp)
    coef = np.where(inside, A[:M, M], 0.0)
    rss = A[M, M] - RIDGE * float(dp @ coef**2)
    return coef, ybar - float(coef @ xbar), rss


def backward_pass(
    columns: np.ndarray, y: np.ndarray, iterations: int, knot_cost: float
) -> BackwardPass:
    """Select the basis functions ``columns`` (n, M) by GCV.

    Parameters
    ----------
    columns : (n, M) array
        Forward-pass basis functions on the training cases.
    y : (n,) array
    iterations : int
        Number of forward iterations (each charged ``knot_cost``).
    knot_cost : float
        MARS 3.6's d.
    """
    n, M = columns.shape
    ybar = float(y.mean())
    yc = y - ybar
    gcv0 = float(yc @ yc / n) / (1.0 - 1.0 / n) ** 2
    const = BackwardPass(np.zeros(M, dtype=bool), np.zeros(M), ybar, gcv0, 1.0, 0.0, 0, [])
    if M == 0:
        return const
    xbar = columns.mean(axis=0)
    Xc = columns - xbar
    A = np.empty((M + 1, M + 1))
    A[:M, :M] = Xc.T @ Xc
    A[:M, M] = A[M, :M] = Xc.T @ yc
    A[M, M] = yc @ yc
    dp = np.diag(A)[:M].copy()
    A[np.arange(M), np.arange(M)] *= 1.0 + RIDGE
    inside = np.zeros(M, dtype=bool)
    for i in range(M):
        if dp[i] <= 0:
            continue
        j = np.flatnonzero(inside)
        s = dp[i] + float(dp[j] @ A[j, i] ** 2)
        if (A[i, i] - RIDGE * s) / dp[i] < ENTRY:
            continue
        _sweep(A, i, -1.0)
        inside[i] = True
    coef, a0, rss = _fit(A, dp, inside, xbar, ybar)
    nli = int(np.count_nonzero(coef))
    if nli == 0:
        return const
    total = knot_cost * iterations + nli
    c = total / nli
    cost = total + 1.0

    def gcv(rss: float, cost: float) -> float:
        return (rss / n) / (1.0 - cost / n) ** 2

    best = BackwardPass(coef != 0, coef, a0, gcv(rss, cost), cost, c, nli)
    path = [(cost, best.gcv)]
    for _ in range(nli - 1):
        j = np.flatnonzero(inside)
        R = A[np.ix_(j, j)]
        aM = A[j, M]
        d = np.diag(R)
        # RSS after removing each j[i]: the others' coefficients adjust by -R[:, i] a_i / R_ii
        adj = aM[:, None] - R * (aM / d)[None, :]
        np.fill_diagonal(adj, 0.0)
        s = A[M, M] - aM**2 / d - RIDGE * (dp[j][:, None] * adj**2).sum(axis=0)
        k = int(j[np.flatnonzero(s == s.min())[-1]])  # ties: the later function
        _sweep(A, k, 1.0)
        inside[k] = False
        coef, a0, rss = _fit(A, dp, inside, xbar, ybar)
        cost -= c
        g = gcv(rss, cost)
        path.append((cost, g))
        if g < best.gcv:
            best = BackwardPass(coef != 0, coef, a0, g, cost, c, nli)
    if gcv0 <= best.gcv:
        best = BackwardPass(np.zeros(M, dtype=bool), np.zeros(M), ybar, gcv0, 1.0, c, nli)
    return BackwardPass(best.selected, best.coef, best.intercept, best.gcv, best.cost, c, nli, path)
