"""``delve demo``: the offline example of the README."""

from __future__ import annotations

import click

from ._group import cli, examples
from .analyse import compare
from .run import run

DEMO_TASK = "hwang-g5/noisy/std.256"


@cli.command(
    epilog=examples(
        "delve demo                       # in an empty directory: writes results/ there",
        "delve --root /tmp/demo demo      # somewhere else",
    )
)
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Run lin-1 and knn-cv-1 on a generated task (works offline) and compare them."""
    # ctx.invoke fills in every other option's default
    ctx.invoke(run, args=("lin-1", "knn-cv-1", DEMO_TASK), budget_mode="work")
    ctx.invoke(compare, method_a="knn-cv-1", method_b="lin-1", task_names=(DEMO_TASK,), bayes=True)
