"""The Relevance Vector Machine: Tipping & Faul's fast marginal-likelihood algorithm and,
as a reference for benchmarks and the MDL study, Tipping's (2001) plain re-estimation.

Tipping (2001); Tipping & Faul (2003); docs/methods/basis.md. The fast algorithm follows the
T&F paper with the conventions of the SparseBayes 2.0 reference code: the initial noise
variance is 0.1 var(t) (T&F and Barrio et al., *not* SparseBayes' (0.1 std t)^2); every
iteration evaluates the likelihood change of every candidate action and takes the best,
deletions first; beta is updated on each of the first 10 iterations, then every 5, and
whenever termination is proposed; beta <= 1e6 / var(t); candidates aligned with an in-model
vector (normalised inner product > 1 - 1e-3) are not added until that vector is deleted; the
last basis function is never deleted. Two guards for noise-free data, where beta reaches
its cap: in-model factors come from exact identities (:func:`model_factors`) and a
candidate inside the model's span to working precision is not added (:func:`in_span`).
One *iteration* (one add / delete / re-estimate action) is one work unit, which is
also what Barrio et al. count as "re-estimation iterations".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .evidence import EvidenceState, beta_max, sparsity_quality

ZERO_FACTOR = 1e-12
MIN_DELTA_LOG_ALPHA = 1e-3
MIN_DELTA_LOG_BETA = 1e-6
BETA_UPDATE_START = 10
BETA_UPDATE_FREQUENCY = 5
ALIGNMENT_MAX = 1 - 1e-3
#: a candidate whose sparsity factor ``S_m`` is at most this fraction of ``beta ||phi_m||^2``
#: lies in the span of the model to working precision and is not added (see :func:`in_span`)
SPAN_TOLERANCE = 1e-6


@dataclass
class RvmResult:
    state: EvidenceState
    iterations: int
    adds: int = 0
    deletes: int = 0
    reestimates: int = 0
    converged: bool = False
    history: list[float] = field(default_factory=list)  # log marginal after beta updates


def initial_basis(B: np.ndarray, t: np.ndarray) -> int:
    """The column with the largest normalised projection ``(phi^T t)^2 / ||phi||^2``."""
    norms = np.einsum("np,np->p", B, B)
    proj = (B.T @ t) ** 2 / np.where(norms > 0, norms, np.inf)
    return int(np.argmax(proj))


@dataclass(frozen=True)
class Action:
    """The fast algorithm's choice for one iteration (Tipping & Faul 2003, §4)."""

    kind: str  # "add", "delete" or "reestimate"
    index: int  # the candidate (dictionary column)
    new_alpha: float  # its new precision (add, reestimate)
    gain: float  # the change of the log marginal likelihood
    terminate: bool  # no action improves the marginal likelihood enough


def choose_action(
    S: np.ndarray,
    Q: np.ndarray,
    s: np.ndarray,
    q: np.ndarray,
    idx: list[int],
    alpha: np.ndarray,
    aligned: np.ndarray,
) -> Action:
    """The action of largest likelihood gain from the factors S, Q (eqs. 25-26) and s, q of
    every candidate: re-estimate an in-model alpha (theta = q^2 - s > 0), delete one
    (theta <= 0; never the last), add one (theta > 0, not flagged ``aligned``).
    Deletions go first whenever one gains; termination when nothing gains or the best
    action only re-estimates an alpha by less than ``MIN_DELTA_LOG_ALPHA`` in log.
    Shared by the Gaussian RVM (:func:`fast_rvm`) and the classifier's Laplace
    approximation (:mod:`delve_bench.methods.classify.rvm`)."""
    P = len(S)
    theta = q**2 - s
    inm = np.zeros(P, bool)
    inm[idx] = True
    I = np.asarray(idx)
    dml = np.full(P, -np.inf)
    new_alpha = np.full(P, np.inf)
    # re-estimation of in-model alphas
    a_cur = np.full(P, np.inf)
    a_cur[I] = alpha
    rees = inm & (theta > ZERO_FACTOR)
    if rees.any():
        na = s[rees] ** 2 / theta[rees]
        delta = 1.0 / na - 1.0 / a_cur[rees]
        # In exact arithmetic S_i < alpha_i in the model, so S * delta > -1; rounding can
        # break that when alpha_i is close to S_i, and the NaN then counts as no gain below.
        with np.errstate(divide="ignore", invalid="ignore"):
            dml[rees] = 0.5 * (Q[rees] ** 2 / (S[rees] + 1.0 / delta) - np.log1p(S[rees] * delta))
        new_alpha[rees] = na
    # deletion
    dele = inm & ~rees
    if len(idx) == 1:
        dele[:] = False
    if dele.any():
        a = a_cur[dele]
        dml[dele] = 0.5 * (Q[dele] ** 2 / (S[dele] - a) - np.log1p(-S[dele] / a))
    # addition
    addc = ~inm & (theta > ZERO_FACTOR) & ~aligned
    if addc.any():
        Sa, Qa = S[addc], Q[addc]
        dml[addc] = 0.5 * ((Qa**2 - Sa) / Sa + np.log(Sa / Qa**2))
        new_alpha[addc] = s[addc] ** 2 / theta[addc]
    dml[~np.isfinite(dml)] = -np.inf

    pending_delete = bool(dele.any() and np.max(dml[dele]) > 0)
    cand = np.where(dele, dml, -np.inf) if pending_delete else dml
    best = int(np.argmax(cand))
    gain = float(cand[best])
    terminate = not gain > 0
    if not terminate and rees[best] and not pending_delete:
        pos = idx.index(best)
        if abs(np.log(new_alpha[best]) - np.log(alpha[pos])) < MIN_DELTA_LOG_ALPHA:
            terminate = True
    kind = "delete" if dele[best] else "reestimate" if rees[best] else "add"
    return Action(kind, best, float(new_alpha[best]), gain, terminate)


