"""Methods ranked over many data sets: the Friedman test and its post-hoc comparisons
(Demšar 2006, §3.2), and groups of methods that a significance matrix cannot separate.

* ranks: 1 = lowest loss in each block (a data set), ties share the mean rank;
* Friedman's chi^2_F = 12 N / (k (k+1)) [sum_j R_j^2 - k (k+1)^2 / 4] on the average ranks
  R_j (no tie correction, as Demšar writes it), k - 1 d.o.f.; Iman & Davenport's
  F_F = (N-1) chi^2_F / (N (k-1) - chi^2_F) on (k-1, (k-1)(N-1)) d.o.f.;
* Nemenyi: two methods differ when their average ranks differ by at least
  ``CD = q_alpha sqrt(k (k+1) / (6 N))``, q_alpha the studentized range quantile (k
  groups, infinite d.o.f.) over sqrt(2);
* Holm post-hoc: every pair's ``z = (R_i - R_j) / sqrt(k (k+1) / (6 N))``, two-sided
  normal p-values, Holm's step-down over the k (k-1) / 2 pairs;
* Wilcoxon post-hoc (Benavoli, Corani & Mangili 2016, JMLR 17(5)): every pair compared
  on its own per-block values (``block_values``, e.g. the mean standardised loss of each
  method in each block) by the two-sided Wilcoxon signed-rank test (exact for N <= 50
  without ties, else the normal approximation; zero differences dropped), Holm's
  step-down over the pairs.

Why the last: the mean-rank tests (Nemenyi and the Holm z-tests) compare two methods
through ranks that depend on every *other* method in the pool; adding or removing a third
method can make A and B differ or not with their own results unchanged. The Wilcoxon test
of A and B reads only A's and B's values; Holm's step-down over all pairs still depends on
the pool, in one direction: adding a method adds pairs, which can only raise a pair's
adjusted p (Holm multiplies the j-th smallest of m p-values by m - j + 1 and takes the
running maximum; a new pair lowers neither), so it can end a significance, never make one. Its smallest two-sided p with N blocks
is 2 / 2^N, so it needs at least 6 blocks to reach p < 0.05.

The blocks must be independent: ``delve report`` uses one block per prototask by
default, because the tasks of one prototask share nested training sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..defaults import ALPHA
from .multiple import adjust

POSTHOCS = ("nemenyi", "holm", "wilcoxon")

#: Demšar (2006) Table 6, the worked example: ranks of C4.5, C4.5+m, C4.5+cf and
#: C4.5+m+cf (columns) on 14 data sets (rows). Published: average ranks 3.143, 2.000,
#: 2.893, 1.964; chi2_F = 9.28; F_F = 3.69; Nemenyi CD = 1.25 at alpha = 0.05.
DEMSAR_METHODS = ("C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf")
DEMSAR_RANKS = (
    (4, 3, 2, 1),
    (1, 2, 3, 4),
    (4, 1, 2, 3),
    (4, 1, 3, 2),
    (4, 2, 3, 1),
    (1, 2.5, 4, 2.5),
    (3, 2, 4, 1),
    (2.5, 2.5, 4, 1),
    (4, 3, 2, 1),
    (2.5, 2.5, 2.5, 2.5),
    (4, 2.5, 1, 2.5),
    (3, 2, 4, 1),
    (4, 1, 2, 3),
    (3, 1, 4, 2),
)


def block_ranks(losses: np.ndarray) -> np.ndarray:
    """Ranks within each row (block) of ``losses`` (N x k); 1 = lowest, ties averaged.

    The ranks of ``scipy.stats.rankdata(losses, axis=1)``, bit for bit (a tie run over
    sorted positions i..j gets (i + j) / 2 + 1, exact in floating point), a row with a
    NaN all NaN as there; in numpy, so that a report's tables do not import scipy.stats
    (some 0.7 s of CPU) for ranks.
    """
    x = np.asarray(losses, dtype=float)
    N, k = x.shape
    out = np.empty((N, k))
    if k == 0:
        return out
    order = np.argsort(x, axis=1, kind="stable")
    s = np.take_along_axis(x, order, axis=1)
    pos = np.broadcast_to(np.arange(k), (N, k))
    starts = np.ones((N, k), dtype=bool)  # a tie run starts here
    starts[:, 1:] = s[:, 1:] != s[:, :-1]
    ends = np.ones((N, k), dtype=bool)  # a tie run ends here
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, k)[:, ::-1], axis=1)[:, ::-1]
    np.put_along_axis(out, order, (first + last) / 2.0 + 1.0, axis=1)
    out[np.isnan(x).any(axis=1)] = np.nan
    return out


def wilcoxon_p(d: np.ndarray) -> float:
    """Two-sided p of the Wilcoxon signed-rank test of the paired differences ``d`` (N,)
    against 0; 1 when every difference is 0 (nothing to tell the methods apart)."""
    from scipy import stats as sps

    d = np.asarray(d, dtype=float)
    if not np.any(d != 0):
        return 1.0
    return float(sps.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def nemenyi_cd(k: int, N: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of average ranks (Demšar 2006, eq. after Table 5)."""
    from scipy import stats as sps

    q = sps.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(k * (k + 1) / (6.0 * N)))


