"""Barrio et al.'s width stage, computed once per training set and shared.

Every basis method of Barrio et al. (2009) but ABF itself starts from the widths that
ABF's marginal likelihood gives on the training set (:func:`.abf.optimise_abf`), and that CG
(one N^3 eigendecomposition per evaluation) is nearly all of their training time at
N = 1024. It depends on nothing but the data it sees and its settings, so the runner's
stage store (:class:`delve_bench.methods.base.StageStore`, ``FitContext.stages``) keeps it
under a content key and every other method fitting the same training set reads it:

* **the data**: the scaled inputs and centred targets, all of them up to ``max_n`` cases;
  beyond, ``max_n`` of them drawn by a stream seeded from the training set's own bytes
  (:func:`delve_bench.rng.random_order`), so every method gets the same subset (the
  method's own generator would give each method another one);
* **the key**: the sha256 of :data:`STAGE_VERSION`, the CG's settings, the versions of
  numpy and its BLAS, the BLAS kernels and thread count and the machine architecture (a stage is
  reused only where computing it would give the same bits), and the bytes of the data the
  CG sees;
* **the value**: the CG's end point ``theta`` and its counts, and the CPU seconds the CG
  took where it ran. Floats travel as JSON's shortest round-trip text, so a reused stage is
  bit for bit the computed one.

A stage that a budget may cut short depends on the clock, not only on its data: it is
computed in place and never shared (``stop`` and ``store`` exclude each other).
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...rng import derived_seed, random_order
from ..base import StageStore
from .abf import AbfOptimum, optimise_abf

#: the stage's name in the store
STAGE = "abf-widths"
#: the stage's code version, part of every key: bump it when a change to
#: :func:`.abf.optimise_abf` or to the choice of the data alters what the stage computes
STAGE_VERSION = 1


@dataclass(frozen=True)
class WidthStage:
    """The width stage of one training set.

    Attributes
    ----------
    optimum : AbfOptimum
        The CG's end point: widths, alpha, beta, log marginal likelihood, counts.
    cases : int
        Training cases the CG saw (at most ``max_n``).
    cpu_seconds : float
        CPU seconds of the CG where it ran: in this process, or in the job that stored it.
    reused : bool
        Read from the stage store rather than computed here.
    """

    optimum: AbfOptimum
    cases: int
    cpu_seconds: float
    reused: bool

    @property
    def widths(self) -> np.ndarray:
        return self.optimum.widths


def _digest(*arrays: np.ndarray) -> str:
    """sha256 of the arrays' shapes and little-endian float64 bytes."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype="<f8")
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def stage_data(X: np.ndarray, t: np.ndarray, max_n: int) -> tuple[np.ndarray, np.ndarray]:
    """The cases the width stage sees: all of them, or ``max_n`` drawn by a stream seeded
    from the training set itself (the same subset whichever method asks), in their order.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        Scaled training inputs.
    t : ndarray of shape (n,)
        Centred training targets.
    max_n : int
        The most cases the stage uses.

    Returns
    -------
    X, t : ndarrays of shapes (min(n, max_n), m) and (min(n, max_n),)
    """
    if len(X) <= max_n:
        return X, t
    seed = derived_seed(STAGE, _digest(X, t))
    keep = np.sort(random_order(len(X), seed)[:max_n] - 1)
    return X[keep], t[keep]


def _blas() -> list[list]:
    """The BLAS numpy runs on: name, version, kernels (OPENBLAS_CORETYPE picks other ones
    on the same machine) and thread count, what besides numpy itself decides the last bits
    of an eigendecomposition. numpy's alone: the stage computes with numpy only, and a
    process that has imported scipy (whose wheel brings another OpenBLAS) must find the
    stage another process stored."""
    from ... import blas

    return sorted(
        [str(b["library"]), str(b["version"]), str(b["architecture"]), int(b["threads"] or 0)]
        for b in blas.numpy_blas()
    )


def stage_key(X: np.ndarray, t: np.ndarray, max_iterations: int) -> str:
    """The content key of the stage on exactly these cases with this iteration limit, on
    this numpy, BLAS (its kernels and thread count) and architecture."""
    settings = {
        "stage": STAGE,
        "version": STAGE_VERSION,
        "max_iterations": max_iterations,
        "numpy": np.__version__,
        "blas": _blas(),
        "machine": platform.machine(),
    }
    text = json.dumps(settings, sort_keys=True) + _digest(X, t)
    return hashlib.sha256(text.encode()).hexdigest()


def _encode(opt: AbfOptimum, cases: int, cpu: float) -> dict:
    return {
        "theta": [float(v) for v in opt.theta],
        "log_ml": opt.log_ml,
        "iterations": opt.iterations,
        "evaluations": opt.evaluations,
        "cases": cases,
        "cpu_seconds": cpu,
    }


def _decode(value: dict | None, dims: int, cases: int) -> WidthStage | None:
    """The stored stage, or None unless ``value`` is a whole, well-formed one for data of
    ``dims`` inputs and ``cases`` cases (anything else is recomputed)."""
    if not isinstance(value, dict):
        return None
    theta, log_ml, cpu = value.get("theta"), value.get("log_ml"), value.get("cpu_seconds")
    counts = [value.get(k) for k in ("iterations", "evaluations", "cases")]
    if not (
        isinstance(theta, list)
        and len(theta) == dims + 2
        and all(isinstance(v, float) and math.isfinite(v) for v in theta)
        and isinstance(log_ml, float)
        and isinstance(cpu, int | float)
        and not isinstance(cpu, bool)
        and cpu >= 0
        and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)
        and counts[2] == cases
    ):
        return None
    opt = AbfOptimum(np.array(theta), log_ml, int(value["iterations"]), int(value["evaluations"]))
    return WidthStage(opt, cases, float(cpu), reused=True)


def width_stage(
    X: np.ndarray,
    t: np.ndarray,
    *,
    max_n: int,
    max_iterations: int,
    stop: Callable[[int], bool] | None = None,
    store: StageStore | None = None,
) -> WidthStage:
    """ABF's widths for a training set: read from ``store`` when a method fitting the same
    training set has computed them, else computed (and kept there).

    Parameters
    ----------
    X, t, max_n :
        The training set and the most cases the stage uses, as :func:`stage_data` takes
        them.
    max_iterations : int
        CG iterations at most.
    stop : callable, optional
        ``stop(iterations)`` may end the CG early (a CPU budget); such a stage is not shared.
    store : StageStore, optional
        Where shared stages are kept; None: compute in place.

    Returns
    -------
    WidthStage
    """
    if stop is not None and store is not None:
        raise ValueError("a width stage that a budget may stop early cannot be shared")
    Xw, tw = stage_data(X, t, max_n)
    key = stage_key(Xw, tw, max_iterations) if store is not None else ""
    if store is not None:
        found = _decode(store.load(STAGE, key), X.shape[1], len(Xw))
        if found is not None:
            return found
    start = time.process_time()
    opt = optimise_abf(Xw, tw, max_iterations=max_iterations, stop=stop)
    cpu = time.process_time() - start
    if store is not None:
        store.save(STAGE, key, _encode(opt, len(Xw), cpu))
    return WidthStage(opt, len(Xw), cpu, reused=False)