def fast_rvm(
    B: np.ndarray,
    t: np.ndarray,
    max_iterations: int = 100000,
    stop: Callable[[int], bool] | None = None,
    beta0: float | None = None,
) -> RvmResult:
    """Maximise the marginal likelihood over all ``alpha_i`` and ``beta`` (T&F 2003)."""
    var_t = float(np.var(t))
    beta = beta0 if beta0 is not None else 1.0 / (0.1 * var_t)
    b_max = beta_max(t)
    st = EvidenceState(B, t, beta)
    i0 = initial_basis(B, t)
    norm2 = st.diagK[i0]
    proj2 = st.Btt[i0] ** 2 / norm2
    alpha0 = norm2 / max(proj2 - 1.0 / beta, 1e-12 * proj2)
    st.idx, st.alpha = [i0], np.array([alpha0])
    st.recompute()
    res = RvmResult(state=st, iterations=0)
    norms = np.sqrt(st.diagK)

    it = 0
    # candidates refused by the alignment test, and the in-model functions they were
    # aligned with: deleting one of those makes them candidates again (SparseBayes 2.0)
    aligned = np.zeros(st.P, bool)
    aligned_with: dict[int, list[int]] = {}
    while it < max_iterations and not (stop is not None and stop(it)):
        S, Q = model_factors(st)
        s, q = sparsity_quality(S, Q, st.idx, st.alpha)
        act = choose_action(S, Q, s, q, st.idx, st.alpha, aligned | in_span(st, S))
        terminate, best = act.terminate, act.index
        if not terminate:
            if act.kind == "delete":
                st.delete(st.idx.index(best))
                aligned[aligned_with.pop(best, [])] = False
                res.deletes += 1
            elif act.kind == "reestimate":
                st.reestimate(st.idx.index(best), act.new_alpha)
                res.reestimates += 1
            else:
                I = np.asarray(st.idx)
                cos = st.K[best, I] / (norms[best] * norms[I])
                hits = I[cos > ALIGNMENT_MAX]
                if hits.size:
                    aligned[best] = True
                    for h in hits:
                        aligned_with.setdefault(int(h), []).append(best)
                else:
                    st.add(best, act.new_alpha)
                    res.adds += 1
        it += 1

        if terminate or it <= BETA_UPDATE_START or it % BETA_UPDATE_FREQUENCY == 0:
            old = st.beta
            g = st.gamma()
            st.beta = float(min((st.N - g) / max(st.sse(), 1e-300), b_max))
            st.recompute()
            res.history.append(st.log_marginal())
            if terminate and abs(np.log(st.beta) - np.log(old)) < MIN_DELTA_LOG_BETA:
                res.converged = True
                break
    res.iterations = it
    return res


