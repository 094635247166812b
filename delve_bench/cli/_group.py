"""The ``delve`` command group, its global options and the small helpers its commands share."""

from __future__ import annotations

import json
import math

import click

from ..workspace import Workspace

LOSS = click.Choice(["S", "A", "L", "Z", "Q"])
LOSS_HELP = (
    "Loss: S|A|L (regression), Z|Q|L (classification).  [default: S, or Z on classification tasks]"
)


class PositiveSeconds(click.ParamType):
    """A finite number greater than zero (time scales, limits); 0, negatives, nan and inf
    are refused rather than silently replaced by a default."""

    name = "number>0"

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, float):
            x = value
        else:
            try:
                x = float(value)
            except (TypeError, ValueError):
                self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x) or x <= 0:
            self.fail(f"{value} must be a finite number greater than 0", param, ctx)
        return x


POSITIVE = PositiveSeconds()


def _ws(ctx: click.Context) -> Workspace:
    return ctx.obj["ws"]


ROOT_HELP = "Workspace with datasets/, tasks/, methods/, results/ (default: current directory)."


def _set_root(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``--root`` given after a subcommand: it replaces the workspace the group chose."""
    if value is not None:
        ctx.ensure_object(dict)["ws"] = Workspace.from_env(value)


class DelveGroup(click.Group):
    """A group whose every subcommand also takes ``--root``, so the global option works
    before or after the subcommand (``delve --root W status`` = ``delve status --root W``)."""

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not any(p.name == "root" for p in cmd.params):
            cmd.params.append(
                click.Option(
                    ["--root"],
                    type=click.Path(file_okay=False),
                    expose_value=False,
                    is_eager=True,
                    callback=_set_root,
                    help=ROOT_HELP,
                )
            )
        super().add_command(cmd, name)


@click.group(cls=DelveGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", envvar="DELVE_ROOT", type=click.Path(file_okay=False), help=ROOT_HELP)
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
