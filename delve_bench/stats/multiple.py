"""Corrections for many tests at once: Holm (1979) and Benjamini & Hochberg (1995), computed
here in numpy (the same step-down and step-up formulas as
``statsmodels.stats.multitest.multipletests``, checked against it in the tests) so that a
report need not import statsmodels and, through it, pandas.

Holm's step-down procedure controls the family-wise error rate (the chance of one or
more false claims) under any dependence between the tests, so it is valid for the
nested training sets of one prototask. Benjamini-Hochberg controls the expected share of
false claims among the claims (the false discovery rate) and is valid under positive
dependence. Missing p-values (a test that could not be made) stay missing and do not
count towards the number of tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CORRECTIONS = {"holm": "holm", "bh": "fdr_bh"}
CORRECTION_NAMES = {
    "holm": "Holm (1979) step-down, family-wise error rate",
    "bh": "Benjamini-Hochberg (1995), false discovery rate",
}


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down: the i-th smallest p times (m - i + 1), made non-decreasing."""
    order = np.argsort(p)
    raw = p[order] * np.arange(len(p), 0, -1)
    out = np.empty_like(p)
    out[order] = np.minimum(np.maximum.accumulate(raw), 1.0)
    return out


def _bh(p: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg's step-up: the i-th smallest p times m / i, made non-decreasing
    from the largest down."""
    order = np.argsort(p)
    m = len(p)
    raw = p[order] * m / np.arange(1, m + 1)
    out = np.empty_like(p)
    out[order] = np.minimum(np.minimum.accumulate(raw[::-1])[::-1], 1.0)
    return out


_ADJUST = {"holm": _holm, "bh": _bh}


def adjust(p: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """Adjusted p-values (same order; None stays None)."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose {', '.join(CORRECTIONS)}")
    idx = [i for i, x in enumerate(p) if x is not None and np.isfinite(x)]
    out: list[float | None] = [None] * len(p)
    if idx:
        vals = np.array([p[i] for i in idx], dtype=float)
        adj = _ADJUST[method](vals)
        for i, a in zip(idx, adj, strict=True):
            out[i] = float(a)
    return out
