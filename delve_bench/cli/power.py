"""``delve power``: is the study big enough to detect a difference that matters?"""

from __future__ import annotations

import click

from ..defaults import ALPHA
from ._group import LOSS, PROBABILITY, _ws, alpha_option, cli, emit, json_output, with_option

EXAMPLES = """
Examples:

\b
  delve power knn-cv-1 lin-1 kin-8nm/std.64            # at the observed difference
  delve power knn-cv-1 lin-1 kin-8nm/std.64 --delta 0.01   # standardised difference
  delve power gp-map-1 knn-cv-1 boston/price/std.64 --delta 10%   # 10 % of B's loss
  delve power knn-cv-1 lin-1 kin-8nm/std.256 -l A --json
"""


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
    from .. import api
    from ..report.commands import format_power

    pa = api.comparison_power(
        method_a, method_b, task_name, loss, delta=delta, alpha=alpha, target=target, root=_ws(ctx)
    )
    emit("power", [pa], output, lambda pas: format_power(pas[0]), one=True)
