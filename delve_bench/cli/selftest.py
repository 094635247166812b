"""``delve selftest``: the tests' own type-I error rates by simulation, and the golden
numbers of the thesis and of DELVE's mstats."""

from __future__ import annotations

import click

from ._group import _ws, cli, emit, json_output

EXAMPLES = """
Examples:

\b
  delve selftest --quick            # seconds: the headline cases and the golden numbers
  delve selftest                    # the full grid (Figs. 2.5 and 2.6 of the thesis)
  delve selftest --studies 20000 --out /tmp/selftest --json
"""


@cli.command(epilog=EXAMPLES)
@click.option("--quick", is_flag=True, help="The headline cases only (a few seconds).")
@click.option("--seed", type=int, default=0, show_default=True, help="Simulation seed.")
@click.option(
    "--studies",
    type=click.IntRange(min=100),
    help="Simulated studies per setting (default: 10000 for the quick t-test, else 2000 "
    "quick / 5000 full).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Directory for the p-value histograms (default: results/plots).",
)
@click.option("--no-plots", is_flag=True, help="Skip the histograms.")
@json_output
@click.pass_context
def selftest(ctx: click.Context, quick, seed, studies, out, no_plots, output) -> None:
    """Do the tests keep their promises? Simulate losses with no true difference for
    both designs and report how often each test claims one (its type-I error rate),
    draw the p-value histograms (thesis Figs. 2.5, 2.6), and recompute the golden
    numbers. Exits 1 if an exact test or a golden number is off."""
    from .. import api
    from ..report.commands import format_selftest

    res = api.run_selftest(
        quick=quick, seed=seed, studies=studies, plots=not no_plots, out=out, root=_ws(ctx)
    )
    emit("selftest", [res], output, lambda rs: format_selftest(rs[0]), one=True)
    if not res.passed:
        ctx.exit(1)
