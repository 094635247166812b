"""The MARS 3.6 forward pass (Friedman 1991 §3.4 Algorithm 2; Friedman 1993 Fast MARS).

Each iteration examines the parents the Fast-MARS queue offers. For a parent ``B_l`` and
an eligible variable ``v`` (not yet a factor of ``B_l``) the candidate is the linear term
``L = B_l (x_v - min x_v)_+`` alone or, with L in the basis, the pair of hinges at the
best knot ``t``; the pair is taken iff ``RSS_L > (1 + 4/n) RSS_pair``. The candidate
with the smallest RSS over all parents and variables is added: ``(x_v - t)_+ B_l``, then
``(t - x_v)_+ B_l`` if there is room and ``t`` is above the minimum. Every new column is
orthonormalised (Gram-Schmidt, centred) and kept out of the basis if less than 1e-4 of
its centred sum of squares is new. The pass stops at ``nk`` non-constant basis functions
or when the cost ``iterations * d + rank + 1`` reaches ``n - d - 2``.

Ties and comparisons follow MARS 3.6's ``marsgo``: when a parent searches knots, a
later candidate must be strictly better; when it cannot (no room for two basis functions
or too little support), a later candidate wins ties. A candidate equal to an existing
basis function (variable, knot and parent within 1e-5, standardized units) is ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .basis import BasisFunction, MarsSettings, hinge, variables_of
from .knots import COLLINEAR, KnotSearch, ParentRows, SortedInputs
from .queue import ParentQueue
from .spans import spans

#: MARS 3.6's "infinite" RSS
BIG = 9.9e30
#: parents with at most this many supporting cases are not searched
MIN_SUPPORT = 5
#: relative cost per knot: unrestricted / additive-only (mi = 1) / a single predictor
KNOT_COST = (1.0, 0.666667, 0.333333)
#: equality tolerance for duplicate basis functions (MARS 3.6 ``ieq``)
SAME = 1e-5


@dataclass(frozen=True)
class ForwardStep:
    """One forward iteration: the chosen variable, knot, parent and basis functions."""

    iteration: int
    variable: int
    knot: float
    parent: int
    linear: bool
    added: tuple[int, ...]
    rss: float


@dataclass
class ForwardPass:
    """Result of :func:`forward_pass`.

    ``basis[m - 1]`` is basis function ``m``; ``columns[:, m - 1]`` its values on the
    training cases; ``iterations`` and ``rank`` enter the GCV cost of the backward pass.
    """

    basis: list[BasisFunction]
    columns: np.ndarray
    steps: list[ForwardStep]
    iterations: int
    rank: int
    knot_cost: float
    rss: float
    xmin: np.ndarray
    xmax: np.ndarray


def knot_cost(settings: MarsSettings, n_usable: int) -> float:
    """MARS 3.6's d: df per knot, times 2/3 for additive models, 1/3 for one predictor."""
    cfac = KNOT_COST[1] if settings.mi == 1 else KNOT_COST[0]
    if n_usable == 1:
        cfac = KNOT_COST[2]
    return settings.df * cfac


class _Basis:
    """The growing list of basis functions and its centred orthonormal basis Q."""

    def __init__(self, X: np.ndarray, yc: np.ndarray, nk: int):
        n = len(X)
        self.X, self.yc = X, yc
        self.Q = np.zeros((n, nk + 1))
        self.dy = np.zeros(nk + 1)
        self.columns = np.zeros((n, nk))
        self.kr = 0
        self.rss = float(yc @ yc)
        self.basis: list[BasisFunction] = []
        self.degree = [0]
        self.vars_of: list[frozenset[int]] = [frozenset()]
        self.hinges_of: dict[int, list[tuple[int, float]]] = {}  # parent -> (var, knot), sign +

    def __len__(self) -> int:
        return len(self.basis)

    def column(self, m: int) -> np.ndarray:
        return np.ones(len(self.X)) if m == 0 else self.columns[:, m - 1]

    def add(self, bf: BasisFunction) -> int:
        """Append ``bf``; orthonormalise its column into Q unless it is collinear."""
        M = len(self.basis)
        col = self.column(bf.parent) * hinge(self.X[:, bf.variable], bf.sign, bf.knot)
        self.columns[:, M] = col
        c = col - col.mean()
        ss = float(c @ c)
        Qk = self.Q[:, : self.kr]
        if ss > 0:
            proj = Qk.T @ c
            resid = ss - float(proj @ proj)
            if resid >= COLLINEAR * ss:
                q = c - Qk @ proj
                q -= Qk @ (Qk.T @ q)  # a second Gram-Schmidt pass keeps Q orthonormal
                q /= np.linalg.norm(q)
                self.Q[:, self.kr] = q
                self.dy[self.kr] = q @ self.yc
                self.rss -= self.dy[self.kr] ** 2
                self.kr += 1
        self.basis.append(bf)
        if bf.sign > 0:
            self.hinges_of.setdefault(bf.parent, []).append((bf.variable, bf.knot))
        self.degree.append(self.degree[bf.parent] + 1)
        self.vars_of.append(variables_of(self.basis, M + 1))
        return M + 1

    def exists(self, variable: int, knot: float, parent: int) -> bool:
        """Whether ``(x_variable - knot)_+`` times ``parent`` is already a basis function
        (MARS 3.6 ``newb``: equal within 1e-5 in standardized units; NaN matches none)."""
        return any(
            v == variable and abs(t - knot) < SAME for v, t in self.hinges_of.get(parent, ())
        )


