"""Shared pieces of the OFS-LOOMI investigation scripts (``benchmarks/ofs_*.py``, issue
#32): a selection path per (realisation, width) with the test error after every stage, and
the termination rule and the width choice applied to stored paths.

A path does not depend on the look-ahead p or the minimum size M_min (they only decide
where it is cut), so one path per width answers every (p, M_min) at once. The cut is
ofs-loomi-1's own stopper (:class:`OrrStop`) fed with minus J; the width choice uses
ofs-loomi-1's key (LOO labels agreeing with the labels, then the larger final LOOMI, the
smaller model, the smaller scale). The tables of record come from the method itself
(``benchmarks/classification.py``); these scripts explain them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from classification import SETS

from delve_bench.methods.basis.criteria import ETA_MIN
from delve_bench.methods.basis.orthogonal import OrthogonalSelection
from delve_bench.methods.basis.stopping import OrrStop
from delve_bench.methods.classify.ofs import SCALES, median_sq_distance
from delve_bench.numerics.distance import sq_distances
from delve_bench.run.instance import EncodedInstance, load_instance
from delve_bench.workspace import WorkspaceDirs

INPUTS = ("encoded", "raw", "z")


def inputs_of(enc: EncodedInstance, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Training (n, m) and test (t, m) inputs: DELVE's coding (``encoded``, median and
    absDev of the training set), the data set's own units (``raw``: Rätsch's
    standardisation for the IDA sets, Ripley's units) or z-scores on the training set's
    mean and SD (``z``: Rätsch's standardisation redone on the training set alone)."""
    if kind == "encoded":
        return enc.X_train, enc.X_test
    Xtr, Xte = enc.raw_train, enc.raw_test
    if kind == "z":
        mu, sd = Xtr.mean(0), Xtr.std(0)
        sd = np.where(sd > 0, sd, 1.0)
        Xtr, Xte = (Xtr - mu) / sd, (Xte - mu) / sd
    return Xtr, Xte


@dataclass
class Path:
    """One selection run, stage l = 1 .. L (arrays of shape (L,)): the LOOMI J_l, the test
    error (%) of sgn f, the training-set LOO error (%), the term's lambda, whether it was
    reset to 1e-6, and whether the LOO labels agree with the labels (odds ratio > 1)."""

    J: np.ndarray
    test_err: np.ndarray
    loo_err: np.ndarray
    lam: np.ndarray
    reset: np.ndarray
    agrees: np.ndarray


def selection_path(
    Xtr: np.ndarray,
    y: np.ndarray,
    Xte: np.ndarray,
    yt: np.ndarray,
    tau: float,
    n_terms: int,
    lam_update: str = "evidence",
) -> Path:
    """ofs-loomi-1's selection at width ``tau`` for ``n_terms`` stages, labels ``y`` (n,)
    and ``yt`` (t,) in {-1, +1}; the test predictions use sgn f with sgn(0) = -1."""
    sel = OrthogonalSelection(
        np.exp(-sq_distances(Xtr, Xtr) / tau),
        y,
        lam=1e-6,
        score="loomi",
        criterion="loomi",
        lam_update=lam_update,
        F_val=np.exp(-sq_distances(Xte, Xtr) / tau),
    )
    rows = []
    for _ in range(min(n_terms, len(y) - 1)):
        if sel.step() is None:
            break
        f = sel.val_prediction()
        loo = y - sel.e / np.maximum(sel.eta, ETA_MIN)
        right, pos = loo * y > 0, y > 0
        agrees = np.sum(pos & right) * np.sum(~pos & right) > np.sum(pos & ~right) * np.sum(
            ~pos & ~right
        )
        rows.append(
            (
                -sel.value(),
                100 * np.mean(np.where(f > 0, 1.0, -1.0) != yt),
                100 * np.mean(~right),
                sel.lam_t[-1],
                sel.m - 1 in sel.reset_at,
                agrees,
            )
        )
    cols = list(zip(*rows, strict=True))
    return Path(*(np.array(c) for c in cols))


def kept_size(J: np.ndarray, p_look: int, m_min: int) -> int:
    """The size ofs-loomi-1 keeps on the path ``J`` (J_1 .. J_L): its stopper, (51)."""
    stop = OrrStop(wait=p_look, thresh=np.inf, min_size=m_min)
    for m, j in enumerate(J, 1):
        if stop.update(m, -j):
            break
    return stop.best_m or len(J)


def choose_scale(paths: dict[float, Path], p_look: int, m_min: int) -> float:
    """ofs-loomi-1's width choice among ``paths`` (scale s -> Path)."""

    def key(s: float):
        M = kept_size(paths[s].J, p_look, m_min)
        return (bool(paths[s].agrees[M - 1]), paths[s].J[M - 1], -M, -s)

    return max(paths, key=key)


def set_paths(
    ws: WorkspaceDirs,
    name: str,
    kind: str,
    n_terms: int,
    realisations: int = 10,
    scales: tuple[float, ...] = SCALES,
    lam_update: str = "evidence",
) -> list[dict[float, Path]]:
    """Per realisation of data set ``name`` (Ripley: its one split), scale -> Path, with
    tau = s x the training set's median squared distance."""
    out = []
    for i in range(1 if name == "ripley" else realisations):
        enc = load_instance(ws, SETS[name], i)
        Xtr, Xte = inputs_of(enc, kind)
        y = np.where(enc.y_train == 1, 1.0, -1.0)
        yt = np.where(enc.y_test_encoded == 1, 1.0, -1.0)
        med = median_sq_distance(Xtr)
        out.append(
            {s: selection_path(Xtr, y, Xte, yt, s * med, n_terms, lam_update) for s in scales}
        )
    return out


def protocol_result(
    paths: list[dict[float, Path]], p_look: int, m_min: int, width_from: str
) -> dict:
    """Mean test error (%), its SD, mean size and mean resets among the kept terms under
    a termination rule and a width protocol (``first``: the scale chosen on realisation 1
    for all; ``own``: chosen per realisation). With ``first`` the scale, not tau, carries
    over (each realisation's median distance differs by a few per cent)."""
    s0 = choose_scale(paths[0], p_look, m_min)
    err, size, resets = [], [], []
    for per in paths:
        s = s0 if width_from == "first" else choose_scale(per, p_look, m_min)
        M = kept_size(per[s].J, p_look, m_min)
        err.append(per[s].test_err[M - 1])
        size.append(M)
        resets.append(int(per[s].reset[:M].sum()))
    sd = float(np.std(err, ddof=1)) if len(err) > 1 else 0.0
    return {
        "err": float(np.mean(err)),
        "sd": sd,
        "size": float(np.mean(size)),
        "resets": float(np.mean(resets)),
        "s0": s0,
    }
