"""The text the commands that are not listings print: the regression gate (``delve
check``), ``delve power``, ``delve selftest``, ``delve fetch`` and the ``delve study``
commands. The result objects of :mod:`delve_bench.api` show themselves with the same
text, so a script, a notebook and the command say the same. Objects of the layers above
this one (the study's) are typed loosely here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..run.estimate import duration
from .plaintext import table

if TYPE_CHECKING:
    from ..analysis.advice import PowerAnalysis
    from ..analysis.gate import CheckResult
    from ..data.fetch import Fetched
    from ..stats.power import Design
    from ..stats.selftest import SelftestResult
    from ..tasks.instances import Generated


# ---- delve check ---------------------------------------------------------------------


def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _no_tests(res: CheckResult) -> str:
    """Why ``check`` ran no paired test, in words (there was no difference to test)."""
    if any(r.status == "unchanged" for r in res.rows):
        return "No test was needed: no compared loss differs from the baseline's."
    return "No test was run: nothing could be compared."


def _tests(n: int) -> str:
    return "1 test" if n == 1 else f"the {n} tests"


def format_check(res: CheckResult) -> str:
    """``delve check``: one row per method, task and loss, the counts and the verdict."""
    tests = sum(r.p is not None for r in res.rows)
    how = (
        f" with the design's paired test; worse: more than the margin ({100 * res.margin:g} "
        f"% of the baseline's loss; L: {res.margin:g} nats) with Holm-adjusted p < "
        f"{res.alpha:g} over {_tests(tests)}."
        if tests
        else f". {_no_tests(res)}"
    )
    lines = [
        f"delve check against {res.baseline}",
        f"current - baseline per method, task and loss{how} Losses standardised.",
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


# ---- delve power ---------------------------------------------------------------------


def _design_text(d: Design | None, design: str, pool: int, what: str) -> str:
    if d is None:
        return what
    per = " test cases each" if design == "hierarchical" else " common test cases"
    text = f"{d.instances} instances x {d.test_cases}{per} (power {d.power:.2f}; {d.cases} cases)"
    if not d.fits:
        text += f": the prototask has {pool}, not possible with this data set"
    return text


def _p(pa: PowerAnalysis) -> str:
    if pa.p is None:
        return "p undefined"
    return f"p {pa.p_text}" if pa.bounded else f"p = {pa.p:.3g}"


def format_power(pa: PowerAnalysis) -> str:
    """``delve power``: the power of the design and the designs that would give more."""
    from ..losses import LOSS_NAMES

    test = "paired t-test" if pa.design == "hierarchical" else "Lindman's quasi-F"
    per = "per instance" if pa.design == "hierarchical" else "in the common test set"
    pct = f"{100 * pa.target:g} %"
    source = {
        "observed": "the observed one",
        "given": "--delta",
        "relative": f"--delta, of {pa.method_b}'s loss",
    }[pa.delta_source]
    lines = [
        f"Power of {pa.method_a} - {pa.method_b} on {pa.task}, loss {pa.loss} "
        f"({LOSS_NAMES[pa.loss].lower()}), standardised",
        f"{pa.design} design, {test} at alpha = {pa.alpha:g}",
        "",
        f"  {'observed difference A - B':<44}{pa.difference:>12.4g}   ({_p(pa)})",
        f"  {'SD from training sets':<44}{pa.sd_train:>12.4g}",
    ]
    if pa.design == "2-way":
        lines.append(f"  {'SD from test cases':<44}{pa.sd_cases:>12.4g}")
        lines.append(f"  {'SD from interactions':<44}{pa.sd_interaction:>12.4g}")
    else:
        lines.append(f"  {'SD from test cases & interactions':<44}{pa.sd_test:>12.4g}")
    lines += [
        f"  {'difference to detect':<44}{pa.delta:>12.4g}   ({source})",
        "",
        f"  This design: {pa.instances} instances, {pa.test_cases} test cases {per}: "
        f"power {pa.power:.2f}",
    ]
    if pa.detectable is not None:
        lines.append(f"  It detects a difference of {pa.detectable:.4g} with {pct} power.")
    else:
        lines.append(
            f"  No difference reaches {pct} power with this design at alpha = {pa.alpha:g}."
        )
    lines += ["", f"  For {pct} power at a difference of {pa.delta:.4g}:"]
    if pa.delta == 0:
        lines.append("    no design: the difference to detect is 0")
    else:
        more_i = "not possible" + (
            f": the variation of the {pa.test_cases} common test cases alone keeps the "
            f"power below {pct}"
            if pa.design == "2-way"
            else ""
        )
        lines.append(
            f"    {f'with {pa.test_cases} test cases:':<30}"
            + _design_text(pa.more_instances, pa.design, pa.pool_cases, more_i)
        )
        if pa.design == "2-way" and pa.instances < pa.min_instances:
            more_j = f"not advised with fewer than {pa.min_instances} instances"
        else:
            more_j = (
                "not possible: the training-set variance alone keeps the power below "
                f"{pct} with {pa.instances} instances"
            )
        lines.append(
            f"    {f'with {pa.instances} instances:':<30}"
            + _design_text(pa.more_test_cases, pa.design, pa.pool_cases, more_j)
        )
        lines.append(
            f"    {'fewest instances that fit:':<30}"
            + _design_text(pa.cheapest, pa.design, pa.pool_cases, "not possible with this data set")
        )
    lines += [
        "",
        f"  Case pool: the prototask has {pa.pool_cases} cases; DELVE's split keeps "
        f"{pa.test_pool} for testing and has room for {pa.max_instances} disjoint training "
        f"sets of {pa.train_size}.",
    ]
    lines += [f"  Note: {n}" for n in pa.notes]
    return "\n".join(lines) + "\n"


# ---- delve selftest ------------------------------------------------------------------


def format_selftest(res: SelftestResult) -> str:
    """``delve selftest``: the type-I error rates by design, the golden numbers, the
    verdict and where the histograms are."""
    from ..stats.level import CONFIDENCE  # numpy and scipy: only when needed
    from ..stats.selftest import ALPHAS

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
                for alpha in ALPHAS:
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
    if res.plots:
        lines.append("histograms: " + ", ".join(res.plots))
    return "\n".join(lines) + "\n"


# ---- delve fetch ---------------------------------------------------------------------


def format_fetched(f: Fetched) -> str:
    """One line per dataset ``delve fetch`` was asked for: what it found or fetched."""
    if f.state == "generated":
        return f"{f.dataset}: generated by delve-bench; nothing to fetch\n"
    if f.state == "verified":
        return f"{f.dataset}: already here, sha256 verified ({f.path}); nothing to fetch\n"
    if f.state == "unverifiable":
        return f"{f.dataset}: already here ({f.path}; its spec has no sha256); nothing to fetch\n"
    return f"{f.dataset}: {f.path}\n"


# ---- delve gen ----------------------------------------------------------------------


def format_generated(g: Generated) -> str:
    """``delve gen``: per prototask what was written (or verified), its tasks' instances."""
    sizes = " ".join(f"{lay.name}x{len(lay.instances)}" for lay in g.layouts)
    if g.checked:
        what = "ok"
    elif g.written or g.removed:
        what = f"wrote {len(g.written)} files" + (
            f", removed {len(g.removed)}" if g.removed else ""
        )
    else:
        what = "up to date, nothing written"
    out = f"{g.prototask}: {what} ({sizes})\n"
    if g.note:
        out += f"{g.prototask}: {g.note}\n"
    return out


