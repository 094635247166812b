"""Commands that analyse finished results: stats, compare, report."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from ._group import (
    LOSS,
    _ws,
    choice_option,
    cli,
    complete_methods,
    complete_methods_csv,
    complete_tasks,
    emit,
    examples,
    json_output,
    loss_option,
    with_option,
)


@cli.command(
    epilog=examples(
        "delve stats lin-1 kin-8nm/std.64",
        "delve stats knn-cv-1 boston -l A            # every boston task, absolute error",
        "delve stats gp-mc-1 kin-8nm --json | jq '.[] | {task, mean, se}'",
    )
)
@click.argument("method", shell_complete=complete_methods)
@click.argument(
    "task_names", nargs=-1, required=True, metavar="TASK...", shell_complete=complete_tasks
)
@loss_option
@with_option
@json_output
@click.pass_context
def stats(ctx: click.Context, method, task_names, loss, output) -> None:
    """Estimated expected loss of METHOD on TASKs (DELVE's mstats)."""
    from .. import api
    from ..methods.registry import method_spec
    from ..report import format_summary
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    # an unknown method fails before any task is read; its YAML is enough for that (its
    # plugin, perhaps scikit-learn, is not imported: reading losses never needs it)
    method_spec(ws, method)
    refs = resolve_tasks(ws, task_names)
    results = (api.task_stats(method, r, loss, root=ws) for r in refs)
    emit("stats", results, output, lambda rs: "\n".join(map(format_summary, rs)))


@cli.command(
    epilog=examples(
        "delve compare knn-cv-1 lin-1 kin-8nm/std.64",
        "delve compare knn-cv-1 lin-1 kin-8nm/std.256 --bayes --plot",
        "delve compare knn-cv-1 lin-1 --json          # every task both have finished",
        "delve compare my-hgb-1 gp-map-1 kin-8nm --with thesis    # one row per task",
        "delve compare sk-knn logistic-1 banana/ida/std.400 -l Z    # classification",
    )
)
@click.argument("method_a", shell_complete=complete_methods)
@click.argument("method_b", shell_complete=complete_methods)
@click.argument("task_names", nargs=-1, metavar="[TASK]...", shell_complete=complete_tasks)
@loss_option
@json_output
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
@click.option(
    "--detail",
    is_flag=True,
    help="Each task's full mstats block (the default for one task); several tasks "
    "otherwise give one row each and a summary line.",
)
@with_option
@click.pass_context
def compare(
    ctx: click.Context,
    method_a,
    method_b,
    task_names,
    loss,
    output,
    bayes,
    plot,
    permutation,
    detail,
) -> None:
    """Paired comparison METHOD_A - METHOD_B (t-test, quasi-F or, for published
    realisations, the corrected resampled t-test); all shared tasks by default. The exact
    sign-flip permutation test over instances is shown for Z (``--permutation``: always).

    When p > 0.05 and the design had less than 50 % power at the observed difference, a
    hint says so (see `delve power`)."""
    from .. import api
    from ..analysis.advice import compare_hint
    from ..report import format_comparison

    ws = _ws(ctx)
    skipped: list[str] = []
    results = api.comparisons(
        method_a,
        method_b,
        list(task_names) or None,
        loss,
        bayes=bayes or plot,
        root=ws,
        skipped=skipped,
    )
    for why in skipped:
        click.echo(f"skipped: {why}", err=True)
    if plot:
        results = [
            dataclasses.replace(
                c,
                posterior_plot=[
                    str(p) for p in api.posterior_plot(method_a, method_b, c.task, c.loss, root=ws)
                ],
            )
            for c in results
        ]

    def fmt(c) -> str:
        text = format_comparison(c, permutation=permutation)
        hint = compare_hint(c)
        if hint:
            text += hint + "\n"
        if c.posterior_plot:
            text += "posterior plot: " + ", ".join(c.posterior_plot) + "\n"
        return text

    def text(rs) -> str:
        if len(rs) == 1 or detail or bayes or plot or permutation:
            return "\n".join(map(fmt, rs))
        from ..report.verdicts import comparison_table

        low = [c.task for c in rs if compare_hint(c)]
        note = (
            f"low power: not significant with under 50 % power at the observed difference on "
            f"{', '.join(low)} (`delve power {method_a} {method_b} TASK`)\n"
            if low
            else ""
        )
        return comparison_table(rs) + note

    emit("comparison", results, output, text)


@cli.command(
    epilog=examples(
        "delve report --plot                                  # everything, S loss",
        "delve report kin-8nm boston --methods lin-1,knn-cv-1 -l S -l L --plot",
        "delve report --out site/ && git diff --exit-code site/",
        "delve report --with thesis --methods my-hgb-1,gp-mc-1,lin-1 --plot --out mine/",
    )
)
@click.argument("prototasks", nargs=-1, metavar="[PROTOTASK]...", shell_complete=complete_tasks)
@click.option(
    "--methods",
    "methods_",
    help="Comma-separated methods (default: all with results).",
    shell_complete=complete_methods_csv,
)
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
@click.option(
    "--plot",
    is_flag=True,
    help="Also draw the DELVE diagrams and the critical-difference diagram (PNG and SVG).",
)
@choice_option(
    "--correction",
    ["holm", "bh"],
    "Multiple-test correction of the per-task tests in the rankings (bh: Benjamini-Hochberg).",
)
@choice_option(
    "--posthoc",
    ["nemenyi", "holm", "wilcoxon"],
    "Post-hoc test after the Friedman test: Nemenyi's CD, Holm z-tests on mean ranks, or "
    "pairwise Wilcoxon signed-rank tests with Holm (Benavoli et al. 2016: a pair's own p "
    "reads only its two methods' values; Holm's correction over all pairs still depends on "
    "the pool: adding a method can only raise a pair's adjusted p).",
)
@choice_option(
    "--unit",
    ["prototask", "task"],
    "Independent unit of the rankings (tasks of one prototask are dependent).",
)
@with_option
@click.pass_context
def report(
    ctx: click.Context, prototasks, methods_, loss, out, plot, correction, posthoc, unit
) -> None:
    """Tables (md, csv, tex), DELVE diagrams and an HTML index from the stored results,
    with rankings across tasks: every per-task paired test corrected for the number of
    tests (Holm by default), aggregated per prototask, beside a critical-difference diagram
    (Friedman + Nemenyi, Demšar 2006)."""
    from .. import api

    methods_list = [m.strip() for m in methods_.split(",") if m.strip()] if methods_ else None
    res = api.make_report(
        list(prototasks),
        methods=methods_list,
        losses=loss or None,
        out=out,
        plot=plot,
        correction=correction,
        posthoc=posthoc,
        unit=unit,
        root=_ws(ctx),
    )
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    index = Path(res.out) / res.index
    try:  # as the user would type it: relative to the current directory when inside it
        index = index.relative_to(Path.cwd())
    except ValueError:
        pass
    click.echo(f"{len(res.tables)} tables, {len(res.plots)} plots; open {index}")
