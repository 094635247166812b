"""Commands that run methods and show progress: run, status."""

from __future__ import annotations

import sys

import click

from ..errors import DelveError
from ..workspace import Workspace
from ._group import POSITIVE, _ws, cli, complete_methods_or_tasks, emit, examples, json_output


def _split_run_args(ws: Workspace, args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import method_names, split_fraction

    methods_known, ds = set(method_names(ws)), set(dataset_names(ws))
    methods_: list[str] = []
    tasks_: list[str] = []
    for a in args:
        if not tasks_ and split_fraction(a)[0] in methods_known:
            methods_.append(a)
        elif "/" in a or a in ds or any(c in a for c in "*?["):
            tasks_.append(a)
        elif not tasks_:
            raise DelveError(
                f"unknown method {a!r}{suggest(a, methods_known)}; `delve methods` lists them"
            )
        else:
            raise DelveError(f"unknown dataset or task {a!r}{suggest(a, ds)}")
    if not methods_:
        raise DelveError("name at least one method, e.g. `delve run lin-1 kin-8nm/std.256`")
    if not tasks_:
        raise DelveError("name at least one task, e.g. `delve run lin-1 kin-8nm/std.256`")
    return methods_, tasks_


@cli.command(
    epilog=examples(
        "delve run lin-1 knn-cv-1 kin-8nm/std.64            # 8 instances each",
        "delve run gp-mc-1 'kin-8*/std.256' --dry-run       # plan and time estimate only",
        "delve run mlp-ese-1 boston --budget-mode work --jobs 2 --instances 0-3",
    )
)
@click.argument(
    "args",
    nargs=-1,
    required=True,
    metavar="METHOD... TASK...",
    shell_complete=complete_methods_or_tasks,
)
@click.option("--instances", help="Only these instances, e.g. 0,2-4.")
@click.option(
    "--budget-mode",
    type=click.Choice(["cpu", "work"]),
    default="cpu",
    show_default=True,
    help="cpu: CPU seconds from the method's rule; work: a fixed, deterministic amount of work.",
)
@click.option(
    "--time-scale",
    type=POSITIVE,
    default=None,
    help="Multiply the 1996 CPU budgets by this (default 0.05: a modern core is ~20x the thesis').",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Jobs at a time on this machine (one BLAS thread each).",
)
@click.option(
    "--dask",
    "dask_address",
    metavar="ADDRESS|local[:N]",
    help="Run on a Dask cluster: a scheduler address, or local[:N] to start a LocalCluster.",
)
@click.option(
    "--hard-limit",
    type=POSITIVE,
    metavar="SECONDS",
    help="Kill any job after this many CPU seconds (default: 2 x its cpu budget + 60 s).",
)
@click.option("--force", is_flag=True, help="Redo instances that are already finished.")
@click.option("--retry-failed", is_flag=True, help="Rerun instances recorded as failed.")
@click.option(
    "--dry-run",
    "-n",
    is_flag=True,
    help="Only show the plan: jobs to run and skip, and an estimate of CPU and wall time.",
)
@click.option("--quiet", "-q", is_flag=True, help="No estimate, progress bar or summary.")
@json_output
@click.pass_context
def run(
    ctx: click.Context,
    args,
    instances,
    budget_mode,
    time_scale,
    jobs,
    dask_address,
    hard_limit,
    force,
    retry_failed,
    dry_run,
    quiet,
    output,
) -> None:
    """Run METHODs on every missing instance of TASKs; results go to results/.

    Before a run estimated to take more than a minute, one line gives its CPU and wall
    time; --dry-run shows the whole plan: jobs to run and skip, and the estimate per method
    (from the budgets in cpu mode, from earlier runs' recorded costs otherwise)."""
    from .. import api
    from ..errors import RunFailed
    from ..report.listing import estimate_line, format_plan, format_run_summary
    from ..run import RunInterrupted
    from ..tasks.names import parse_instances

    ws = _ws(ctx)
    wanted = parse_instances(instances)
    methods_, task_names = _split_run_args(ws, args)
    p = api.plan(
        methods_,
        task_names,
        root=ws,
        instances=wanted,
        budget_mode=budget_mode,
        time_scale=time_scale,
        jobs=jobs,
        force=force,
        retry_failed=retry_failed,
    )
    if dry_run:
        emit("plan", [p], output, lambda ps: format_plan(ps[0]), one=True)
        return
    if not quiet and output is None and p.estimate.wall_seconds > 60:
        click.echo(estimate_line(p.estimate, len(p.todo)), err=True)
    try:
        summary = api.execute(
            p,
            root=ws,
            progress=not quiet and output is None and sys.stderr.isatty(),
            hard_limit=hard_limit,
            dask=dask_address,
            force=force,
        )
    except RunInterrupted as e:
        click.echo(format_run_summary(e.summary), err=True, nl=False)
        click.echo(
            f"interrupted: {e.summary.ran + len(e.summary.failed)} of {len(p.todo)} jobs "
            "finished and are kept; the running ones were stopped and left undone; "
            "rerun to resume",
            err=True,
        )
        sys.exit(130)
    if output:
        emit("run", [summary], output, one=True)
    else:
        text = format_run_summary(summary).splitlines()
        for line in text[1:] if quiet else text:
            click.echo(line, err=True)
    if not summary.ok:
        raise RunFailed(
            f"{len(summary.failed)} instance(s) failed, {len(summary.interrupted)} interrupted"
        )


@cli.command(
    epilog=examples(
        "delve status                          # every method with results",
        "delve status gp-mc-1 kin-8nm          # one method on a dataset's tasks",
        "delve status --json | jq '.[] | select(.failed != [])'",
    )
)
@click.argument(
    "names", nargs=-1, metavar="[METHOD] [TASK]...", shell_complete=complete_methods_or_tasks
)
@json_output
@click.pass_context
def status(ctx: click.Context, names, output) -> None:
    """Done / failed / corrupt / missing instances per method and task, with failure reasons."""
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import method_names
    from ..report.listing import format_status
    from ..run.status import study_status

    ws = _ws(ctx)
    if names:
        first, methods_known = names[0], set(method_names(ws))
        task_like = "/" in first or any(c in first for c in "*?[") or first in dataset_names(ws)
        if first not in methods_known and not task_like:
            raise DelveError(
                f"unknown method or task {first!r}"
                f"{suggest(first, methods_known | set(dataset_names(ws)))}; "
                "`delve methods` and `delve tasks` list them"
            )
    emit("status", study_status(ws, list(names)), output, format_status)
