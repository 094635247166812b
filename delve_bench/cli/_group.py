"""The ``delve`` command group, its global options and the small helpers its commands share."""

from __future__ import annotations

import json

import click

from ..workspace import Workspace

LOSS = click.Choice(["S", "A", "L"])


def _ws(ctx: click.Context) -> Workspace:
    return ctx.obj["ws"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    envvar="DELVE_ROOT",
    type=click.Path(file_okay=False),
    help="Workspace with datasets/, tasks/, methods/, results/ (default: current directory).",
)
@click.version_option(package_name="delve-bench")
@click.pass_context
def cli(ctx: click.Context, root: str | None) -> None:
    """delve-bench: compare learning methods on DELVE tasks with valid statistics."""
    ctx.obj = {"ws": Workspace.from_env(root)}


def _emit(objs: list[dict], as_json: bool, fmt) -> None:
    if as_json:
        for o in objs:
            click.echo(json.dumps(o, sort_keys=True))
    else:
        click.echo("\n".join(fmt(o) for o in objs), nl=False)
