"""Is the study big enough? Power and sample-size advice for a paired comparison of two
methods on a task (``delve power``; the hint of ``delve compare``).

The variance components of the difference A - B are estimated from the stored losses
(eqs. 2.7 / 2.23, truncated at 0) and taken as true; :mod:`.power` does the rest. All
differences are in the standardised units of ``delve compare``'s "Standardized" column
(S: a fraction of the test targets' variance; A: of their mean absolute deviation; L:
nats, as raw). The case pool is the prototask's cases: disjoint training sets and their
test cases must fit in it.

Caveats, said in the output: the components come from I instances (sigma_a with I - 1
d.o.f.), so the advice is rough; and power at the *observed* difference is a restatement
of p (p = 0.05 gives about 50 %), so ask for the power at a difference that matters
(``--delta``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..defaults import ALPHA
from ..errors import DelveError
from ..stats.power import Design, VarianceComponents, power, sample_size
from ..stats.results import ComparisonResult, PValue
from ..stats.tests import compare_test
from ..tasks.instances import kept_cases
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs
from .powers import REMEMBERED
from .task import paired_losses

TARGET = 0.8


def components_of(c: ComparisonResult) -> VarianceComponents:
    """Standardised variance components of a ``delve compare`` result."""
    s = c.standardized
    residual = s["sd_test"] if c.design == "hierarchical" else s["sd_interaction"]
    return VarianceComponents(
        design=c.design,
        var_a=s["sd_train"] ** 2,
        var_e=residual**2,
        var_b=(s.get("sd_cases") or 0.0) ** 2,
    )


def observed_power(c: ComparisonResult, alpha: float = ALPHA) -> float:
    """Power of the comparison's own design at its observed (standardised) difference."""
    return power(
        components_of(c), c.standardized["mean"], c.instances, c.test_size, alpha, memo=REMEMBERED
    )


def compare_hint(c: ComparisonResult, alpha: float = ALPHA) -> str | None:
    """One line for ``delve compare`` when p > alpha and the design had less than even
    odds of detecting the observed difference: not significant need not mean equal."""
    if c.p is None or c.bounded or c.p <= alpha:
        return None
    if c.design not in ("hierarchical", "2-way"):  # power is for DELVE's designs
        return None
    pw = observed_power(c, alpha)
    if pw >= 0.5:
        return None
    from ..stats.power import detectable_difference

    mdd = detectable_difference(
        components_of(c), c.instances, c.test_size, alpha, TARGET, memo=REMEMBERED
    )
    need = f" (80 % needs {mdd:.3g})" if mdd is not None else ""
    return (
        f"hint: not significant, but the design had only {100 * pw:.0f} % power at the "
        f"observed difference{need}; see `delve power {c.method_a} {c.method_b} {c.task}`"
    )


@dataclass(frozen=True, kw_only=True)
class PowerAnalysis(PValue):
    """``delve power A B TASK``: power of the current design and what 80 % would need;
    ``test``, ``instances`` and ``p`` (:class:`~.results.PValue`) are the stored
    comparison's."""

    method_a: str
    method_b: str
    task: str
    loss: str
    design: str
    alpha: float
    target: float
    test_cases: int  # per instance (hierarchical) or in the common test set (2-way)
    train_size: int
    pool_cases: int  # cases of the prototask
    test_pool: int  # cases DELVE's split reserves for testing
    max_instances: int  # disjoint training sets the current split's training pool holds
    difference: float  # observed, standardised
    delta: float  # the difference to detect, standardised
    delta_source: str  # 'observed' | 'given' | 'relative'
    sd_train: float
    sd_test: float | None  # hierarchical: test cases & interactions (docs/json.md)
    sd_cases: float | None  # 2-way: test cases
    sd_interaction: float | None  # 2-way: interactions
    power: float
    detectable: float | None
    more_instances: Design | None
    more_test_cases: Design | None
    cheapest: Design | None
    min_instances: int
    notes: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"PowerAnalysis({self.method_a} - {self.method_b} on {self.task}, loss {self.loss}: "
            f"power {self.power:.2f} at a difference of {self.delta:.4g} ({self.delta_source}) "
            f"with {self.instances} instances x {self.test_cases} test cases)"
        )

    def to_dict(self) -> dict:
        return asdict(self)


