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


def _load(ctx: click.Context, name: str):
    from ..study.spec import load_study

    return load_study(_ws(ctx), name)


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
@click.option("--quiet", "-q", is_flag=True, help="No progress bars.")
@click.pass_context
def study_run(ctx: click.Context, name, jobs, dask_address, retry_failed, methods, quiet) -> None:
    """Run or resume every missing job of study NAME, then pack its results."""
    from ..errors import RunFailed
    from ..run.estimate import duration
    from ..study.run import run_study

    ws = _ws(ctx)
    st = _load(ctx, name)

    def on_group(plan, n):
        if not quiet:
            click.echo(
                f"{plan.name}: {n} jobs ({plan.budget_mode} mode"
                + (f", time scale {plan.time_scale:g}" if plan.budget_mode == "cpu" else "")
                + (f", snapshots {', '.join(plan.snapshot_names)}" if plan.snapshots else "")
                + ")",
                err=True,
            )

    outcomes = run_study(
        ws,
        st,
        jobs,
        dask_address,
        retry_failed,
        progress=not quiet and sys.stderr.isatty(),
        on_group=on_group,
        methods=methods,
    )
    failed = [o for o in outcomes if o.status == "failed"]
    ran = sum(o.status == "ok" for o in outcomes)
    cpu = sum(o.cpu or 0 for o in outcomes)
    if not quiet:
        click.echo(f"ran {ran} jobs, {len(failed)} failed; {duration(cpu)} CPU", err=True)
    for o in failed:
        click.echo(f"failed: {o.job.label}: {o.error}", err=True)
    if failed:
        raise RunFailed(f"{len(failed)} instance(s) failed")


@study.command(
    "status",
    epilog=examples("delve study status smoke", "delve study status thesis --json"),
)
@click.argument("name")
@json_output
@click.pass_context
def study_status(ctx: click.Context, name, output) -> None:
    """Progress of study NAME and an estimate of the CPU time left."""
    from ..report.listing import table
    from ..run.estimate import duration
    from ..study.run import study_progress

    ws, st = _ws(ctx), _load(ctx, name)
    rows = study_progress(ws, st)
    if output:
        records = [
            {
                "result": r.name,
                "done": r.done,
                "stale": r.stale,
                "failed": r.failed,
                "missing": r.missing,
                "cpu_done_seconds": round(r.cpu_done, 3),
                "cpu_left_seconds": round(r.cpu_left, 3),
                "missing_without_estimate": r.unknown,
                "stale_reasons": r.stale_reasons,
            }
            for r in rows
        ]
        emit("study-status", records, output)
        return
    lines = table(
        ("result", "done", "stale", "failed", "missing", "CPU used", "CPU left"),
        [
            (
                r.name,
                str(r.done),
                str(r.stale),
                str(r.failed),
                str(r.missing),
                duration(r.cpu_done),
                duration(r.cpu_left) + ("+?" if r.unknown else ""),
            )
            for r in rows
        ],
        "lrrrrrr",
    ).splitlines()
    click.echo(lines[0])
    for line, r in zip(lines[1:], rows, strict=True):
        click.echo(line)
        for what, items in (("stale", r.stale_reasons), ("failures", r.failures)):
            for f in items[:3]:
                click.echo(f"    {'stale: ' if what == 'stale' else ''}{f}")
            if len(items) > 3:
                click.echo(f"    ... and {len(items) - 3} more {what}")
    total = sum(r.cpu_left for r in rows)
    done = sum(r.done for r in rows)
    allj = sum(r.total for r in rows)
    unknown = sum(r.unknown for r in rows)
    cores = os.cpu_count() or 1
    click.echo(
        f"{done} of {allj} results done; about {duration(total)} CPU left"
        + (f" (+ {unknown} instances without an estimate)" if unknown else "")
        # jobs are single-threaded, so --jobs N divides the wall time at best by N
        + (
            f", at best {duration(total / cores)} with --jobs {cores}"
            if total and cores > 1
            else ""
        )
    )
    base = ws.root / st.results
    size = sum(
        p.stat().st_size
        for sub in ("losses", "meta", "report")
        for p in (base / sub).rglob("*")
        if p.is_file()
    )
    click.echo(f"committed files in {st.results}: {size / 1e6:.1f} MB (losses, meta, report)")


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
    from ..study.report import check_study_report, write_study_report

    ws, st = _ws(ctx), _load(ctx, name)
    if check:
        diff = check_study_report(ws, st)
        if diff:
            for d in diff:
                click.echo(f"differs: {d}", err=True)
            raise DelveError(
                f"{len(diff)} report files of study {name} differ from what the committed "
                f"results give; run `delve study report {name}`",
            )
        click.echo(f"study {name}: every report file is byte-identical")
        return
    res = write_study_report(ws, st)
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(f"{len(res.files)} files in {res.out}; open {res.out / 'RESULTS.md'}")


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
    from ..study.leaderboard import DEFAULT_OUT, check_leaderboard, write_leaderboard

    ws = _ws(ctx)
    studies = [_load(ctx, n) for n in dict.fromkeys(names)]
    out = out or DEFAULT_OUT
    if check:
        diff = check_leaderboard(ws, studies, out)
        if diff:
            for d in diff:
                click.echo(f"differs: {d}", err=True)
            raise DelveError(
                f"{len(diff)} leaderboard files differ from what the committed results give; "
                f"run `delve study leaderboard {' '.join(names)}`",
            )
        click.echo(f"leaderboard of {', '.join(names)}: every file is byte-identical")
        return
    res = write_leaderboard(ws, studies, out)
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(f"{len(res.files)} files in {res.out}; open {res.out / 'index.html'}")


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
    from ..study.verify import verify_study

    checks = verify_study(
        _ws(ctx),
        _load(ctx, name),
        alpha,
        margin,
        progress=lambda s: click.echo(f"... {s}", err=True),
    )
    for c in checks:
        mark = "ok  " if c.ok else "FAIL"
        click.echo(f"{mark if c.verified else 'NOT VERIFIED'} {c.name}: {c.detail}")
    bad = [c for c in checks if not c.ok]
    unverified = [c for c in checks if not c.verified]
    passed = len(checks) - len(bad) - len(unverified)
    tail = f", {len(unverified)} not verified" if unverified else ""
    click.echo(f"{passed} passed, {len(bad)} failed{tail}")
    if bad:
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
    from ..study.beside import committed_dir
    from ..study.pack import unpack

    ws, st = _ws(ctx), _load(ctx, name)
    src = committed_dir(ws, st)  # a one-line error naming where it looked
    dest = ws.root / st.results / "runs"
    names = [*st.method_names, *st.snapshot_names]
    n = unpack(src, dest, names, st.refs(ws), True)
    if n == 0:
        raise DelveError(
            f"nothing to unpack: every committed result of study {name} ({src}) is in "
            f"{dest} already; the analysis commands read them in place with --with {name}"
        )
    click.echo(f"{n} instances written to {dest} (from {src})")
