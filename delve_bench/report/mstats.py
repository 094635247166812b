"""DELVE's ``mstats`` text layout (DELVE 1.1; docs/statistics.md).

Each row is the label right-justified to 48 columns, ``:``, then two ``%13s`` fields
(Raw value, Standardized) holding ``%.9g`` numbers. Compare mode labels the first method
by name and the second with a leading slash; the difference is first - second.

The one deliberate departure from DELVE's layout: a space always follows the ``:``, so a
13-character number (``0.00367217987``) cannot run into its label; the number columns sit
one place further right than in DELVE's output.

The 2-way design's rows name the SD components as DELVE does; their ``--json`` keys are
``sd_train``, ``sd_cases`` and ``sd_interaction`` (:mod:`delve_bench.stats.results`).
"""

from __future__ import annotations

import textwrap

from ..losses import LOSS_NAMES
from ..stats.results import ComparisonResult, StatsResult
from .notes import budget_label


def _num(x) -> str:
    return "undefined" if x is None else f"{x:.9g}"


def _row(label: str, raw, std) -> str:
    return f"{label:>48}: {_num(raw):>13} {_num(std):>13}"


def _header(path: str, loss: str) -> list[str]:
    return [
        path,
        f"Loss: {loss} ({LOSS_NAMES[loss]})",
        f"{'Raw value':>64}{'Standardized':>15}",
        "",
    ]


def _sd_rows(s: dict) -> list[str]:
    st = s["standardized"]
    if s["design"] == "resampled":
        return [
            "",
            _row("SE without the overlap correction", s["se_uncorrected"], st["se_uncorrected"]),
            _row(
                "SD from realisations (overlapping training)",
                s["sd_realisations"],
                st["sd_realisations"],
            ),
            _row("SD from test cases within a realisation", s["sd_test"], st["sd_test"]),
        ]
    if s["design"] == "fixed":
        return ["", _row("SD from test cases", s["sd_test"], st["sd_test"])]
    rows = ["", _row("SD from training sets & stochastic training", s["sd_train"], st["sd_train"])]
    if s["design"] == "2-way":
        rows.append(_row("SD from test cases", s["sd_cases"], st["sd_cases"]))
        rows.append(
            _row(
                "SD from interactions & stoch. prediction",
                s["sd_interaction"],
                st["sd_interaction"],
            )
        )
    else:
        rows.append(
            _row("SD from test cases & stoch. pred. & interactions", s["sd_test"], st["sd_test"])
        )
    return rows


def _se_label(s: dict, what: str) -> str:
    if s["design"] == "resampled":
        return f"Corrected SE for {what.split()[0]} (Nadeau-Bengio)"
    if s["design"] == "fixed":
        return f"Test-case SE for {what}"
    return f"Standard error for {what}"


def _based_on(s: dict) -> list[str]:
    I, n, J = s["instances"], s["train_size"], s["test_size"]
    first = f"    Based on {I} disjoint training sets, each containing {n} cases and"
    if s["design"] == "2-way":
        second = f"             1 common test set containing {J} cases."
    elif s["design"] == "resampled":
        first = f"    Based on {I} published realisations (overlapping training sets), each"
        second = f"             training on {n} cases and testing on {J} other cases."
    elif s["design"] == "fixed":
        first = f"    Based on 1 training set of {n} cases and 1 test set of {J} cases:"
        second = "             the SE and test cover test-case variation only."
    else:
        second = f"             {I} disjoint test sets, each containing {J} cases."
    lines = ["", first, second]
    if s.get("instances_missing"):
        what = (
            "are not used by both methods"
            if s.get("instances_unpaired") is not None
            else "have no complete result"
        )
        lines.append(
            f"    Warning: {len(s['instances_missing'])} of {s['task_instances']} instances "
            f"{what} (instances {', '.join(map(str, s['instances_missing']))})."
        )
    for m, extra in (s.get("instances_unpaired") or {}).items():
        if extra:
            lines.append(
                f"    Paired on the instances both have; {m} also has "
                f"{', '.join(map(str, extra))} (not used here)."
            )
    if s.get("budget") is not None:
        lines.append(f"    Budget: {budget_label(s['budget'])}.")
    if s.get("budget_a") is not None or s.get("budget_b") is not None:
        lines.append(
            f"    Budgets: {s['method_a']} {budget_label(s['budget_a'])}, "
            f"{s['method_b']} {budget_label(s['budget_b'])}."
        )
    if s.get("instances_stale"):
        lines.append(
            f"    Warning: stale instances left out (made under other settings): "
            f"{', '.join(map(str, s['instances_stale']))}; `delve status` shows why."
        )
    return lines


