"""Commands that analyse finished results: stats, compare, report."""

from __future__ import annotations

import click

from ..errors import DelveError
from ..workspace import Workspace
from ._group import LOSS, LOSS_HELP, _emit, _ws, cli


@cli.command()
@click.argument("method")
@click.argument("task_names", nargs=-1, required=True, metavar="TASK...")
@click.option("-l", "--loss", type=LOSS, default=None, help=LOSS_HELP)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task.")
@click.pass_context
def stats(ctx: click.Context, method, task_names, loss, as_json) -> None:
    """Estimated expected loss of METHOD on TASKs (DELVE's mstats)."""
    from ..methods.registry import method_spec
    from ..report import format_summary
    from ..stats.summary import task_summary
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    refs = resolve_tasks(ws, task_names)
    method_spec(ws, method)
    _emit([task_summary(ws, method, r, loss) for r in refs], as_json, format_summary)


@cli.command()
@click.argument("method_a")
@click.argument("method_b")
@click.argument("task_names", nargs=-1, metavar="[TASK]...")
@click.option("-l", "--loss", type=LOSS, default=None, help=LOSS_HELP)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task.")
@click.option(
    "--bayes",
    is_flag=True,
    help="Also the posterior of the expected difference: the probability of each sign "
    "(eq. 2.16 for the hierarchical design; its 2-way counterpart).",
)
@click.option(
    "--plot",
    is_flag=True,
    help="Draw the posterior density (thesis Fig. 2.3) into results/plots/ (implies --bayes).",
)
@click.option(
    "--permutation/--no-permutation",
    default=None,
    help="Show the exact sign-flip permutation test over instances (default: for Z only).",
)
@click.pass_context
def compare(
    ctx: click.Context, method_a, method_b, task_names, loss, as_json, bayes, plot, permutation
) -> None:
    """Paired comparison METHOD_A - METHOD_B (t-test, quasi-F or, for published
    realisations, the corrected resampled t-test); all shared tasks by default. The exact
    sign-flip permutation test over instances is shown for Z (``--permutation``: always).

    When p > 0.05 and the design had less than 50 % power at the observed difference, a
    hint says so (see `delve power`).

    \b
    Examples:
      delve compare knn-cv-1 lin-1 kin-8nm/std.256
      delve compare knn-cv-1 lin-1 kin-8nm/std.256 --bayes --plot
      delve compare gp-map-1 lin-1 boston -l L --json
      delve compare ofs-loomi-1 svm-class-1 banana/ida/std.400 -l Z
    """
    from ..methods.registry import method_spec
    from ..report import format_comparison
    from ..stats.advice import compare_hint
    from ..stats.summary import task_comparison
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    method_spec(ws, method_a)
    method_spec(ws, method_b)
    refs = resolve_tasks(ws, task_names) if task_names else _shared_tasks(ws, method_a, method_b)
    if not refs:
        raise DelveError(f"{method_a} and {method_b} have no task with complete results in common")
    results = [task_comparison(ws, method_a, method_b, r, loss, bayes or plot) for r in refs]
    if plot:
        for r, c in zip(refs, results, strict=True):
            c["posterior_plot"] = [
                str(p) for p in _posterior_plot(ws, method_a, method_b, r, c["loss"])
            ]

    def fmt(c: dict) -> str:
        text = format_comparison(c, permutation=permutation)
        hint = compare_hint(c)
        if hint:
            text += hint + "\n"
        if c.get("posterior_plot"):
            text += "posterior plot: " + ", ".join(c["posterior_plot"]) + "\n"
        return text

    _emit(results, as_json, fmt)


def _posterior_plot(ws: Workspace, a: str, b: str, ref, loss: str):
    from ..report.posterior_plot import write_posterior_plot
    from ..stats.bayes import posterior
    from ..stats.summary import paired_losses

    pl = paired_losses(ws, a, b, ref, loss)
    post = posterior(pl.difference())
    title = f"{a} - {b} on {ref.full_name}, {pl.design} design ({len(pl.used)} instances)"
    stem = (
        ws.results
        / "plots"
        / f"posterior-{a}-vs-{b}-{ref.dataset}-{ref.prototask}-{ref.name}-{loss}"
    )
    return write_posterior_plot(post, pl.st.scale, title, loss, stem)


def _shared_tasks(ws: Workspace, a: str, b: str):
    """Tasks on which both methods have every instance complete."""
    from ..run.store import instance_state, result_dir
    from ..stats.summary import layout_of
    from ..tasks.names import TaskRef

    refs = []
    base = ws.results / a
    for d in sorted(base.glob("*/*/std.*")) if base.is_dir() else []:
        ds, pt, task = d.parts[-3:]
        try:
            ref = TaskRef(ds, pt, int(task.split(".", 1)[1]))
            layout = layout_of(ws, ref)
        except (DelveError, ValueError):
            continue
        if all(
            instance_state(result_dir(ws, m, ref, i.index)) == "ok"
            for m in (a, b)
            for i in layout.instances
        ):
            refs.append(ref)
    return sorted(refs)


@cli.command()
@click.argument("prototasks", nargs=-1, metavar="[PROTOTASK]...")
@click.option("--methods", "methods_", help="Comma-separated methods (default: all with results).")
@click.option(
    "-l",
    "--loss",
    type=LOSS,
    multiple=True,
    help="Loss to report; repeat for several.  [default: S, and Z for classification tasks]",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Output directory for tables/, plots/ and index.html (default: results/).",
)
@click.option("--plot", is_flag=True, help="Also draw the DELVE diagrams (PNG and SVG).")
@click.pass_context
def report(ctx: click.Context, prototasks, methods_, loss, out, plot) -> None:
    """Tables (md, csv, tex), DELVE diagrams and an HTML index from the stored results."""
    from pathlib import Path

    from ..report import write_report

    ws = _ws(ctx)
    methods_list = [m.strip() for m in methods_.split(",") if m.strip()] if methods_ else None
    res = write_report(
        ws, list(prototasks), methods_list, loss or None, Path(out) if out else None, plot
    )
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(f"{len(res.tables)} tables, {len(res.plots)} plots; open {res.out / res.index}")
