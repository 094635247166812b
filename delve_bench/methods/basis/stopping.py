"""Stopping rules for forward selection (one job each; all minimise a criterion).

* :class:`OrrStop`: the "age" rule of Orr's ``rbf_fs_2`` (his 1999 MATLAB package): a new
  minimum must improve by more than 1/thresh; stop after ``wait`` non-improving steps;
  the kept size is the last accepted minimum. ``wait=1, thresh=inf`` is "stop at the
  first increase" (the OFR-LOO rule). With ``thresh=inf``, ``wait=p`` and ``min_size=M0``
  it is exactly Hong, Chen et al.'s (2014) termination (51) for a criterion to maximise
  (pass minus it): keep the first M >= M0 whose next p values are all <= J_M. (That
  first M is the strict running maximum from M0 on: an earlier maximum would have been
  overtaken within its look-ahead, which then also overtakes J_M.)
* :class:`LookAheadStop`: Barrio et al.'s rule (2009 §6.2.2): stop once
  the size exceeds ``m_h + round(max(15, 0.3 m_h))``, ``m_h`` the best size so far; used
  with the validation SSE for OLS's 5-fold CV (docs/methods/basis.md, ols-cv-1).
"""

from __future__ import annotations

import math


class OrrStop:
    def __init__(self, wait: int = 2, thresh: float = 1e4, min_size: int = 1):
        self.wait, self.thresh, self.min_size = wait, thresh, min_size
        self.best = math.inf
        self.best_m = 0
        self.age = 0

    def update(self, m: int, value: float) -> bool:
        """Record the criterion of the m-term model; True when selection should finish.
        Models smaller than ``min_size`` are not candidates for the kept size."""
        if m < self.min_size:
            return False
        factor = 1.0 if math.isinf(self.thresh) else (self.thresh - 1) / self.thresh
        if m == self.min_size or value < self.best * factor:
            self.best, self.best_m, self.age = value, m, 0
        else:
            self.age += 1
        return self.age >= self.wait


class LookAheadStop:
    def __init__(self) -> None:
        self.best = math.inf
        self.best_m = 0

    def update(self, m: int, value: float) -> bool:
        if value < self.best:
            self.best, self.best_m = value, m
        k = math.floor(max(15.0, 0.3 * self.best_m) + 0.5)
        return m > self.best_m + k
