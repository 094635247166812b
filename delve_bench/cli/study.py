"""``delve study``: run, follow, report and verify the comparisons declared in
``studies/<name>.yaml``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..errors import DelveError
from ._group import (
    _ws,
    alpha_option,
    cli,
    emit,
    examples,
    executor_options,
    json_output,
    retry_failed_option,
)


@cli.group(
    epilog=examples(
        "delve study status smoke          # progress, CPU and best wall time left",
        "delve study run smoke --jobs 2    # run or resume, then pack the results",
        "delve study report smoke && delve study verify smoke",
    )
)
def study() -> None:
    """Studies: whole comparisons declared in studies/<name>.yaml."""


@study.command(
    "run",
    epilog=examples(
        "delve study run smoke",
        "delve study run thesis --jobs 2 --retry-failed",
        "delve study run thesis --method mlp-mc-1    # only that method (and its snapshots)",
        "delve study run thesis -m mlp-mc-1 --tasks kin-8nm --jobs 2   # those tasks first",
    ),
)
@click.argument("name")
@executor_options("Run on a Dask cluster: a scheduler address, or local[:N].")
@retry_failed_option
@click.option(
    "--method",
    "-m",
    "methods",
    multiple=True,
    metavar="METHOD",
    help="Only this method of the study (repeatable); default: all.",
)
@click.option(
    "--tasks",
    "tasks",
    multiple=True,
    metavar="TASK",
    help="Only these of its tasks (repeatable or comma-separated); default: all.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.pass_context
def study_run(
    ctx: click.Context, name, jobs, dask_address, retry_failed, methods, tasks, quiet
) -> None:
    """Run or resume every missing job of study NAME, then pack its results."""
    from .. import api
    from ..errors import RunFailed
    from ..report.commands import format_study_group, format_study_run, format_study_stopped
    from ..run import RunInterrupted

    def on_group(plan, options, n):
        if not quiet:
            click.echo(format_study_group(plan, options, n), err=True, nl=False)

    try:
        summary = api.study_run(
            name,
            methods=methods,
            tasks=[t for x in tasks for t in x.split(",") if t.strip()],
            jobs=jobs,
            dask=dask_address,
            retry_failed=retry_failed,
            progress=not quiet and sys.stderr.isatty(),
            on_group=on_group,
            root=_ws(ctx),
        )
    except RunInterrupted as e:
        from . import TERMINATED, terminated

        click.echo(format_study_run(e.summary), err=True, nl=False)
        click.echo(format_study_stopped(TERMINATED if terminated() else "interrupted", e), err=True)
        if dask_address:  # skip Dask's exit hooks: they would wait on the killed cluster
            sys.stderr.flush()
            os._exit(143 if terminated() else 130)
        sys.exit(143 if terminated() else 130)
    text = format_study_run(summary).splitlines(keepends=True)
    click.echo("".join(text if not quiet else text[1:]), err=True, nl=False)
    if not summary.ok:
        raise RunFailed(f"{len(summary.failed)} instance(s) failed")


@study.command(
    "status",
    epilog=examples("delve study status smoke", "delve study status thesis --json"),
)
@click.argument("name")
@json_output
@click.pass_context
def study_status(ctx: click.Context, name, output) -> None:
    """Progress of study NAME and an estimate of the CPU time left."""
    from .. import api
    from ..report.commands import format_study_status

    st = api.study_status(name, root=_ws(ctx))
    emit("study-status", [r.to_dict() for r in st.rows], output, lambda _: format_study_status(st))


@study.command(
    "report",
    epilog=examples("delve study report smoke", "delve study report thesis --check"),
)
@click.argument("name")
@click.option(
    "--check",
    is_flag=True,
    help="Regenerate into a temporary folder and compare with the committed report.",
)
@click.pass_context
def study_report(ctx: click.Context, name, check) -> None:
    """Write the tables and figures of study NAME (results/<study>/report/)."""
    from .. import api
    from ..report.commands import format_report_written

    if check:
        res = api.study_report_check(name, root=_ws(ctx))
        if not res.identical:
            for d in res.differs:
                click.echo(f"differs: {d}", err=True)
            raise DelveError(
                f"{len(res.differs)} report files of study {name} differ from what the "
                f"committed results give; run `delve study report {name}`",
            )
        click.echo(f"study {name}: every report file is byte-identical")
        return
    written = api.study_report(name, root=_ws(ctx))
    for w in written.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(format_report_written(written, "RESULTS.md"), nl=False)


@study.command(
    "leaderboard",
    epilog=examples(
        "delve study leaderboard thesis modern",
        "delve study leaderboard thesis modern --check",
    ),
)
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder of the leaderboard, relative to the workspace (default results/leaderboard).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Regenerate into a temporary folder and compare with the committed leaderboard.",
)
@click.pass_context
def study_leaderboard(ctx: click.Context, names, out, check) -> None:
    """Every method of studies NAMES on the tasks they all share, from their committed
    results: per-task paired tests, wins and losses after Holm's correction, average ranks
    with the critical-difference diagram, geometric averages by family, inputs, noise and
    size."""
    from .. import api
    from ..report.commands import format_report_written
    from ..study.report import ReportCheck

    res = api.study_leaderboard(list(names), out=out, check=check, root=_ws(ctx))
    if isinstance(res, ReportCheck):
        if not res.identical:
            for d in res.differs:
                click.echo(f"differs: {d}", err=True)
            raise DelveError(
                f"{len(res.differs)} leaderboard files differ from what the committed results "
                f"give; run `delve study leaderboard {' '.join(names)}`",
            )
        click.echo(f"leaderboard of {', '.join(names)}: every file is byte-identical")
        return
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(format_report_written(res, "index.html"), nl=False)


@study.command(
    "verify", epilog=examples("delve study verify smoke", "delve study verify thesis --alpha 0.05")
)
@click.argument("name")
@alpha_option(0.01, "Significance level of the rerun test for methods with a CPU budget.")
@click.option(
    "--margin",
    type=click.FloatRange(min=0),
    default=0.2,
    show_default=True,
    help="A CPU-budget rerun fails only when significantly worse than the committed "
    "loss times 1 + F.",
)
@click.pass_context
def study_verify(ctx: click.Context, name, alpha, margin) -> None:
    """CI checks of study NAME: committed losses match their recorded sha256, report
    byte-identical, sample reruns reproduce the committed losses."""
    from .. import api
    from ..report.commands import format_verification

    v = api.study_verify(
        name,
        alpha=alpha,
        margin=margin,
        progress=lambda s: click.echo(f"... {s}", err=True),
        root=_ws(ctx),
    )
    click.echo(format_verification(v), nl=False)
    if not v.ok:
        sys.exit(1)


@study.command(
    "unpack",
    epilog=examples(
        "delve study unpack thesis",
        "delve --results results/thesis/runs stats mlp-mc-1@0.125 kin-8nm/std.64",
    ),
)
@click.argument("name")
@click.pass_context
def study_unpack(ctx: click.Context, name) -> None:
    """Write the committed results of NAME in the ordinary layout into the workspace's
    results/<study>/runs (for tools that read result folders). The analysis commands do
    not need this: `delve stats mlp-mc-1@0.125 kin-8nm/std.64 --with thesis` reads the
    committed files in place."""
    from .. import api
    from ..report.commands import format_unpacked

    click.echo(format_unpacked(api.study_unpack(name, root=_ws(ctx))), nl=False)
