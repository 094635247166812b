"""The ``delve`` command: parse, call the library, print. User errors are one line on
stderr with exit code 2; failed runs exit 1."""

from __future__ import annotations

import json
import sys

import click

from .errors import DelveError
from .workspace import Workspace

LOSS = click.Choice(["S", "A", "L"])


def _ws(ctx: click.Context) -> Workspace:
    return ctx.obj["ws"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    envvar="DELVE_ROOT",
    type=click.Path(file_okay=False),
    help="Workspace with datasets/, tasks/, methods/, results/ (default: current directory).",
)
@click.version_option(package_name="delve-bench")
@click.pass_context
def cli(ctx: click.Context, root: str | None) -> None:
    """delve-bench: compare learning methods on DELVE tasks with valid statistics."""
    ctx.obj = {"ws": Workspace.from_env(root)}


@cli.command()
@click.pass_context
def datasets(ctx: click.Context) -> None:
    """List datasets: cases, attributes, prototasks, and whether the data is here."""
    from .data import dataset_names, dataset_spec
    from .data.load import find_file
    from .tasks.spec import prototask_names

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
    from .data import dataset_names
    from .tasks import prototask_spec, resolve_tasks, task_layout

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
    from .methods.registry import method_names, method_spec

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
    from .data import dataset_spec
    from .data.fetch import fetch as do_fetch

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
    from .data import dataset_names
    from .tasks.instances import generate
    from .tasks.spec import prototask_names, prototask_spec

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


def _split_run_args(ws: Workspace, args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    from .data import dataset_names
    from .errors import suggest
    from .methods.registry import method_names

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
    from .errors import RunFailed
    from .methods.registry import DEFAULT_TIME_SCALE
    from .run import plan_jobs, run_jobs
    from .tasks import resolve_tasks

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


def _emit(objs: list[dict], as_json: bool, fmt) -> None:
    if as_json:
        for o in objs:
            click.echo(json.dumps(o, sort_keys=True))
    else:
        click.echo("\n".join(fmt(o) for o in objs), nl=False)


@cli.command()
@click.argument("method")
@click.argument("task_names", nargs=-1, required=True, metavar="TASK...")
@click.option("-l", "--loss", type=LOSS, default="S", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task.")
@click.pass_context
def stats(ctx: click.Context, method, task_names, loss, as_json) -> None:
    """Estimated expected loss of METHOD on TASKs (DELVE's mstats)."""
    from .methods.registry import method_spec
    from .report import format_summary
    from .stats.summary import task_summary
    from .tasks import resolve_tasks

    ws = _ws(ctx)
    refs = resolve_tasks(ws, task_names)
    method_spec(ws, method)
    _emit([task_summary(ws, method, r, loss) for r in refs], as_json, format_summary)


@cli.command()
@click.argument("method_a")
@click.argument("method_b")
@click.argument("task_names", nargs=-1, metavar="[TASK]...")
@click.option("-l", "--loss", type=LOSS, default="S", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task.")
@click.option(
    "--bayes", is_flag=True, help="Also the posterior mass of eq. 2.16 (hierarchical design)."
)
@click.pass_context
def compare(ctx: click.Context, method_a, method_b, task_names, loss, as_json, bayes) -> None:
    """Paired comparison METHOD_A - METHOD_B (t-test or quasi-F); all shared tasks by default."""
    from .methods.registry import method_spec
    from .report import format_comparison
    from .stats.summary import task_comparison
    from .tasks import resolve_tasks

    ws = _ws(ctx)
    method_spec(ws, method_a)
    method_spec(ws, method_b)
    refs = resolve_tasks(ws, task_names) if task_names else _shared_tasks(ws, method_a, method_b)
    if not refs:
        raise DelveError(f"{method_a} and {method_b} have no task with complete results in common")
    _emit(
        [task_comparison(ws, method_a, method_b, r, loss, bayes) for r in refs],
        as_json,
        format_comparison,
    )


def _shared_tasks(ws: Workspace, a: str, b: str):
    """Tasks on which both methods have every instance complete."""
    from .run.store import instance_state, result_dir
    from .stats.summary import layout_of
    from .tasks.names import TaskRef

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
@click.argument("names", nargs=-1, metavar="[METHOD] [TASK]...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per method and task.")
@click.pass_context
def status(ctx: click.Context, names, as_json) -> None:
    """Done / failed / missing instances per method and task, with failure reasons."""
    from .run.status import study_status

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


@cli.command()
@click.argument("prototasks", nargs=-1, metavar="[PROTOTASK]...")
@click.option("--methods", "methods_", help="Comma-separated methods (default: all with results).")
@click.option(
    "-l",
    "--loss",
    type=LOSS,
    multiple=True,
    help="Loss to report; repeat for several.  [default: S]",
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

    from .report import write_report

    ws = _ws(ctx)
    methods_list = [m.strip() for m in methods_.split(",") if m.strip()] if methods_ else None
    res = write_report(
        ws, list(prototasks), methods_list, loss or ("S",), Path(out) if out else None, plot
    )
    for w in res.warnings:
        click.echo(f"warning: {w}", err=True)
    click.echo(f"{len(res.tables)} tables, {len(res.plots)} plots; open {res.out / res.index}")


DEMO_TASK = "hwang-g5/noisy/std.256"


@cli.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Run lin-1 and knn-cv-1 on a generated task (works offline) and compare them."""
    # ctx.invoke fills in every other option's default
    ctx.invoke(run, args=("lin-1", "knn-cv-1", DEMO_TASK), budget_mode="work")
    ctx.invoke(compare, method_a="knn-cv-1", method_b="lin-1", task_names=(DEMO_TASK,), bayes=True)


def main() -> None:
    """Entry point: user errors become one line and exit code 2 (1 for failed runs)."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except DelveError as e:
        click.echo(f"delve: error: {e}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted; finished instances are kept, rerun to resume", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
