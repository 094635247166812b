"""``delve check``: the regression gate for CI: exits 1 when a method got significantly
worse than in a baseline results tree, or when results are missing."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import DelveError
from ._group import LOSS, _ws, alpha_option, cli, emit, json_output

EXAMPLES = """
Examples:

\b
  delve check ../baseline                     # every method and task of the baseline
  delve check ../baseline/results knn-cv-1 kin-8nm
  delve check ../baseline -l S -l A --margin 0.02 --json
  git worktree add /tmp/base v1.0 && delve check /tmp/base   # against a release
  delve check --with thesis lin-1 kin-8nm     # your rerun against the committed study
"""


def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def format_check(res) -> str:
    from ..report.listing import table

    lines = [
        f"delve check against {res.baseline}",
        f"current - baseline per method, task and loss with the design's paired test; worse: "
        f"more than the margin ({100 * res.margin:g} % of the baseline's loss; L: "
        f"{res.margin:g} nats) with Holm-adjusted p < {res.alpha:g} over the "
        f"{sum(r.p is not None for r in res.rows)} tests. Losses standardised.",
        "",
    ]
    rows = []
    for r in res.rows:
        if r.change is None:
            change = "-"
        elif r.loss == "L":
            change = f"{r.change:+.3g}"
        else:
            change = f"{100 * r.change:+.2f}%"
        verdict = r.status
        if r.status == "missing":
            verdict += f" ({r.why})"
        elif r.spec_change:
            fields = ", ".join(r.spec_change)
            how = f"; {r.comparison}" if r.comparison else (f"; {r.why}" if r.why else "")
            label = "accepted changed spec" if r.accepted else "changed spec"
            verdict = f"{label} (field {fields}{how})"
            if r.accepted and r.comparison:
                verdict = f"{r.status} ({label}: {fields})"
        elif r.status == "new" or r.why:
            verdict += f" ({r.why})"
        rows.append(
            (
                r.method,
                r.task,
                r.loss,
                str(r.instances),
                _num(r.baseline, ".4g"),
                _num(r.current, ".4g"),
                change,
                _num(r.p, ".2g"),
                _num(r.p_adjusted, ".2g"),
                verdict,
            )
        )
    head = ("method", "task", "loss", "inst", "baseline", "current", "change", "p(worse)")
    lines += table((*head, "Holm p", "verdict"), rows, "lllrrrrrrl").splitlines()
    counts = {
        s: sum(r.status == s for r in res.rows)
        for s in ("unchanged", "changed", "better", "worse", "missing", "changed spec", "new")
    }
    summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    lines += ["", ("FAILED: " if res.failed else "ok: ") + summary]
    if res.changed_spec:
        names = " ".join(sorted({r.method for r in res.changed_spec}))
        lines.append(
            f"changed spec since the baseline: {names}; if intended, rerun with "
            + " ".join(f"--accept-changed {m}" for m in names.split())
        )
    return "\n".join(lines) + "\n"


@cli.command(epilog=EXAMPLES)
@click.argument(
    "baseline", metavar="[BASELINE_ROOT]", type=click.Path(file_okay=False), required=False
)
@click.argument("names", nargs=-1, metavar="[METHOD]... [TASK]...")
@click.option(
    "-l",
    "--loss",
    type=LOSS,
    multiple=True,
    help="Loss to check; repeat for several (each on the tasks that have it).  [default: S and Z]",
)
@click.option(
    "--accept-changed",
    "accept_changed",
    multiple=True,
    metavar="METHOD",
    help="A method whose spec (version, params, budget) changed on purpose since the "
    "baseline: judge it on its losses alone. Repeat for several.",
)
@click.option(
    "--margin",
    type=float,
    default=0.01,
    show_default=True,
    help="Tolerated worsening: a fraction of the baseline's expected loss (S, A, Z, Q) or nats (L).",
)
@alpha_option(0.05)
@click.option(
    "--with",
    "with_study",
    metavar="STUDY",
    help="The baseline is study STUDY's committed results (read in place): checks your "
    "reruns of its methods.",
)
@json_output
@click.pass_context
def check(
    ctx: click.Context, baseline, names, loss, margin, alpha, output, with_study, accept_changed
) -> None:
    """Compare the workspace's results with those in BASELINE_ROOT (a workspace or its
    results/ directory) task by task, with the design's paired test of current -
    baseline. Exits 1 when a method got significantly worse (by more than the
    margin, Holm-adjusted p < alpha), baseline results are missing, or a method's spec
    changed since the baseline and is not accepted (--accept-changed); a table says what
    changed. METHODs and TASKs restrict the check (default: everything in the baseline;
    with --with STUDY, which takes BASELINE_ROOT's place, the study's methods that the
    workspace has results of)."""
    from ..methods.registry import method_names
    from ..report.collect import result_methods
    from ..stats.gate import baseline_tree, check_margin
    from ..stats.gate import check as run_check
    from ..tasks import resolve_tasks

    ws = _ws(ctx)
    margin = check_margin(margin)
    if with_study is not None and baseline is not None and not Path(baseline).is_dir():
        # with --with the baseline is the study: the first name is a METHOD or TASK
        baseline, names = None, (baseline, *names)
    if (baseline is None) == (with_study is None):
        raise DelveError("give a BASELINE_ROOT or --with STUDY (one of them)")
    if with_study:
        from ..study.beside import study_baseline

        base = study_baseline(ws, with_study)
    else:
        base = baseline_tree(ws, baseline)
    known = set(result_methods(base)) | set(result_methods(ws))
    try:
        known |= set(method_names(ws))
    except Exception:  # a broken method YAML must not stop the gate from naming methods
        pass
    methods = [n for n in names if n in known]
    tasks = [n for n in names if n not in known]
    refs = resolve_tasks(ws, tasks) if tasks else None
    if with_study and not methods:
        methods = [m for m in result_methods(ws) if m in set(result_methods(base))]
        if not methods:
            raise DelveError(
                f"no results here of a method of study {with_study}; run one first, e.g. "
                f"`delve run {result_methods(base)[0]} --study {with_study}`"
            )
    res = run_check(
        ws,
        base,
        methods or None,
        refs,
        tuple(loss) or ("S", "Z"),
        alpha,
        margin,
        tuple(accept_changed),
    )
    emit("check", [res], output, lambda rs: format_check(rs[0]), one=True)
    if res.failed:
        ctx.exit(1)
