"""Commands that describe and prepare data: datasets, tasks, methods, fetch, gen."""

from __future__ import annotations

import shutil

import click

from ._group import (
    _ws,
    cli,
    complete_datasets,
    complete_methods,
    complete_tasks,
    emit,
    examples,
    json_output,
)


@cli.command(epilog=examples("delve datasets", "delve datasets --json | jq '.[].name'"))
@json_output
@click.pass_context
def datasets(ctx: click.Context, output) -> None:
    """List datasets: cases, attributes, prototasks, and whether the data is here."""
    from .. import api
    from ..report.listing import format_datasets

    emit("dataset", api.datasets(root=_ws(ctx)), output, format_datasets)


@cli.command(
    epilog=examples(
        "delve tasks kin-8nm", "delve tasks 'kin-8*/std.64' boston", "delve tasks --json"
    )
)
@click.argument("names", nargs=-1, shell_complete=complete_tasks)
@json_output
@click.pass_context
def tasks(ctx: click.Context, names: tuple[str, ...], output) -> None:
    """List tasks (all, or of the given datasets/prototasks) with their instances."""
    from .. import api
    from ..report.listing import format_tasks

    emit("task", api.tasks(list(names) or None, root=_ws(ctx)), output, format_tasks)


@cli.command(epilog=examples("delve methods", "delve methods gp-mc-1", "delve methods --json"))
@click.argument("name", required=False, shell_complete=complete_methods)
@json_output
@click.pass_context
def methods(ctx: click.Context, name: str | None, output) -> None:
    """List the named methods: losses served, budget rule, plugin and a one-line
    description; with NAME, everything about that method."""
    from .. import api
    from ..report.listing import format_method, format_methods

    width = min(100, shutil.get_terminal_size((100, 24)).columns)
    if name:
        emit(
            "method",
            [api.method(name, root=_ws(ctx))],
            output,
            lambda m: format_method(m[0], width),
        )
    else:
        emit("method", api.methods(root=_ws(ctx)), output, lambda ms: format_methods(ms, width))


@cli.command(epilog=examples("delve fetch kin-32fh", "delve fetch kin-32fh pumadyn-32fm"))
@click.argument("names", nargs=-1, required=True, shell_complete=complete_datasets)
@click.pass_context
def fetch(ctx: click.Context, names: tuple[str, ...]) -> None:
    """Download datasets into the user cache and verify their sha256."""
    from ..data import dataset_spec
    from ..data.fetch import fetch as do_fetch

    ws = _ws(ctx)
    for name in names:
        path = do_fetch(dataset_spec(ws, name))
        click.echo(f"{name}: {path}")


@cli.command(epilog=examples("delve gen kin-8nm/dist", "delve gen --check"))
@click.argument("prototasks", nargs=-1, shell_complete=complete_tasks)
@click.option(
    "--check", is_flag=True, help="Only verify Random-order and index files; write nothing."
)
@click.pass_context
def gen(ctx: click.Context, prototasks: tuple[str, ...], check: bool) -> None:
    """Make Random-order and the per-task index files (all prototasks by default)."""
    from ..data import dataset_names
    from ..tasks.instances import generate
    from ..tasks.spec import prototask_names, prototask_spec

    ws = _ws(ctx)
    targets = []
    for name in prototasks or dataset_names(ws):
        ds, _, pt = name.strip("/").partition("/")
        for p in [pt] if pt else prototask_names(ws, ds):
            targets.append(prototask_spec(ws, ds, p))
    for proto in targets:
        layouts = generate(ws, proto, check_only=check)
        sizes = " ".join(f"{lay.name}x{len(lay.instances)}" for lay in layouts)
        click.echo(f"{proto.full_name}: {'ok' if check else 'written'} ({sizes})")