def parse_delta(text: str | None) -> tuple[float | None, bool]:
    """``--delta``: a standardised difference, or ``N%`` of method B's expected loss."""
    if text is None:
        return None, False
    t = text.strip()
    relative = t.endswith("%")
    try:
        value = float(t[:-1] if relative else t)
    except ValueError:
        raise DelveError(
            f"--delta must be a number or a percentage such as 10%, not {text!r}"
        ) from None
    if not value > 0 or value != value or value == float("inf"):
        raise DelveError(f"--delta must be a positive difference, not {text!r}")
    return (value / 100 if relative else value), relative


def power_analysis(
    ws: WorkspaceDirs,
    method_a: str,
    method_b: str,
    ref: TaskRef,
    loss: str = "S",
    delta: str | None = None,
    alpha: float = ALPHA,
    target: float = TARGET,
) -> PowerAnalysis:
    """Power of the stored comparison A - B on ``ref`` and the designs for ``target``."""
    pl = paired_losses(ws, method_a, method_b, ref, loss)
    d = pl.difference()
    test = compare_test(d)
    st = pl.st
    vc = VarianceComponents.from_anova(d).scaled(st.scale)
    value, relative = parse_delta(delta)
    observed = d.mean / st.scale
    if value is None:
        wanted, source = abs(observed), "observed"
    elif relative:
        if loss == "L":
            raise DelveError(
                "a relative --delta needs a loss on a ratio scale (S or A); give L in nats"
            )
        wanted, source = value * abs(float(pl.yb.mean())) / st.scale, "relative"
    else:
        wanted, source = value, "given"
    layout = pl.layout
    I, J, n = d.I, d.J, layout.size
    pool = len(kept_cases(ws, layout.proto))
    T = layout.proto.test_set_size
    ss = sample_size(vc, wanted, I, J, n, pool, alpha, target, memo=REMEMBERED)
    notes = [
        f"The variance components come from {I} instances (sigma_a with {I - 1} "
        f"degree{'s' if I > 2 else ''} of freedom): treat the numbers as rough.",
    ]
    if source == "observed":
        notes.append(
            "Power at the observed difference restates p (p = 0.05 gives about 50 %); give "
            "--delta for the smallest difference that matters to you."
        )
    if wanted == 0:
        notes.append("The difference to detect is 0: no design has power above alpha.")
    if d.design == "2-way":
        from ..stats.level import critical_p, null_rate

        rate, crit = null_rate(vc, I, J, alpha), critical_p(vc, I, J, alpha)
        if crit < alpha:
            notes.append(
                f"Here the quasi-F is liberal: at the estimated variance components it rejects "
                f"{100 * rate:.1f} % of true nulls at the {100 * alpha:g} % level (simulated as "
                f"`delve selftest` does). Every power above is that of the size-corrected "
                f"test, p < {crit:.3g} for this design, not of p < {alpha:g}."
            )
    if d.design == "2-way" and I < 4:
        notes.append(
            "With fewer than 4 instances the quasi-F may only claim p < 0.05 and rejects a "
            "true H0 too often (`delve selftest`); no advice proposes fewer than 4."
        )
    return PowerAnalysis(
        method_a=method_a,
        method_b=method_b,
        task=ref.full_name,
        loss=loss,
        design=d.design,
        test=test.test,
        alpha=alpha,
        target=target,
        instances=I,
        test_cases=J,
        train_size=n,
        pool_cases=pool,
        test_pool=T,
        max_instances=max(0, (pool - T) // n),
        difference=observed,
        p=test.p,
        delta=wanted,
        delta_source=source,
        sd_train=d.sd_train / st.scale,
        sd_test=d.sd_test / st.scale if d.design == "hierarchical" else None,
        sd_cases=None if d.sd_cases is None else d.sd_cases / st.scale,
        sd_interaction=None if d.sd_interaction is None else d.sd_interaction / st.scale,
        power=ss.current.power,
        detectable=ss.detectable,
        more_instances=ss.more_instances,
        more_test_cases=ss.more_test_cases,
        cheapest=ss.cheapest,
        min_instances=ss.min_instances,
        notes=tuple(notes),
    )
