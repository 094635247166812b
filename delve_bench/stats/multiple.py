"""Corrections for many tests at once: Holm (1979) and Benjamini & Hochberg (1995), by
``statsmodels.stats.multitest.multipletests``.

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


def adjust(p: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """Adjusted p-values (same order; None stays None)."""
    from statsmodels.stats.multitest import multipletests

    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; choose {', '.join(CORRECTIONS)}")
    idx = [i for i, x in enumerate(p) if x is not None and np.isfinite(x)]
    out: list[float | None] = [None] * len(p)
    if idx:
        vals = np.array([p[i] for i in idx], dtype=float)
        adj = multipletests(vals, method=CORRECTIONS[method])[1]
        for i, a in zip(idx, adj, strict=True):
            out[i] = float(a)
    return out