# ---- delve study ---------------------------------------------------------------------


def format_study_group(plan: Any, options: Any, n: int) -> str:
    """``delve study run``: the line before each group of a method's jobs (one per time
    scale, which may differ by task)."""
    return (
        f"{plan.name}: {n} jobs ({plan.budget_mode} mode"
        + (f", time scale {options.time_scale:g}" if plan.budget_mode == "cpu" else "")
        + (f", snapshots {', '.join(plan.snapshot_names)}" if plan.snapshots else "")
        + ")\n"
    )


def format_study_run(s: Any) -> str:
    """``delve study run``: what ran, and each failure."""
    lines = [f"ran {s.ran} jobs, {len(s.failed)} failed; {duration(s.cpu_seconds)} CPU"]
    lines += [f"failed: {label}: {error}" for label, error in s.failed]
    return "\n".join(lines) + "\n"


def format_study_stopped(how: str, e: Any) -> str:
    """``delve study run`` stopped (``how``: "interrupted" or "terminated (SIGTERM)"): what is
    kept, and where the running method's finished instances were packed."""
    line = f"{how}: {e.summary.ran + len(e.summary.failed)} jobs finished and are kept"
    if e.packed is not None:
        method, files = e.packed
        where = f"{len(files)} committed files written" if files else "nothing new to pack"
        line += f"; {method}'s finished instances are packed ({where})"
    return line + "; the running ones were stopped and left undone; rerun to resume"


def _first_three(items: list[str], what: str, prefix: str = "") -> list[str]:
    """Indented lines for the first three of ``items``, and how many more ``what`` there are."""
    more = [f"    ... and {len(items) - 3} more {what}"] if len(items) > 3 else []
    return [f"    {prefix}{f}" for f in items[:3]] + more


def format_study_status(st: Any) -> str:
    """``delve study status``: each result's instances by state and its CPU, the totals,
    and the size of the committed files."""
    rows = st.rows
    out = table(
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
        notes=[
            _first_three(r.stale_reasons, "stale", "stale: ") + _first_three(r.failures, "failures")
            for r in rows
        ],
    ).splitlines()
    total, cores = st.cpu_left, st.cores
    out.append(
        f"{st.done} of {st.total} results done; about {duration(total)} CPU left"
        + (f" (+ {st.unknown} instances without an estimate)" if st.unknown else "")
        # jobs are single-threaded, so --jobs N divides the wall time at best by N
        + (
            f", at best {duration(total / cores)} with --jobs {cores}"
            if total and cores > 1
            else ""
        )
    )
    out.append(
        f"committed files in {st.results}: {st.committed_bytes / 1e6:.1f} MB (losses, meta, report)"
    )
    return "\n".join(out) + "\n"


def format_report_written(r: Any, open_file: str) -> str:
    """``delve study report`` / ``leaderboard``: how many files were written, where."""
    return f"{len(r.files)} files in {r.out}; open {r.out / open_file}\n"


def format_verification(v: Any) -> str:
    """``delve study verify``: one line per check, then the counts."""
    lines = []
    for c in v.checks:
        mark = "ok  " if c.ok else "FAIL"
        lines.append(f"{mark if c.verified else 'NOT VERIFIED'} {c.name}: {c.detail}")
    tail = f", {len(v.unverified)} not verified" if v.unverified else ""
    lines.append(f"{v.passed} passed, {len(v.failed)} failed{tail}")
    return "\n".join(lines) + "\n"


def format_unpacked(u: Any) -> str:
    """``delve study unpack``: how many instances were written where."""
    return f"{u.written} instances written to {u.dest} (from {u.source})\n"
