"""The two-class LOO machinery of Hong, Chen et al. (2014) on the one OFS engine:
closed-form LOO outputs against brute-force refits, LOOMI from its definition, the
evidence lambda's fixed point, and the look-ahead termination."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from delve_bench.methods.basis.criteria import loo_error_rate, loomi, mutual_information
from delve_bench.methods.basis.orthogonal import OrthogonalSelection
from delve_bench.methods.basis.stopping import OrrStop


def _problem(N=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=N) > 0, 1.0, -1.0)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-D / 1.5), y


def _brute_loo_outputs(W: np.ndarray, y: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """Refit the model linear in the fixed basis W with ridge Lambda on g without each case."""
    N = len(y)
    out = np.empty(N)
    for k in range(N):
        keep = np.arange(N) != k
        A = W[keep].T @ W[keep] + np.diag(lam)
        g = np.linalg.solve(A, W[keep].T @ y[keep])
        out[k] = W[k] @ g
    return out


def _mi_by_definition(y: np.ndarray, yhat: np.ndarray) -> float:
    """Eq. (14) in bits from the empirical joint distribution of (y, yhat), 0 log 0 = 0."""
    mi = 0.0
    for a in (-1, 1):
        for b in (-1, 1):
            p_ab = np.mean((y == a) & (yhat == b))
            if p_ab > 0:
                mi += p_ab * math.log2(p_ab / (np.mean(y == a) * np.mean(yhat == b)))
    return mi


@pytest.mark.parametrize("lam_update", ["fixed", "evidence"])
def test_closed_form_loo_outputs_equal_brute_force_refits(lam_update):
    Phi, y = _problem()
    sel = OrthogonalSelection(
        Phi, y, lam=1e-6, score="loomi", criterion="loomi", lam_update=lam_update
    )
    for _ in range(6):
        sel.step()
    W = np.array(sel.Ht).T
    lam = np.array(sel.lam_t)
    brute = _brute_loo_outputs(W, y, lam)
    assert np.allclose(sel.y - sel.e / sel.eta, brute, rtol=1e-9, atol=1e-9)
    # and for a truncated model (what the termination keeps)
    e, eta = sel.residuals(4)
    assert np.allclose(y - e / eta, _brute_loo_outputs(W[:, :4], y, lam[:4]), atol=1e-9)


def test_loomi_and_loo_error_rate_from_their_definitions():
    Phi, y = _problem(seed=1)
    sel = OrthogonalSelection(Phi, y, lam=1e-6, score="loomi", criterion="loomi")
    for _ in range(5):
        sel.step()
    brute = _brute_loo_outputs(np.array(sel.Ht).T, y, np.array(sel.lam_t))
    yhat = np.where(brute > 0, 1, -1)  # sgn with sgn(0) = -1
    assert loomi(y, sel.e, sel.eta) == pytest.approx(_mi_by_definition(y, yhat), abs=1e-12)
    assert sel.value() == pytest.approx(-_mi_by_definition(y, yhat), abs=1e-12)
    assert loo_error_rate(y, sel.e, sel.eta) == pytest.approx(np.mean(yhat != y))


def test_candidate_scores_are_the_loomi_of_each_candidate_model():
    """Stage scores from the O(N) recursions (32)-(33) equal LOOMI of the refitted models."""
    Phi, y = _problem(N=30, seed=2)
    sel = OrthogonalSelection(Phi, y, lam=1e-6, score="loomi", criterion="loomi")
    for _ in range(3):
        sel.step()
    scores = sel.scores()
    W = np.array(sel.Ht).T
    lam = np.array(sel.lam_t)
    for j in np.flatnonzero(np.isfinite(scores))[::4]:
        Wj = np.column_stack([W, sel.Ft[:, j]])
        brute = _brute_loo_outputs(Wj, y, np.append(lam, 1e-6))
        assert scores[j] == pytest.approx(
            _mi_by_definition(y, np.where(brute > 0, 1, -1)), abs=1e-12
        )


def test_mutual_information_edge_cases():
    pos = np.array([True, True, False, False])
    assert mutual_information(pos, np.ones(4, bool)) == pytest.approx(1.0)  # perfect: 1 bit
    assert mutual_information(pos, np.array([True, True, False, False])) == 0.0  # all one class
    assert mutual_information(pos, np.zeros(4, bool)) == pytest.approx(
        1.0
    )  # all wrong: still 1 bit


def _log_evidence(h: float, eps: float, N: int, kap: float, c: float, ee: float) -> float:
    """Eq. (43) with the MAP weight g = eps kap g_LS / (eps kap + h), g_LS = c / kap."""
    g = eps * c / (eps * kap + h)
    return (
        N / 2 * np.log(eps / (2 * np.pi))
        + 0.5 * np.log(h)
        - 0.5 * np.log(eps * kap + h)
        - eps * ee / 2
        + g**2 * (eps * kap + h) / 2
    )


def test_evidence_lambda_fixed_point_maximises_the_evidence():
    Phi, y = _problem(N=60, seed=3)
    sel = OrthogonalSelection(Phi, y, lam=1e-6, score="loo", criterion="loo", n_bayes=500)
    sel.step()
    sel.lam_update = "evidence"
    J = int(np.argmax(sel.scores()))
    kap, c = float(sel.kap[J]), float(sel.cy[J])
    lam = sel.evidence_lambda(kap, c, 1e-6)
    assert sel.resets == 0 and 0 < lam < 1e6
    # a fixed point: one more iteration does not move it
    sel.n_bayes = 1
    assert sel.evidence_lambda(kap, c, lam) == pytest.approx(lam, rel=1e-8)
    # and it is where (43) is largest over (h, eps)
    ee, N = float(sel.e @ sel.e), sel.N
    res = minimize(
        lambda v: -_log_evidence(np.exp(v[0]), np.exp(v[1]), N, kap, c, ee),
        x0=[0.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    h, eps = np.exp(res.x)
    assert h / eps == pytest.approx(lam, rel=1e-4)


def test_evidence_lambda_resets_when_it_runs_away():
    Phi, y = _problem(N=20, seed=4)
    sel = OrthogonalSelection(Phi, y, lam=1e-6, score="loo", criterion="loo", lam_update="evidence")
    # a candidate orthogonal to the residual (g = 0): the update diverges, lambda is reset
    assert sel.evidence_lambda(1.0, 0.0, 1e-6) == 1e-6 and sel.resets == 1
    sel.lam_max = 1e-9  # any finite result above lam_max is reset too
    assert sel.evidence_lambda(1.0, 0.5, 1e-6) == 1e-6 and sel.resets == 2


def test_look_ahead_termination_keeps_the_first_unbeaten_size():
    """(51): the first M >= M_min with J_{M+1..M+p} <= J_M; the stopper sees -J."""
    J = [0.1, 0.3, 0.35, 0.2, 0.34, 0.5, 0.45, 0.5, 0.49, 0.6]
    for p_look, m_min, want in ((3, 2, 6), (2, 2, 3), (3, 4, 6), (1, 1, 3)):
        stop = OrrStop(wait=p_look, thresh=np.inf, min_size=m_min)
        for m, j in enumerate(J, 1):
            if stop.update(m, -j):
                break
        first = next(
            M
            for M in range(m_min, len(J) + 1)
            if all(J[M + i - 1] <= J[M - 1] for i in range(1, p_look + 1))
        )
        assert stop.best_m == first == want
