"""The exact paired permutation (sign-flip) test over instances.

Rasmussen (1996) §2.6 warns that 0/1 losses strain the ANOVA's normality assumption.
This test needs none: with d_i the mean loss difference A - B on instance i (i = 1..I),
under H0 the method labels are exchangeable within each instance, so every d_i is as
likely to have the opposite sign (the d_i independent and symmetric about 0). The
two-sided p-value is the share of the 2^I sign patterns s whose ``|sum_i s_i d_i|`` is at
least the observed ``|sum_i d_i|``:

    p = #{s in {-1, +1}^I : |s . d| >= |sum d|} / 2^I.

It is enumerated exactly (up to ``MAX_EXACT`` = 20 instances, 2^19 patterns after
using the symmetry s -> -s); beyond that 2^16 patterns are drawn from a fixed-seed
generator, p = (hits + 1) / (draws + 1), and the result says it is not exact. The
smallest attainable p is 2 / 2^I (1/128 for 8 instances): with few instances this test
cannot reach small p-values however large the difference.

Its assumption is that the instances are independent: true for DELVE's hierarchical
design; on the 2-way design the test is conditional on the common test set; on the
resampled design (overlapping training sets) the d_i are positively correlated and the
test is anti-conservative like the uncorrected t-test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DelveError

MAX_EXACT = 20
DRAWS = 1 << 16
_CHUNK = 1 << 16
#: statistics within this relative distance of the observed one count as equal to it
RTOL = 1e-12


@dataclass(frozen=True, kw_only=True)
class PermutationResult:
    """The sign-flip test of H0: no difference between the methods on any instance."""

    test: str = "sign-flip"
    instances: int
    statistic: float  # observed mean difference over instances
    p: float
    patterns: int  # sign patterns evaluated (2^I when exact)
    exact: bool

    @property
    def min_p(self) -> float:
        """The smallest p-value the exact test can give with this many instances."""
        return 2.0 / 2.0**self.instances

    @property
    def p_text(self) -> str:
        kind = (
            f"exact, {self.patterns} sign patterns"
            if self.exact
            else f"{self.patterns} random sign patterns"
        )
        return f"= {self.p:.9g} ({kind})"


def _patterns(I: int, start: int, stop: int) -> np.ndarray:
    """Sign patterns number ``start..stop-1`` of the 2^(I-1) with s_0 = +1, as +-1."""
    codes = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (codes >> np.arange(I - 1, dtype=np.int64)[None, :]) & 1
    return np.hstack([np.ones((len(codes), 1)), 1.0 - 2.0 * bits])


def sign_flip_test(d: np.ndarray, max_exact: int = MAX_EXACT) -> PermutationResult:
    """Two-sided exact sign-flip test of the per-instance mean differences ``d`` (I,)."""
    d = np.asarray(d, dtype=float)
    I = len(d)
    if I < 2:
        raise DelveError(f"the permutation test needs at least 2 instances, got {I}")
    observed = abs(float(d.sum()))
    level = observed - RTOL * max(float(np.abs(d).sum()), 1e-300)
    if I <= max_exact:
        half = 1 << (I - 1)  # s and -s give the same |s.d|: enumerate those with s_0 = +1
        hits = 0
        for start in range(0, half, _CHUNK):
            S = _patterns(I, start, min(half, start + _CHUNK))
            hits += int(np.count_nonzero(np.abs(S @ d) >= level))
        return PermutationResult(
            instances=I, statistic=float(d.mean()), p=hits / half, patterns=2 * half, exact=True
        )
    rng = np.random.default_rng(0)  # fixed: the same data give the same p
    S = rng.choice((-1.0, 1.0), size=(DRAWS, I))
    hits = int(np.count_nonzero(np.abs(S @ d) >= level))
    return PermutationResult(
        instances=I,
        statistic=float(d.mean()),
        p=(hits + 1) / (DRAWS + 1),
        patterns=DRAWS,
        exact=False,
    )
