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
    warn_broken,
)


@cli.command(epilog=examples("delve datasets", "delve datasets --json | jq '.[].name'"))
@json_output
@click.pass_context
def datasets(ctx: click.Context, output) -> None:
    """List datasets: cases, attributes, prototasks, and whether the data is here."""
    from .. import api
    from ..report.listing import format_datasets

    items = api.list_datasets(root=_ws(ctx))
    emit("dataset", items, output, format_datasets)
    warn_broken(items, "dataset")


@cli.command(
    epilog=examples(
        "delve tasks kin-8nm", "delve tasks 'kin-8*/std.64' boston", "delve tasks --json"
    )
)
@click.argument("names", nargs=-1, shell_complete=complete_tasks)
@json_output
@click.pass_context
def tasks(ctx: click.Context, names: tuple[str, ...], output) -> None:
    """List tasks (all, or of the given datasets/prototasks): design, instances, training
    and test-set sizes, and losses (S A L, or Z Q L for a classification task)."""
    from .. import api
    from ..report.listing import format_tasks

    emit("task", api.list_tasks(list(names) or None, root=_ws(ctx)), output, format_tasks)


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
        items = api.list_methods(root=_ws(ctx))
        emit("method", items, output, lambda ms: format_methods(ms, width))
        warn_broken(items, "method")


@cli.command(epilog=examples("delve fetch kin-32fh", "delve fetch kin-32fh pumadyn-32fm"))
@click.argument("names", nargs=-1, required=True, shell_complete=complete_datasets)
@click.pass_context
def fetch(ctx: click.Context, names: tuple[str, ...]) -> None:
    """Download datasets into the user cache and verify their sha256 (a verified copy already
    present is left alone)."""
    from .. import api
    from ..report.commands import format_fetched

    api.fetch_datasets(
        list(names), on_fetched=lambda f: click.echo(format_fetched(f), nl=False), root=_ws(ctx)
    )


@cli.command(epilog=examples("delve gen kin-8nm/dist", "delve gen --check"))
@click.argument("prototasks", nargs=-1, shell_complete=complete_tasks)
@click.option(
    "--check", is_flag=True, help="Only verify Random-order and index files; write nothing."
)
@click.pass_context
def gen(ctx: click.Context, prototasks: tuple[str, ...], check: bool) -> None:
    """Make Random-order and the per-task index files (all prototasks by default)."""
    from .. import api
    from ..report.commands import format_generated

    api.generate_splits(
        list(prototasks),
        check=check,
        on_done=lambda g: click.echo(format_generated(g), nl=False),
        root=_ws(ctx),
    )
