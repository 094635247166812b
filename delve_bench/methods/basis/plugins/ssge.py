"""ssge-pta10-1, ssge-pta21-1, ssge-sffs-1, ssge-oscil5-1: subset selection guided by the
evidence (Barrio et al. 2009 §4-§5; :mod:`..ssge`) on the N RBFs with the ABF widths."""

from __future__ import annotations

import numpy as np

from ...base import FitContext
from ..design import rbf_design
from ..ssge import STRATEGIES, EvidenceSearch, oscil, pta, sffs
from .base import BayesMethod


class Ssge(BayesMethod):
    """ssge-*: PTA(l, r), SFFS or Oscil(c) guided by the evidence. One work unit = one add
    or remove.

    Parameters
    ----------
    strategy : {"pta", "sffs", "oscil"}
        The search.
    l, r : int
        PTA's adds and removes per step.
    c : int
        Oscil's largest oscillation depth.
    width_iterations, width_max_n : int
        CG iterations and training cases of the width stage (beyond it a subset fixed by the
        training set, the same for every method: :mod:`..widths`).
    """

    min_cases = 2  # one case has no spread to estimate the noise from

    def __init__(
        self,
        strategy: str = "pta",
        l: int = 1,
        r: int = 0,
        c: int = 5,
        width_iterations: int = 100,
        width_max_n: int = 2048,
    ):
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {sorted(STRATEGIES)}, not {strategy!r}")
        self.strategy, self.l, self.r, self.c = strategy, l, r, c
        self.width_iterations, self.width_max_n = width_iterations, width_max_n

    def fit(self, X: np.ndarray, y: np.ndarray, ctx: FitContext) -> None:
        Xs, t = self._prepare(X, y)
        widths = self._abf_widths(Xs, t, ctx).widths
        search = EvidenceSearch(rbf_design(Xs, Xs, widths), t, stop=ctx.budget.exhausted)
        if self.strategy == "pta":
            res = pta(search, self.l, self.r)
        elif self.strategy == "oscil":
            res = oscil(search, self.c)
        else:
            res = sffs(search)
        st = res.state
        self._set_posterior(Xs[st.idx], widths, st)
        ctx.info.update(
            n_basis=st.M,
            adds=res.adds,
            removes=res.removes,
            steps=res.steps,
            alpha=float(st.alpha[0]),
            beta=st.beta,
            log_evidence=res.log_ev,
            best_log_evidence_by_size=res.best_by_size,
        )
