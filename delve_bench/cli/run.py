"""Commands that run methods and show progress: run, status."""

from __future__ import annotations

import os
import sys

import click

from ..defaults import BUDGET_MODES, DEFAULT_BUDGET_MODE, DEFAULT_TIME_SCALE
from ..errors import DelveError
from ..workspace import WorkspaceDirs
from ._group import (
    POSITIVE,
    _ws,
    choice_option,
    cli,
    complete_methods_or_tasks,
    emit,
    examples,
    executor_options,
    json_output,
    retry_failed_option,
)


def _split_run_args(
    ws: WorkspaceDirs, args: tuple[str, ...], tasks_needed: bool = True
) -> tuple[list[str], list[str]]:
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import is_method, method_names, split_fraction

    ds = set(dataset_names(ws))
    methods_: list[str] = []
    tasks_: list[str] = []
    for a in args:
        if not tasks_ and is_method(ws, split_fraction(a)[0]):
            methods_.append(a)
        elif "/" in a or a in ds or any(c in a for c in "*?["):
            tasks_.append(a)
        elif not tasks_:
            known = method_names(ws)
            raise DelveError(f"unknown method {a!r}{suggest(a, known)}; `delve methods` lists them")
        else:
            raise DelveError(f"unknown dataset or task {a!r}{suggest(a, ds)}")
    if not methods_:
        raise DelveError("name at least one method, e.g. `delve run lin-1 kin-8nm/std.256`")
    if not tasks_ and tasks_needed:
        raise DelveError(
            "name at least one task, e.g. `delve run lin-1 kin-8nm/std.256`, "
            "or a study's with --study, e.g. `delve run lin-1 --study thesis`"
        )
    return methods_, tasks_


def _concurrency(jobs: int, dask_address: str | None) -> int:
    """Jobs at a time on this machine (a remote Dask cluster: assume one per core)."""
    import os

    if not dask_address:
        return jobs
    n = dask_address.partition(":")[2] if dask_address.startswith("local") else ""
    return int(n) if n.isdigit() else (os.cpu_count() or 1)


