"""Commands that describe and prepare data: datasets, tasks, methods, fetch, gen."""

from __future__ import annotations

import click

from ..errors import DelveError
from ._group import _ws, cli


@cli.command()
@click.pass_context
def datasets(ctx: click.Context) -> None:
    """List datasets: cases, attributes, prototasks, and whether the data is here."""
    from ..data import dataset_names, dataset_spec
    from ..data.load import find_file
    from ..tasks.spec import prototask_names

    ws = _ws(ctx)
    click.echo(f"{'dataset':<22}{'cases':>7}{'attrs':>7}  {'prototasks':<16}data")
    for name in dataset_names(ws):
        s = dataset_spec(ws, name)
        if s.generated:
            where = "generated"
        else:
            f = find_file(s)
            where = str(f) if f else f"missing (delve fetch {name})"
        protos = ",".join(prototask_names(ws, name)) or "-"
        click.echo(f"{name:<22}{s.cases:>7}{len(s.attributes):>7}  {protos:<16}{where}")


@cli.command()
@click.argument("names", nargs=-1)
@click.pass_context
def tasks(ctx: click.Context, names: tuple[str, ...]) -> None:
    """List tasks (all, or of the given datasets/prototasks) with their instances."""
    from ..data import dataset_names
    from ..tasks import prototask_spec, resolve_tasks, task_layout

    ws = _ws(ctx)
    refs = resolve_tasks(ws, list(names) or dataset_names(ws))
    click.echo(f"{'task':<34}{'design':<14}{'instances':>9}{'train':>7}{'test':>7}")
    for r in refs:
        try:
            lay = task_layout(ws, prototask_spec(ws, r.dataset, r.prototask), r.size)
            click.echo(
                f"{r.full_name:<34}{lay.design:<14}{len(lay.instances):>9}{lay.size:>7}{lay.test_size:>7}"
            )
        except DelveError as e:
            click.echo(f"{r.full_name:<34}{str(e)}")


@cli.command()
@click.pass_context
def methods(ctx: click.Context) -> None:
    """List the named methods."""
    from ..methods.registry import method_names, method_spec

    ws = _ws(ctx)
    for name in method_names(ws):
        s = method_spec(ws, name)
        first = s.description.splitlines()[0] if s.description else s.plugin
        click.echo(f"{name:<16}{first}")


@cli.command()
@click.argument("names", nargs=-1, required=True)
@click.pass_context
def fetch(ctx: click.Context, names: tuple[str, ...]) -> None:
    """Download datasets into the user cache and verify their sha256."""
    from ..data import dataset_spec
    from ..data.fetch import fetch as do_fetch

    ws = _ws(ctx)
    for name in names:
        path = do_fetch(dataset_spec(ws, name))
        click.echo(f"{name}: {path}")


@cli.command()
@click.argument("prototasks", nargs=-1)
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
