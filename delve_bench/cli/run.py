"""Commands that run methods and show progress: run, status."""

from __future__ import annotations

import json
import sys

import click

from ..errors import DelveError
from ..workspace import Workspace
from ._group import _ws, cli


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


def _parse_instances(spec: str | None) -> set[int] | None:
    if not spec:
        return None
    out: set[int] = set()
    try:
        for part in spec.split(","):
            lo, _, hi = part.partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise DelveError(f"--instances {spec!r}: use numbers and ranges like 0,2-4") from None
    return out


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
    type=float,
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
    type=float,
    metavar="SECONDS",
    help="Kill any job after this many CPU seconds (default: 2 x its cpu budget + 60 s).",
)
@click.option("--force", is_flag=True, help="Redo instances that are already finished.")
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
    force,
    retry_failed,
    quiet,
) -> None:
    """Run METHODs on every missing instance of TASKs; results go to results/."""
    from ..errors import RunFailed
    from ..methods.registry import DEFAULT_TIME_SCALE
    from ..run import plan_jobs, run_jobs
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    methods_, task_names = _split_run_args(ws, args)
    refs = resolve_tasks(ws, task_names)
    todo, other = plan_jobs(ws, methods_, refs, _parse_instances(instances), force, retry_failed)
    outcomes = run_jobs(
        ws,
        todo,
        budget_mode,
        time_scale or DEFAULT_TIME_SCALE,
        jobs,
        force,
        progress=not quiet and sys.stderr.isatty(),
        hard_limit=hard_limit,
        dask=dask_address,
    )
    failed = [o for o in outcomes if o["status"] == "failed"]
    ran = sum(o["status"] == "ok" for o in outcomes)
    locked = [o for o in outcomes if o["status"] == "locked"]
    interrupted = [o for o in outcomes if o["status"] == "interrupted"]
    if not quiet:
        cpu = sum(o.get("cpu") or 0 for o in outcomes)
        click.echo(
            f"ran {ran}, skipped {len(other['done'])} finished, {len(failed)} failed, "
            f"{len(locked)} busy elsewhere; {cpu:.2f} CPU s",
            err=True,
        )
    for o in failed:
        click.echo(f"failed: {o['job'].label}: {o['error']}", err=True)
    for o in interrupted:
        click.echo(f"interrupted: {o['job'].label}: {o['error']} (rerun to redo it)", err=True)
    if other["failed"]:
        click.echo(
            f"{len(other['failed'])} instances failed earlier (rerun with --retry-failed), "
            f"e.g. {other['failed'][0].label}",
            err=True,
        )
    if failed or other["failed"] or interrupted:
        n = len(failed) + len(other["failed"])
        raise RunFailed(f"{n} instance(s) failed, {len(interrupted)} interrupted")


@cli.command()
@click.argument("names", nargs=-1, metavar="[METHOD] [TASK]...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per method and task.")
@click.pass_context
def status(ctx: click.Context, names, as_json) -> None:
    """Done / failed / missing instances per method and task, with failure reasons."""
    from ..run.status import study_status

    rows = study_status(_ws(ctx), list(names))
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, sort_keys=True))
        return
    if not rows:
        click.echo("no results yet; start with `delve run METHOD TASK`")
        return
    click.echo(f"{'method':<16}{'task':<34}{'done':>5}{'failed':>7}{'corrupt':>8}{'missing':>8}")
    for r in rows:
        click.echo(
            f"{r['method']:<16}{r['task']:<34}{len(r['done']):>5}{len(r['failed']):>7}"
            f"{len(r['corrupt']):>8}{len(r['missing']):>8}"
        )
        for i, err in sorted(r["errors"].items()):
            click.echo(f"    #{i}: {err}")