def format_summary(result: StatsResult) -> str:
    """``mstats -l LOSS /METHOD/TASK`` for one method."""
    s = result.to_dict()
    st = s["standardized"]
    lines = _header(f"/{s['method']}/{s['task']}", s["loss"])
    lines += [
        _row("Estimated expected loss", s["mean"], st["mean"]),
        _row(_se_label(s, "estimate"), s["se"], st["se"]),
    ]
    return "\n".join(lines + _sd_rows(s) + _undefined(s) + _based_on(s)) + "\n"


def _undefined(s: dict) -> list[str]:
    """The note that explains a nan Standardized column (a constant target)."""
    from ..losses import UNDEFINED_NOTE, undefined_scale

    if not undefined_scale(s.get("standardization")):
        return []
    return [
        "",
        *textwrap.wrap(
            f"Note: {UNDEFINED_NOTE}.", 88, initial_indent="    ", subsequent_indent="    "
        ),
    ]


def format_comparison(result: ComparisonResult, permutation: bool | None = None) -> str:
    """``mstats -c B -l LOSS /A/TASK``: A's and B's expected losses, A - B and its test;
    the sign-flip permutation test too when ``permutation`` (default: for the Z loss)."""
    c = result.to_dict()
    st = c["standardized"]
    lines = _header(f"/{c['method_a']}/{c['task']}", c["loss"])
    lines += [
        _row(f"Estimated expected loss for {c['method_a']}", c["mean_a"], st["mean_a"]),
        _row(f"Estimated expected loss for /{c['method_b']}", c["mean_b"], st["mean_b"]),
        _row("Estimated expected difference", c["difference"], st["mean"]),
        _row(_se_label(c, "difference estimate"), c["se"], st["se"]),
    ]
    lines += _sd_rows(c)
    p = result.p_text if result.bounded else f"= {result.p_text}"
    label = {"corrected t": "corrected resampled t-test", "case t": "t-test over test cases"}
    lines += [
        "",
        f"    Significance of difference ({label.get(c['test'], c['test'] + '-test')}), p {p}",
    ]
    perm = c.get("permutation")
    if perm and (permutation or (permutation is None and c["loss"] == "Z")):
        how = (
            f"exact, {perm['patterns']} sign patterns"
            if perm["exact"]
            else (f"{perm['patterns']} random sign patterns")
        )
        lines.append(
            f"    Significance of difference (sign-flip permutation over instances), "
            f"p = {perm['p']:.9g} ({how}; smallest possible {perm['min_p']:.3g})"
        )
        if c["design"] == "resampled":
            lines.append(
                "    (the realisations overlap: the permutation test, like an uncorrected "
                "t-test, is anti-conservative here)"
            )
    if c["posterior_opposite_sign"] is not None:
        source = "eq. 2.16" if c["design"] == "hierarchical" else "2-way posterior"
        lines.append(
            f"    Posterior mass on the other side of 0 ({source}): "
            f"{c['posterior_opposite_sign']:.9g}"
        )
        lines.append(
            f"    Posterior probability of A - B < 0: {c['posterior_prob_negative']:.9g}, "
            f"> 0: {c['posterior_prob_positive']:.9g}"
        )
    if c.get("level_note"):
        lines += textwrap.wrap(
            f"Note: {c['level_note']}.", 88, initial_indent="    ", subsequent_indent="    "
        )
    if c["bayes_note"]:
        lines += textwrap.wrap(
            f"Note: {c['bayes_note']}.", 88, initial_indent="    ", subsequent_indent="    "
        )
    return "\n".join(lines + _undefined(c) + _based_on(c)) + "\n"
