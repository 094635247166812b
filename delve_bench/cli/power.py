"""``delve power``: is the study big enough to detect a difference that matters?"""

from __future__ import annotations

import click

from ..defaults import ALPHA
from ..errors import DelveError
from ._group import LOSS, PROBABILITY, _ws, alpha_option, cli, emit, json_output, with_option

EXAMPLES = """
Examples:

\b
  delve power knn-cv-1 lin-1 kin-8nm/std.64            # at the observed difference
  delve power knn-cv-1 lin-1 kin-8nm/std.64 --delta 0.01   # standardised difference
  delve power gp-map-1 knn-cv-1 boston/price/std.64 --delta 10%   # 10 % of B's loss
  delve power knn-cv-1 lin-1 kin-8nm/std.256 -l A --json
"""


def _design_text(d, design: str, pool: int, what: str) -> str:
    if d is None:
        return what
    per = " test cases each" if design == "hierarchical" else " common test cases"
    text = f"{d.instances} instances x {d.test_cases}{per} (power {d.power:.2f}; {d.cases} cases)"
    if not d.fits:
        text += f": the prototask has {pool}, not possible with this data set"
    return text


def _p(pa) -> str:
    if pa.p is None:
        return "p undefined"
    return "p < 0.05" if pa.p_text.startswith("<") else f"p = {pa.p:.3g}"


def format_power(pa) -> str:
    from ..losses import LOSS_NAMES

    test = "paired t-test" if pa.design == "hierarchical" else "Lindman's quasi-F"
    per = "per instance" if pa.design == "hierarchical" else "in the common test set"
    pct = f"{100 * pa.target:g} %"
    source = {
        "observed": "the observed one",
        "given": "--delta",
        "relative": f"--delta, of {pa.method_b}'s loss",
    }[pa.delta_source]
    lines = [
        f"Power of {pa.method_a} - {pa.method_b} on {pa.task}, loss {pa.loss} "
        f"({LOSS_NAMES[pa.loss].lower()}), standardised",
        f"{pa.design} design, {test} at alpha = {pa.alpha:g}",
        "",
        f"  {'observed difference A - B':<44}{pa.difference:>12.4g}   ({_p(pa)})",
        f"  {'SD from training sets':<44}{pa.sd_train:>12.4g}",
    ]
    if pa.design == "2-way":
        lines.append(f"  {'SD from test cases':<44}{pa.sd_cases:>12.4g}")
        lines.append(f"  {'SD from interactions':<44}{pa.sd_interaction:>12.4g}")
    else:
        lines.append(f"  {'SD from test cases & interactions':<44}{pa.sd_test:>12.4g}")
    lines += [
        f"  {'difference to detect':<44}{pa.delta:>12.4g}   ({source})",
        "",
        f"  This design: {pa.instances} instances, {pa.test_cases} test cases {per}: "
        f"power {pa.power:.2f}",
    ]
    if pa.detectable is not None:
        lines.append(f"  It detects a difference of {pa.detectable:.4g} with {pct} power.")
    else:
        lines.append(
            f"  No difference reaches {pct} power with this design at alpha = {pa.alpha:g}."
        )
    lines += ["", f"  For {pct} power at a difference of {pa.delta:.4g}:"]
    if pa.delta == 0:
        lines.append("    no design: the difference to detect is 0")
    else:
        more_i = "not possible" + (
            f": the variation of the {pa.test_cases} common test cases alone keeps the "
            f"power below {pct}"
            if pa.design == "2-way"
            else ""
        )
        lines.append(
            f"    {f'with {pa.test_cases} test cases:':<30}"
            + _design_text(pa.more_instances, pa.design, pa.pool_cases, more_i)
        )
        if pa.design == "2-way" and pa.instances < pa.min_instances:
            more_j = f"not advised with fewer than {pa.min_instances} instances"
        else:
            more_j = (
                "not possible: the training-set variance alone keeps the power below "
                f"{pct} with {pa.instances} instances"
            )
        lines.append(
            f"    {f'with {pa.instances} instances:':<30}"
            + _design_text(pa.more_test_cases, pa.design, pa.pool_cases, more_j)
        )
        lines.append(
            f"    {'fewest instances that fit:':<30}"
            + _design_text(pa.cheapest, pa.design, pa.pool_cases, "not possible with this data set")
        )
    lines += [
        "",
        f"  Case pool: the prototask has {pa.pool_cases} cases; DELVE's split keeps "
        f"{pa.test_pool} for testing and has room for {pa.max_instances} disjoint training "
        f"sets of {pa.train_size}.",
    ]
    lines += [f"  Note: {n}" for n in pa.notes]
    return "\n".join(lines) + "\n"


@cli.command(epilog=EXAMPLES)
@click.argument("method_a")
@click.argument("method_b")
@click.argument("task_name", metavar="TASK")
@click.option("-l", "--loss", type=LOSS, default="S", show_default=True)
@click.option(
    "--delta",
    metavar="D",
    help="Difference to detect: standardised (as `delve compare` prints it), or N% of "
    "METHOD_B's expected loss.  [default: the observed difference]",
)
@alpha_option(ALPHA)
@click.option(
    "--target",
    type=PROBABILITY,
    default=0.8,
    show_default=True,
    help="Power to plan for.",
)
@with_option
@json_output
@click.pass_context
def power(
    ctx: click.Context, method_a, method_b, task_name, loss, delta, alpha, target, output
) -> None:
    """Power of the comparison METHOD_A - METHOD_B on TASK to detect a difference, and the
    instances and test cases that would give 80 % power within the prototask's cases.

    From the variance components of the paired difference (training sets, test cases,
    interactions): exact for the t-test (hierarchical design), by simulation for the
    quasi-F (2-way design)."""
    from ..methods.registry import method_spec
    from ..stats.advice import power_analysis
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    method_spec(ws, method_a)
    method_spec(ws, method_b)
    refs = resolve_tasks(ws, [task_name])
    if len(refs) != 1:
        raise DelveError(
            f"{task_name!r} names {len(refs)} tasks; give one, e.g. {refs[0].full_name}"
        )
    pa = power_analysis(ws, method_a, method_b, refs[0], loss, delta, alpha, target)
    emit("power", [pa], output, lambda pas: format_power(pas[0]), one=True)