_UNITS = {"": 2**20, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _memory_limit(text: str | None, concurrent: int) -> int | None:
    """Bytes from --memory-limit (a number of MB, or with a K/M/G/T suffix; 'none'), or
    the default for ``concurrent`` jobs at a time."""
    from ..run.job import default_memory_limit

    if text is None:
        return default_memory_limit(concurrent)
    s = text.strip().upper().removesuffix("B").removesuffix("I")
    if s == "NONE":
        return None
    unit = s[-1] if s and s[-1] in _UNITS else ""
    try:
        value = float(s[: len(s) - len(unit)])
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value == float("inf"):
        raise DelveError(
            f"--memory-limit {text!r}: use a positive size such as 4G or 512M, or 'none'"
        )
    n = int(value * _UNITS[unit])
    if n < 64 * 2**20:
        raise DelveError(f"--memory-limit {text!r}: at least 64M (a job's process needs it)")
    return n


@cli.command(
    epilog=examples(
        "delve run lin-1 knn-cv-1 kin-8nm/std.64            # 8 instances each",
        "delve run gp-mc-1 'kin-8*/std.256' --dry-run       # plan and time estimate only",
        "delve run mlp-ese-1 boston --budget-mode work --jobs 2 --instances 0-3",
        "delve run my-hgb-1 --study thesis --tasks kin-8nm -n   # a study's tasks and budgets",
    )
)
@click.argument(
    "args",
    nargs=-1,
    required=True,
    metavar="METHOD... [TASK...]",
    shell_complete=complete_methods_or_tasks,
)
@click.option(
    "--study",
    metavar="STUDY",
    help="Run on exactly study STUDY's tasks and instances with its budget settings "
    "(its own for its methods, its defaults for others); then analyse with --with STUDY.",
)
@click.option(
    "--tasks",
    "study_tasks",
    multiple=True,
    metavar="TASK",
    help="With --study: only these of its tasks (repeatable or comma-separated).",
)
@click.option("--instances", help="Only these instances, e.g. 0,2-4.")
@choice_option(
    "--budget-mode",
    [DEFAULT_BUDGET_MODE, *(m for m in BUDGET_MODES if m != DEFAULT_BUDGET_MODE)],
    "cpu: CPU seconds from the method's rule; work: a fixed, deterministic amount of work.",
)
@click.option(
    "--time-scale",
    type=POSITIVE,
    default=None,
    help=f"Multiply the 1996 CPU budgets by this (default {DEFAULT_TIME_SCALE:g}: a modern core "
    "is ~20x the thesis').",
)
@executor_options(
    "Run on a Dask cluster: a scheduler address, or local[:N] to start a LocalCluster."
)
@click.option(
    "--hard-limit",
    type=POSITIVE,
    metavar="SECONDS",
    help="Kill any job after this many CPU seconds (default: 2 x its cpu budget + 60 s; "
    "1 h without a cpu budget).",
)
@click.option(
    "--memory-limit",
    metavar="SIZE",
    help="Data memory per job, e.g. 4G or 512M, or 'none' "
    "(default: 90% of this machine's memory / jobs at a time, at least 1G).",
)
@click.option(
    "--blas-threads",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    metavar="N",
    help="BLAS and OpenMP threads per job (parallelism comes from --jobs); other than 1 is "
    "recorded in each result's fingerprint.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Redo finished instances (each is replaced when its new result is complete).",
)
@retry_failed_option
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
    study,
    study_tasks,
    instances,
    budget_mode,
    time_scale,
    jobs,
    dask_address,
    hard_limit,
    memory_limit,
    blas_threads,
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
    given = {
        n
        for n in ("budget_mode", "time_scale")
        if ctx.get_parameter_source(n) != click.core.ParameterSource.DEFAULT
    }
    if study:
        if given:
            raise DelveError(
                f"--study {study} sets the budget; drop --{sorted(given)[0].replace('_', '-')}"
            )
        methods_, task_names = _split_run_args(ws, args, tasks_needed=False)
        if task_names:
            raise DelveError(
                f"with --study, name tasks with --tasks (e.g. --tasks {task_names[0]})"
            )
        task_names = [t for x in study_tasks for t in x.split(",") if t.strip()]
        budget_mode = time_scale = None
    elif study_tasks:
        raise DelveError("--tasks goes with --study; name the tasks after the method instead")
    else:
        methods_, task_names = _split_run_args(ws, args)
    p = api.plan(
        methods_,
        task_names,
        root=ws,
        study=study,
        instances=wanted,
        budget_mode=budget_mode,
        time_scale=time_scale,
        jobs=jobs,
        force=force,
        retry_failed=retry_failed,
        hard_limit=hard_limit,
        memory_limit=_memory_limit(memory_limit, _concurrency(jobs, dask_address)),
        blas_threads=blas_threads,
    )
    if dry_run:
        emit("plan", [p], output, lambda ps: format_plan(ps[0]), one=True)
        return
    if not quiet and output is None and p.estimate.wall_seconds > 60:
        click.echo(estimate_line(p.estimate, len(p.todo)), err=True)
    if p.stale and not quiet and output is None:
        job, fields = next(iter(p.stale.items()))
        click.echo(
            f"rerunning {len(p.stale)} instance(s) made under other settings "
            f"(e.g. {job.label}: {', '.join(fields)} changed); earlier results stay until "
            "the new ones are complete",
            err=True,
        )
    try:
        summary = api.execute_plan(
            p,
            root=ws,
            progress=not quiet and output is None and sys.stderr.isatty(),
            hard_limit=hard_limit,
            dask=dask_address,
            force=force,
        )
    except RunInterrupted as e:
        from . import TERMINATED, terminated

        code, how = (143, TERMINATED) if terminated() else (130, "interrupted")
        click.echo(format_run_summary(e.summary), err=True, nl=False)
        click.echo(
            f"{how}: {e.summary.ran + len(e.summary.failed)} of {len(p.todo)} jobs "
            "finished and are kept; the running ones were stopped and left undone; "
            "rerun to resume",
            err=True,
        )
        if dask_address:  # skip Dask's exit hooks: they would wait on the killed cluster
            sys.stderr.flush()
            os._exit(code)
        sys.exit(code)
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
    from .. import api
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import method_names
    from ..report.listing import format_status

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
    emit("status", api.status(None, list(names), root=ws), output, format_status)
