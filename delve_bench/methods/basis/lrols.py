"""LROLS-LOO: locally regularised orthogonal forward regression with the LOO criterion.

Chen, Hong, Harris & Sharkey (2004); docs/methods/basis.md:
OFR-LOO (each step adds the candidate with the smallest closed-form leave-one-out MSE,
Hong et al. (27)-(28), and selection stops when the LOO MSE stops decreasing) with one
ridge parameter ``lambda_i`` per orthogonal weight ``g_i``. Between selection runs the
lambdas of the selected terms are updated by one global evidence (MacKay) iteration

    gamma_i = kappa_i / (kappa_i + lambda_i),  gamma = sum_i gamma_i,
    lambda_i <- gamma_i / (N - gamma) * ||e||^2 / g_i^2,

which is ``lambda_i = alpha_i / beta`` with ``alpha_i <- gamma_i / g_i^2`` and
``beta <- (N - gamma) / ||e||^2`` for the orthogonal model ``y = W g + e``. Selection is
then rerun from scratch with the new lambdas: the outer loop.

Everything runs on the one forward-selection engine, :class:`.orthogonal.OrthogonalSelection`
with a per-candidate ``lam`` vector. Readings of what the paper leaves open:
``lambda_init`` = 1e-6 for every candidate; candidates not selected keep ``lambda_init``;
the outer loop stops when the selected subset is unchanged and no lambda moved by more
than 1 % (|delta log lambda| < 0.01), or after ``max_outer`` = 10 runs; the returned model
is that of the last selection run, so the weights are always consistent with the lambdas
that produced them. A selected term with ``g_i = 0`` keeps its lambda.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .orthogonal import OrthogonalSelection, run_selection
from .stopping import OrrStop


@dataclass
class LrolsFit:
    sel: OrthogonalSelection  # the last selection run
    m: int  # terms kept (LOO minimum)
    lam: np.ndarray  # per-candidate lambdas used by that run
    loo_mse: float
    outer: int  # selection runs
    converged: bool
    history: list[tuple[int, float]] = field(default_factory=list)  # (m, LOO MSE) per run


class OfrRun(NamedTuple):
    """One OFR-LOO selection run."""

    sel: OrthogonalSelection  # the selection engine after the run
    m: int  # terms kept (the LOO minimum)
    loo_mse: float  # the LOO MSE there


def ofr_loo(F: np.ndarray, y: np.ndarray, lam: np.ndarray, max_terms: int) -> OfrRun:
    """One OFR-LOO run: LOO score, stop at the first LOO MSE increase (wait = 1)."""
    sel = OrthogonalSelection(F, y, lam=lam, score="loo", criterion="loo")
    stopper = OrrStop(wait=1, thresh=np.inf)
    m = run_selection(sel, stopper, max_terms)
    return OfrRun(sel=sel, m=m, loo_mse=stopper.best)


def evidence_update(sel: OrthogonalSelection, m: int) -> np.ndarray:
    """One global evidence iteration for the first m terms; returns their new lambdas."""
    kap = np.array(sel.kappa[:m])
    c = np.array(sel.c[:m])
    lam = np.array(sel.lam_t[:m])
    g = c / (lam + kap)
    W = np.array(sel.Ht[:m]).T
    e = sel.y - W @ g
    gam_i = kap / (kap + lam)
    gam = float(gam_i.sum())
    with np.errstate(divide="ignore"):
        new = gam_i / (sel.N - gam) * float(e @ e) / g**2
    return np.where(np.isfinite(new) & (new > 0), new, lam)


def lrols_loo(
    F: np.ndarray,
    y: np.ndarray,
    lam_init: float = 1e-6,
    max_outer: int = 10,
    max_terms: int = 500,
    tol: float = 0.01,
    stop=None,
) -> LrolsFit:
    """LROLS-LOO on the candidate columns of ``F``; ``stop(runs)`` may end the outer loop."""
    lam = np.full(F.shape[1], lam_init)
    max_terms = min(max_terms, F.shape[1], len(y) - 1)
    history = []
    prev = None
    converged = False
    outer = 0
    while True:
        sel, m, loo = ofr_loo(F, y, lam, max_terms)
        outer += 1
        history.append((m, loo))
        subset = tuple(sel.sel[:m])
        if outer >= max_outer or (stop is not None and stop(outer)) or m == 0:
            break
        new = evidence_update(sel, m)
        old = lam[list(subset)]
        if prev == subset and np.all(np.abs(np.log(new) - np.log(old)) < tol):
            converged = True
            break
        prev = subset
        lam = lam.copy()
        lam[list(subset)] = new
    return LrolsFit(
        sel=sel, m=m, lam=lam, loo_mse=loo, outer=outer, converged=converged, history=history
    )
