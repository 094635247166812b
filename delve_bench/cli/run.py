"""Commands that run methods and show progress: run, status."""

from __future__ import annotations

import json
import os
import sys

import click

from ..errors import DelveError
from ..workspace import Workspace
from ._group import POSITIVE, _ws, cli


def _split_run_args(ws: Workspace, args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import method_names

    methods_known, ds = set(method_names(ws)), set(dataset_names(ws))
    methods_, tasks_ = [], []
    for a in args:
        if not tasks_ and a in methods_known:
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


def _check_writable(ws: Workspace, jobs) -> None:
    """Every folder the jobs write to takes a file, checked before any job starts."""
    from ..run.store import result_dir
    from ..workspace import ensure_writable

    dirs = {result_dir(ws, j.method, j.ref, j.instance) for j in jobs}
    for d in sorted({d.parent for d in dirs}) + sorted(d for d in dirs if d.is_dir()):
        ensure_writable(d)


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


@cli.command()
@click.argument("args", nargs=-1, required=True, metavar="METHOD... TASK...")
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
@click.option(
    "--memory-limit",
    metavar="SIZE",
    help="Data memory per job, e.g. 4G or 512M, or 'none' "
    "(default: 90% of this machine's memory / jobs at a time, at least 1G).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Redo instances that are already finished (each is replaced when its new result is complete).",
)
@click.option("--retry-failed", is_flag=True, help="Rerun instances recorded as failed.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or summary.")
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
    memory_limit,
    force,
    retry_failed,
    quiet,
) -> None:
    """Run METHODs on every missing instance of TASKs; results go to results/."""
    from ..errors import RunFailed
    from ..methods.registry import DEFAULT_TIME_SCALE
    from ..run import RunInterrupted, RunOptions, plan_jobs, run_jobs
    from ..tasks import resolve_tasks
    from ..tasks.names import parse_instances

    ws = _ws(ctx)
    wanted = parse_instances(instances)
    methods_, task_names = _split_run_args(ws, args)
    refs = resolve_tasks(ws, task_names)
    options = RunOptions(
        mode=budget_mode,
        time_scale=DEFAULT_TIME_SCALE if time_scale is None else time_scale,
        force=force,
        hard_limit=hard_limit,
        memory_limit=_memory_limit(memory_limit, _concurrency(jobs, dask_address)),
    )
    plan = plan_jobs(ws, methods_, refs, wanted, options, retry_failed)
    _check_writable(ws, plan.todo)
    if plan.stale and not quiet:
        job, fields = next(iter(plan.stale.items()))
        click.echo(
            f"rerunning {len(plan.stale)} instance(s) made under other settings "
            f"(e.g. {job.label}: {', '.join(fields)} changed); earlier results stay until "
            "the new ones are complete",
            err=True,
        )
    try:
        outcomes = run_jobs(
            ws,
            plan.todo,
            options,
            jobs,
            progress=not quiet and sys.stderr.isatty(),
            dask=dask_address,
        )
    except RunInterrupted as e:
        _summary(e.outcomes, plan, quiet=False)
        click.echo(
            f"interrupted: {len(e.outcomes)} of {len(plan.todo)} jobs finished and are kept; "
            "the running ones were stopped and left undone; rerun to resume",
            err=True,
        )
        if dask_address:  # skip Dask's exit hooks: they would wait on the killed cluster
            sys.stderr.flush()
            os._exit(130)
        sys.exit(130)
    failed, interrupted = _summary(outcomes, plan, quiet)
    if failed or interrupted:
        raise RunFailed(f"{len(failed)} instance(s) failed, {len(interrupted)} interrupted")


def _summary(outcomes, plan, quiet: bool) -> tuple[list, list]:
    """Print what a run did; returns its failed and interrupted outcomes."""
    failed = [o for o in outcomes if o.status == "failed"]
    ran = sum(o.status == "ok" for o in outcomes)
    locked = [o for o in outcomes if o.status == "locked"]
    interrupted = [o for o in outcomes if o.status == "interrupted"]
    if not quiet:
        cpu = sum(o.cpu or 0 for o in outcomes)
        click.echo(
            f"ran {ran}, skipped {len(plan.done)} finished, {len(failed)} failed, "
            f"{len(locked)} busy elsewhere; {cpu:.2f} CPU s",
            err=True,
        )
    for o in failed:
        click.echo(f"failed: {o.job.label}: {o.error}", err=True)
    for o in interrupted:
        click.echo(f"interrupted: {o.job.label}: {o.error} (rerun to redo it)", err=True)
    if plan.failed:
        click.echo(
            f"skipped {len(plan.failed)} instance(s) that failed earlier "
            f"(rerun them with --retry-failed), e.g. {plan.failed[0].label}",
            err=True,
        )
    return failed, interrupted


@cli.command()
@click.argument("names", nargs=-1, metavar="[METHOD] [TASK]...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per method and task.")
@click.pass_context
def status(ctx: click.Context, names, as_json) -> None:
    """Done / failed / missing instances per method and task, with failure reasons."""
    from ..data import dataset_names
    from ..errors import suggest
    from ..methods.registry import method_names
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
    rows = study_status(ws, list(names))
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, sort_keys=True))
        return
    if not rows:
        click.echo("no results yet; start with `delve run METHOD TASK`")
        return
    click.echo(
        f"{'method':<16}{'task':<34}{'done':>5}{'stale':>6}{'failed':>7}{'corrupt':>8}"
        f"{'missing':>8}"
    )
    for r in rows:
        click.echo(
            f"{r['method']:<16}{r['task']:<34}{len(r['done']):>5}{len(r['stale']):>6}"
            f"{len(r['failed']):>7}{len(r['corrupt']):>8}{len(r['missing']):>8}"
        )
        for i, err in sorted(r["errors"].items()):
            click.echo(f"    #{i}: {err}")
        for i, what in sorted(r["stale_fields"].items()):
            click.echo(f"    #{i}: stale ({what})")