@dataclass(frozen=True)
class Friedman:
    """The Friedman test on average ranks of k methods over N blocks, with a post-hoc
    significance matrix (``different[i][j]``: methods i and j differ)."""

    methods: tuple[str, ...]
    blocks: int  # N
    average_ranks: tuple[float, ...]
    chi2: float
    p_chi2: float
    iman_davenport: float | None  # undefined when chi2 = N (k - 1)
    p_iman_davenport: float | None
    posthoc: str  # 'nemenyi' | 'holm' | 'wilcoxon'
    alpha: float
    cd: float | None  # Nemenyi's critical difference (None for Holm)
    pair_p: dict[tuple[str, str], float]  # Holm-adjusted pair p (holm, wilcoxon)
    different: tuple[tuple[bool, ...], ...]

    def differ(self, a: str, b: str) -> bool:
        return self.different[self.methods.index(a)][self.methods.index(b)]


def friedman(
    methods: list[str] | tuple[str, ...],
    average_ranks,
    blocks: int,
    posthoc: str = "nemenyi",
    alpha: float = ALPHA,
    block_values: np.ndarray | None = None,
) -> Friedman:
    """Friedman, Iman-Davenport and the post-hoc test from average ranks over ``blocks``.

    ``block_values`` (blocks x methods): each method's value in each block, which the
    Wilcoxon post-hoc compares pair by pair (required for it, unused otherwise)."""
    # here, not at the top: a report of one prototask has no Friedman test and its
    # ranks are numpy's, so it never loads scipy.stats (some 0.7 s of CPU)
    from scipy import stats as sps

    if posthoc not in POSTHOCS:
        raise ValueError(f"unknown post-hoc test {posthoc!r}")
    if posthoc == "wilcoxon" and (
        block_values is None or np.shape(block_values) != (int(blocks), len(methods))
    ):
        raise ValueError("the Wilcoxon post-hoc needs block_values of shape (blocks, methods)")
    R = np.asarray(average_ranks, dtype=float)
    k, N = len(R), int(blocks)
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(float(chi2), 0.0)
    p_chi2 = float(sps.chi2.sf(chi2, k - 1))
    denom = N * (k - 1) - chi2
    if denom > 0 and N > 1:
        ff = (N - 1) * chi2 / denom
        p_ff = float(sps.f.sf(ff, k - 1, (k - 1) * (N - 1)))
    else:
        ff, p_ff = None, None
    se = np.sqrt(k * (k + 1) / (6.0 * N))
    diff = np.abs(R[:, None] - R[None, :])
    pair_p: dict[tuple[str, str], float] = {}
    if posthoc == "nemenyi":
        cd = nemenyi_cd(k, N, alpha)
        different = diff >= cd
    else:
        cd = None
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        if posthoc == "wilcoxon":
            assert block_values is not None
            raw = [
                wilcoxon_p(np.asarray(block_values)[:, i] - np.asarray(block_values)[:, j])
                for i, j in pairs
            ]
        else:
            raw = [float(2 * sps.norm.sf(diff[i, j] / se)) for i, j in pairs]
        adj = adjust(raw, "holm")
        different = np.zeros((k, k), dtype=bool)
        for (i, j), p in zip(pairs, adj, strict=True):
            assert p is not None
            pair_p[(methods[i], methods[j])] = p
            different[i, j] = different[j, i] = p < alpha
    np.fill_diagonal(different, False)
    return Friedman(
        methods=tuple(methods),
        blocks=N,
        average_ranks=tuple(float(r) for r in R),
        chi2=chi2,
        p_chi2=p_chi2,
        iman_davenport=None if ff is None else float(ff),
        p_iman_davenport=p_ff,
        posthoc=posthoc,
        alpha=alpha,
        cd=cd,
        pair_p=pair_p,
        different=tuple(tuple(bool(x) for x in row) for row in different),
    )


def groups(order: list[str], differ) -> list[tuple[str, ...]]:
    """Maximal runs of consecutive methods (in ``order``, e.g. by average rank) no two
    of which ``differ(a, b)``: the bars of a critical-difference diagram. Single
    methods are not groups."""
    out: list[tuple[str, ...]] = []
    n = len(order)
    last_end = -1
    for i in range(n):
        j = i
        while j + 1 < n and all(not differ(order[m], order[j + 1]) for m in range(i, j + 1)):
            j += 1
        if j > i and j > last_end:
            out.append(tuple(order[i : j + 1]))
            last_end = j
    return out