def model_factors(st: EvidenceState) -> tuple[np.ndarray, np.ndarray]:
    """The factors ``S_m, Q_m`` of every candidate, shape (P,) each.

    For an in-model function ``i`` they come from the identities
    ``S_i = alpha_i (1 - alpha_i Sigma_ii)`` and ``Q_i = alpha_i mu_i`` (Tipping & Faul 2003,
    with ``Sigma_ii = 1 / (alpha_i + s_i)``, ``mu_i = Sigma_ii q_i``). The general form
    ``beta K_ii - beta^2 k_i^T Sigma k_i`` that :class:`EvidenceState` keeps cancels to
    rounding noise when ``beta`` is large (noise-free targets push it to its cap) and a
    well-determined weight has ``S_i`` far below ``beta K_ii``; the deletion and
    re-estimation gains then came out NaN or of the wrong sign."""
    S, Q = st.S.copy(), st.Q.copy()
    if st.M:
        I = np.asarray(st.idx)
        S[I] = st.alpha * (1.0 - st.alpha * np.diag(st.Sigma))
        Q[I] = st.alpha * st.mu
    return S, Q


def in_span(st: EvidenceState, S: np.ndarray) -> np.ndarray:
    """Candidates inside the span of the model to working precision, shape (P,) bool.

    ``S_m / (beta ||phi_m||^2)`` is the fraction of ``phi_m`` that the model cannot
    express (in the metric of ``C^-1``): 1 for a function orthogonal to the model, 0 for
    one in its span. The Gram form subtracts two numbers of size ``beta ||phi_m||^2``, so
    its rounding error grows with the conditioning of the model, and on noise-free data
    (beta at its cap, many nearly dependent RBFs) candidates whose true ``S_m`` is below
    that error get a meaningless, often huge, addition gain; added, they make the
    Hessian singular (hwang-g5/clean: a failed fit). Such candidates are not added, the
    span-wide form of SparseBayes' alignment test (which compares with one in-model
    function at a time). 1e-6 leaves the results on noisy data unchanged (kin-8nm,
    pumadyn-8fh, std.1024); 1e-8 lets rounding noise through (hwang-g3/clean: thousands
    of additions each undone by a deletion); docs/methods/basis.md."""
    mask = S <= SPAN_TOLERANCE * st.beta * st.diagK
    mask[st.idx] = False
    return mask


def plain_rvm(
    B: np.ndarray,
    t: np.ndarray,
    max_iterations: int = 1000,
    alpha_max: float = 1e9,
    tol: float = 1e-3,
    stop: Callable[[int], bool] | None = None,
    beta0: float | None = None,
) -> RvmResult:
    """Tipping's (2001) re-estimation RVM (Tipping 2001): all basis functions start in the model
    with ``alpha = (1/N)^2``; each iteration refits the posterior (O(M^3)) and applies
    ``alpha_i = gamma_i / mu_i^2``, ``beta = (N - sum gamma) / ||t - Phi mu||^2``;
    prunes ``alpha_i > alpha_max``; stops when ``max |Delta log alpha| < tol``. The
    initial ``beta = 1 / (0.1 std t)^2`` is SparseBayes v1's (``beta0`` overrides it). With N candidates the early
    iterates nearly interpolate and ``||t - Phi mu||^2 -> 0``, so beta would overflow:
    it is clamped at ``1e6 / var(t)`` as in the fast algorithm (SparseBayes 2.0's
    BetaMaxFactor; a reading, v1 has no clamp)."""
    N, P = B.shape
    b_max = beta_max(t)
    st = EvidenceState(B, t, beta0 if beta0 is not None else 1.0 / (0.1 * np.std(t)) ** 2)
    st.idx = list(range(P))
    st.alpha = np.full(P, (1.0 / N) ** 2)
    st.recompute()
    res = RvmResult(state=st, iterations=0)
    it = 0
    while it < max_iterations and not (stop is not None and stop(it)):
        g = np.clip(1.0 - st.alpha * np.diag(st.Sigma), 1e-12, 1.0)  # round-off guard
        new = g / np.maximum(st.mu**2, 1e-300)
        beta = min((N - g.sum()) / max(st.sse(), 1e-300), b_max)
        keep = new < alpha_max
        if not keep.any():
            keep[np.argmin(new)] = True
        delta = np.max(np.abs(np.log(new[keep]) - np.log(st.alpha[keep])))
        st.idx = [i for i, k in zip(st.idx, keep, strict=True) if k]
        st.alpha, st.beta = new[keep], float(beta)
        st.recompute()
        it += 1
        if delta < tol and keep.all():
            res.converged = True
            break
    res.iterations = it
    res.history.append(st.log_marginal())
    return res