def forward_pass(X: np.ndarray, y: np.ndarray, settings: MarsSettings) -> ForwardPass:
    """Run the forward pass on standardized inputs ``X`` (n, p) and targets ``y`` (n,)."""
    n, p = X.shape
    xs = SortedInputs.of(X)
    xmin, xmax = xs.values[:, 0].copy(), xs.values[:, -1].copy()
    usable = xmax > xmin
    d = knot_cost(settings, int(usable.sum()))
    yc = y - y.mean()
    nk = settings.nk
    B = _Basis(X, yc, nk)
    steps: list[ForwardStep] = []
    if not usable.any():
        return ForwardPass(
            basis=[],
            columns=B.columns[:, :0],
            steps=steps,
            iterations=0,
            rank=0,
            knot_cost=d,
            rss=B.rss,
            xmin=xmin,
            xmax=xmax,
        )
    max_cost = n - d - 2.0
    fln = 1.0 + 4.0 / n
    queue = ParentQueue(settings.fast_k, settings.fast_beta, settings.fast_h)
    queue.add(0)
    table = KnotSearch(xs, xmin, yc, max_rows=(nk + 1) * p)
    parents: dict[int, ParentRows | None] = {}
    best_of_parent = 0.0  # MARS keeps the last parent's best when a parent finds none
    last_win = None
    iteration, cost = 0, 1.0
    while len(B) < nk and cost < max_cost:
        iteration += 1
        rss0 = B.rss / n
        M = len(B)
        win, win_value = None, BIG
        plan = []
        for entry, cached in queue.examine(iteration):
            l = entry.bf
            if l not in parents:
                parents[l] = _new_parent(B, l, table, usable, settings)
            pr = parents[l]
            rows = pr.rows(cached) if pr is not None else np.zeros(0, dtype=np.intp)
            plan.append((entry, cached, pr, rows))
        cand = table.evaluate(np.concatenate([r for *_, r in plan]), B.Q, B.dy, B.kr, B.rss)
        results = zip(
            cand.variables.tolist(),
            cand.linear_ok.tolist(),
            cand.rss_linear.tolist(),
            cand.rss_pair.tolist(),
            cand.knot.tolist(),
            cand.xmin.tolist(),
            strict=True,
        )
        for entry, cached, pr, rows in plan:
            if pr is None:  # no admissible variable or too little support: discard
                queue.update(entry, -1, -1.0)
                continue
            l = entry.bf
            sp = pr.spans
            knots = M + 1 < nk and pr.n_support > sp.endspan + sp.endspan_low
            best_parent = BIG
            jq = cached
            # MARS 3.6 scans the variables in order: a later candidate must be strictly
            # better when knots are searched, and wins ties when they are not
            for _ in range(len(rows)):
                v, ok, rss_lin, rss_pair, t, lo = next(results)
                if knots:
                    lin = rss_lin / n if ok else BIG
                    found = rss_pair == rss_pair  # not NaN
                    pair = (rss_pair if found else rss_lin + BIG) / n
                    take_pair = lin > fln * pair
                    value, knot = (pair, t) if take_pair else (lin, lo)
                    # the hinge is compared with the linear candidate just tried, too
                    if take_pair and found and abs(t - lo) < SAME:
                        continue
                    if B.exists(v, knot, l):
                        continue
                    if value < best_parent:
                        best_parent, best_of_parent, jq = value, value, v
                    # a pair without a knot (L collinear, no admissible knot) is never added
                    if value < win_value and (found or not take_pair):
                        win_value, win = value, (v, knot, l, not take_pair)
                else:
                    value = rss_lin / n
                    if B.exists(v, lo, l):
                        continue
                    if value <= best_parent:
                        best_parent, best_of_parent, jq = value, value, v
                    if value <= win_value:
                        win_value, win = value, (v, lo, l, True)
            queue.update(entry, jq, rss0 - best_of_parent)
        if win is None:
            # nothing new to add: MARS 3.6 adds its previous winner again (collinear, so
            # outside the basis); the wasted step still counts in the GCV cost
            if last_win is None:
                iteration -= 1
                break
            win = last_win
        last_win = win
        var, t, parent, linear = win
        queue.selected(parent)
        added = [B.add(BasisFunction(var, 1, t, parent))]
        queue.add(added[-1])
        if len(B) < nk and t > xmin[var]:
            added.append(B.add(BasisFunction(var, -1, t, parent)))
            queue.add(added[-1])
        steps.append(
            ForwardStep(
                iteration=iteration,
                variable=var,
                knot=t,
                parent=parent,
                linear=linear,
                added=tuple(added),
                rss=B.rss,
            )
        )
        cost = iteration * d + B.kr + 1.0
    M = len(B)
    return ForwardPass(
        basis=B.basis,
        columns=B.columns[:, :M].copy(),
        steps=steps,
        iterations=iteration,
        rank=B.kr,
        knot_cost=d,
        rss=B.rss,
        xmin=xmin,
        xmax=xmax,
    )


def _new_parent(B: _Basis, l: int, table: KnotSearch, usable, settings) -> ParentRows | None:
    """Add parent ``l``'s rows to the table, or None when MARS 3.6 discards the parent
    (too many factors, at most 5 supporting cases, no eligible variable, or a support
    no larger than the end spans)."""
    if B.degree[l] >= settings.mi:
        return None
    b = B.column(l)
    n_support = int(np.count_nonzero(b > 0))
    if n_support <= MIN_SUPPORT:
        return None
    eligible = usable.copy()
    eligible[list(B.vars_of[l])] = False
    nep = int(eligible.sum())
    if nep == 0:
        return None
    sp = spans(nep, n_support, settings.alpha, settings.minspan)
    if n_support <= max(sp.endspan, sp.endspan_low):
        return None
    return table.add_parent(b, np.flatnonzero(eligible), sp, n_support)
