"""``delve check``: the regression gate for CI: exits 1 when a method got significantly
worse than in a baseline results tree, or when results are missing."""

from __future__ import annotations

import click

from ..defaults import ALPHA, DEFAULT_LOSSES
from ._group import LOSS, _ws, alpha_option, cli, emit, json_output

EXAMPLES = """
Examples:

\b
  delve check ../baseline                     # every method and task of the baseline
  delve check ../baseline/results knn-cv-1 kin-8nm
  delve check ../baseline -l S -l A --margin 0.02 --json
  git worktree add /tmp/base v1.0 && delve check /tmp/base   # against a release
  delve check --with thesis lin-1 kin-8nm     # your rerun against the committed study
"""


@cli.command(epilog=EXAMPLES)
@click.argument(
    "baseline", metavar="[BASELINE_ROOT]", type=click.Path(file_okay=False), required=False
)
@click.argument("names", nargs=-1, metavar="[METHOD]... [TASK]...")
@click.option(
    "-l",
    "--loss",
    type=LOSS,
    multiple=True,
    help="Loss to check; repeat for several (each on the tasks that have it).  "
    f"[default: {' and '.join(DEFAULT_LOSSES)}]",
)
@click.option(
    "--accept-changed",
    "accept_changed",
    multiple=True,
    metavar="METHOD",
    help="A method whose spec (version, params, budget) changed on purpose since the "
    "baseline: judge it on its losses alone. Repeat for several.",
)
@click.option(
    "--margin",
    type=float,
    default=0.01,
    show_default=True,
    help="Tolerated worsening: a fraction of the baseline's expected loss (S, A, Z, Q) or nats (L).",
)
@alpha_option(ALPHA)
@click.option(
    "--with",
    "with_study",
    metavar="STUDY",
    help="The baseline is study STUDY's committed results (read in place): checks your "
    "reruns of its methods.",
)
@json_output
@click.pass_context
def check(
    ctx: click.Context, baseline, names, loss, margin, alpha, output, with_study, accept_changed
) -> None:
    """Compare the workspace's results with those in BASELINE_ROOT (a workspace or its
    results/ directory) task by task, with the design's paired test of current -
    baseline. Exits 1 when a method got significantly worse (by more than the
    margin, Holm-adjusted p < alpha), baseline results are missing, or a method's spec
    changed since the baseline and is not accepted (--accept-changed); a table says what
    changed. METHODs and TASKs restrict the check (default: everything in the baseline;
    with --with STUDY, which takes BASELINE_ROOT's place, the study's methods that the
    workspace has results of)."""
    from .. import api
    from ..report.commands import format_check

    res = api.check_results(
        baseline,
        names,
        losses=loss,
        margin=margin,
        alpha=alpha,
        with_study=with_study,
        accept_changed=accept_changed,
        root=_ws(ctx),
    )
    emit("check", [res], output, lambda rs: format_check(rs[0]), one=True)
    if res.failed:
        ctx.exit(1)
