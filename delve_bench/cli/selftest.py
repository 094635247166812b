"""``delve selftest``: the tests' own type-I error rates by simulation, and the golden
numbers of the thesis and of DELVE's mstats."""

from __future__ import annotations

from pathlib import Path

import click

from ._group import _ws, cli, emit, json_output

EXAMPLES = """
Examples:

\b
  delve selftest --quick            # seconds: the headline cases and the golden numbers
  delve selftest                    # the full grid (Figs. 2.5 and 2.6 of the thesis)
  delve selftest --studies 20000 --out /tmp/selftest --json
"""


def _fmt(res) -> str:
    from ..stats.selftest import CONFIDENCE

    lines = [
        f"delve selftest{' --quick' if res.quick else ''} (seed {res.seed})",
        "",
        "Type-I error rates: share of studies with p < alpha when the expected difference",
        f"is 0. ok: inside the {100 * CONFIDENCE:g} % binomial interval around alpha; liberal: too",
        "many false claims; conservative: too few (the test wastes power).",
    ]
    for design in ("hierarchical", "2-way"):
        rs = [r for r in res.settings if r.setting.design == design]
        if not rs:
            continue
        s0 = rs[0].setting
        lines += [
            "",
            f"{design} design: sigma_e = {s0.sd_e:g}, {s0.test_cases} test cases"
            + (" per instance" if design == "hierarchical" else " (common test set)")
            + f", corrected t with n_test/n_train = {s0.test_cases}/{s0.train_size}",
            f"  {'I':>2} {'sd_train':>8} {'sd_cases':>8} {'studies':>7}  {'test':<17}"
            f"{'alpha 5 %':>20}{'alpha 1 %':>20}",
        ]
        for r in rs:
            s = r.setting
            tests = list(dict.fromkeys(x.test for x in r.rates))
            for k, t in enumerate(tests):
                head = (
                    f"  {s.instances:>2} {s.sd_train:>8g} "
                    f"{(f'{s.sd_cases:g}' if design == '2-way' else '-'):>8} {s.studies:>7}"
                    if k == 0
                    else " " * 30
                )
                cells = []
                for alpha in (0.05, 0.01):
                    x = next(x for x in r.rates if x.test == t and x.alpha == alpha)
                    cells.append(f"{x.rate:.4f} {x.verdict:<12}")
                lines.append(f"{head}  {t:<17}{cells[0]:>20}{cells[1]:>20}".rstrip())
    lines += ["", "Golden numbers (recomputed from the printed standard deviations):"]
    for g in res.golden:
        ok = "ok" if g.ok else "DIFFERS"
        lines.append(f"  {g.name:<36} {g.computed:>14.9g}   published {g.published:<12} {ok}")
    lines.append("")
    if res.failures:
        lines.append("FAILED: " + "; ".join(res.failures))
    else:
        lines.append(
            "passed: the golden numbers agree and the exact tests (hierarchical t-test, "
            "sign-flip) keep their level."
        )
    return "\n".join(lines) + "\n"


def _json(res, plots) -> dict:
    return {
        "quick": res.quick,
        "seed": res.seed,
        "passed": res.passed,
        "failures": res.failures,
        "golden": [
            {"name": g.name, "computed": g.computed, "reference": g.reference, "ok": g.ok}
            for g in res.golden
        ],
        "settings": [
            {
                "design": r.setting.design,
                "instances": r.setting.instances,
                "test_cases": r.setting.test_cases,
                "sd_train": r.setting.sd_train,
                "sd_cases": r.setting.sd_cases if r.setting.design == "2-way" else None,
                "sd_e": r.setting.sd_e,
                "studies": r.setting.studies,
                "rates": [
                    {
                        "test": x.test,
                        "alpha": x.alpha,
                        "rate": x.rate,
                        "interval": [x.low, x.high],
                        "verdict": x.verdict,
                    }
                    for x in r.rates
                ],
            }
            for r in res.settings
        ],
        "plots": plots,
    }


@cli.command(epilog=EXAMPLES)
@click.option("--quick", is_flag=True, help="The headline cases only (a few seconds).")
@click.option("--seed", type=int, default=0, show_default=True, help="Simulation seed.")
@click.option(
    "--studies",
    type=click.IntRange(min=100),
    help="Simulated studies per setting (default: 10000 for the quick t-test, else 2000 "
    "quick / 5000 full).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Directory for the p-value histograms (default: results/plots).",
)
@click.option("--no-plots", is_flag=True, help="Skip the histograms.")
@json_output
@click.pass_context
def selftest(ctx: click.Context, quick, seed, studies, out, no_plots, output) -> None:
    """Do the tests keep their promises? Simulate losses with no true difference for
    both designs and report how often each test claims one (its type-I error rate),
    draw the p-value histograms (thesis Figs. 2.5, 2.6), and recompute the golden
    numbers. Exits 1 if an exact test or a golden number is off."""
    from ..stats.selftest import selftest as run_selftest

    res = run_selftest(quick=quick, seed=seed, studies=studies or (None if quick else 5000))
    plots: list[str] = []
    if not no_plots:
        from ..report.nullplots import write_null_histograms

        target = Path(out) if out else _ws(ctx).results / "plots"
        plots = [str(p) for p in write_null_histograms(res, target)]
    if output:
        emit("selftest", [_json(res, plots)], output, one=True)
    else:
        text = _fmt(res)
        if plots:
            text += "histograms: " + ", ".join(plots) + "\n"
        click.echo(text, nl=False)
    if not res.passed:
        ctx.exit(1)
