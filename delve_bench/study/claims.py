"""``RESULTS.md`` of a study: its budgets, the summary of standardised S by method and
task, links to every display, and the published claims (Rasmussen 1996 ch. 5-6;
Barrio et al. 2009 §7-8) each beside what the committed results show and the test behind
it. A claim whose methods or tasks have no results yet says so."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..report.output import write_file
from . import published as pub
from .displays import StudyView
from .spec import Study

Claim = tuple[str, Callable[[StudyView, object], str | None]]


def _tasks(view: StudyView, *methods: str, kin_puma=True):
    return [
        t
        for t in view.tasks(kin_puma_only=kin_puma)
        if all(m in t.cells and t.cells[m].has_value for m in methods)
    ]


def _bagging(view, ov) -> str | None:
    ts = _tasks(view, "mars3.6-1", "mars3.6-bag-1")
    if not ts:
        return None
    worse = [t for t in ts if t.cells["mars3.6-bag-1"].mean > t.cells["mars3.6-1"].mean]
    sig = [t for t in worse if t.pair("mars3.6-1", "mars3.6-bag-1").significant]
    return (
        f"bagging lowered the expected loss on {len(ts) - len(worse)} of {len(ts)} tasks; "
        f"of the {len(worse)} increases, {len(sig)} significant (paired t-test, p < 0.05)"
        + (f": {', '.join(t.ref.full_name for t in sig)}" if sig else "")
    )


def _lin_beats(view, ov) -> str | None:
    others = [m for m in ("gp-map-1", "gp-mc-1", "mlp-mc-1") if m in view.methods]
    ts = _tasks(view, "lin-1", *others)
    if not ts or not others:
        return None
    beats = [t for t in ts if all(t.cells["lin-1"].mean < t.cells[m].mean for m in others)]
    return (
        f"lin-1 has a lower expected loss than all of {', '.join(others)} on {len(beats)} of "
        f"{len(ts)} tasks" + (f" ({', '.join(t.ref.full_name for t in beats)})" if beats else "")
    )


def _knn_rank(view, ov) -> str | None:
    if "knn-cv-1" not in ov.average_rank:
        return None
    order = sorted(ov.average_rank, key=ov.average_rank.get)
    return (
        f"knn-cv-1's average rank is {ov.average_rank['knn-cv-1']:.2f} of {len(order)} "
        f"(place {order.index('knn-cv-1') + 1}) over {len(ov.rank_tasks)} tasks"
    )


def _gp_best(view, ov) -> str | None:
    good = [m for m in ("gp-map-1", "gp-mc-1", "mlp-mc-1") if m in view.methods]
    rest = [m for m in ("lin-1", "knn-cv-1", "mars3.6-bag-1", "mlp-ese-1") if m in view.methods]
    ts = [
        t
        for t in view.tasks(kin_puma_only=True)
        if any(t.cells[m].has_value for m in good) and all(t.cells[m].has_value for m in rest)
    ]
    if not ts or not good or not rest:
        return None
    best = [
        t
        for t in ts
        if min(t.cells[m].mean for m in good if t.cells[m].has_value)
        < min(t.cells[m].mean for m in rest)
    ]
    return (
        f"the best of {', '.join(good)} beats the best of {', '.join(rest)} on "
        f"{len(best)} of {len(ts)} kin/pumadyn tasks"
    )


def _mc_vs_ese(view, ov) -> str | None:
    snaps = sorted(
        (n for r in view.reports for n in r.methods if n.startswith("mlp-mc-1@")),
        key=lambda n: float(n.split("@")[1]),
    )
    if not snaps:
        return None
    s = snaps[0]
    ts = _tasks(view, s, "mlp-ese-1")
    if not ts:
        return None
    wins = [t for t in ts if t.cells[s].mean < t.cells["mlp-ese-1"].mean]
    return f"{s} (the shortest snapshot) has a lower expected loss than mlp-ese-1 on {len(wins)} of {len(ts)} tasks"


def _convergence(view, ov) -> str | None:
    out = []
    for m in ("gp-mc-1", "mlp-mc-1"):
        names = sorted(
            {n for r in view.reports for n in r.methods if n.startswith(f"{m}@")},
            key=lambda n: float(n.split("@")[1]),
        )
        if not names:
            continue
        last = names[-1]
        ts = _tasks(view, last, m)
        if not ts:
            continue
        ratio = [t.cells[m].mean / t.cells[last].mean for t in ts]
        g = math.exp(float(np.mean(np.log(ratio))))
        out.append(
            f"{m}: loss at the full budget / at {last.split('@')[1]} of it = {g:.3f} "
            f"(geometric mean over {len(ts)} tasks)"
        )
    return "; ".join(out) or None


def _boston(view, ov) -> str | None:
    ts = [t for t in view.tasks() if t.ref.dataset == "boston"]
    kp = view.tasks(kin_puma_only=True)
    if not ts:
        return None

    def frac(tasks):
        pairs = [
            p
            for t in tasks
            for p in t.pairs.values()
            if p.comparison and p.a in view.methods and p.b in view.methods
        ]
        return sum(p.significant for p in pairs), len(pairs)

    s, n = frac(ts)
    s2, n2 = frac(kp)
    tail = f"; on kin/pumadyn {s2} of {n2} ({100 * s2 / n2:.0f} %)" if n2 else ""
    return f"on boston {s} of {n} method pairs differ significantly ({100 * s / max(n, 1):.0f} %){tail}"


def _family(view, ov) -> str | None:
    tasks = view.tasks(kin_puma_only=True)
    out = []
    for m in ("mars3.6-bag-1", "mlp-ese-1"):
        if m not in view.methods:
            continue
        ranks = {}
        for fam in ("kin", "pumadyn"):
            ts = [t for t in tasks if t.ref.dataset.startswith(fam + "-")]
            r = [t.ranks_among(view.methods).get(m) for t in ts]
            r = [x for x in r if x is not None]
            if r:
                ranks[fam] = float(np.mean(r))
        if len(ranks) == 2:
            out.append(f"{m} mean rank kin {ranks['kin']:.2f}, pumadyn {ranks['pumadyn']:.2f}")
    return "; ".join(out) or None


def _pumadyn32(view, ov) -> str | None:
    ts = [t for t in view.tasks() if t.ref.dataset == "pumadyn-32nm"]
    if not ts:
        return None
    t = min(ts, key=lambda t: t.ref.size)
    vals = {m: c.mean for m, c in t.cells.items() if m in view.methods and c.has_value}
    return f"pumadyn-32nm/std.{t.ref.size}: " + ", ".join(f"{m} {v:.3g}" for m, v in vals.items())


THESIS_CLAIMS: list[Claim] = [
    (
        "Bagging improved MARS on all but 4 of 80 tasks; no decrease was significant (Fig. 5.2).",
        _bagging,
    ),
    ("lin-1 beats gp-map-1, gp-mc-1 and mlp-mc-1 only once (kin-32fh) (§5.4).", _lin_beats),
    ("knn-cv-1 mostly does a very poor job (§5.4).", _knn_rank),
    (
        "gp-map-1, gp-mc-1 and mlp-mc-1 are consistently better than the other methods (ch. 6).",
        _gp_best,
    ),
    ("mlp-mc-1 beats mlp-ese-1 even at short run times (Fig. 5.19).", _mc_vs_ese),
    (
        "gp-mc-1 seems converged at 30 s per case; mlp-mc-1 keeps improving (Fig. 5.19).",
        _convergence,
    ),
    ("boston: large error bars and few significant differences (Figs. 5.3-5.5).", _boston),
    ("mars3.6-bag-1 does badly on kin, mlp-ese-1 badly on pumadyn (Fig. 5.16).", _family),
    (
        "pumadyn-32nm: ARD methods and MARS do very well with small training sets; lin-1 and "
        "knn-cv-1 never catch on (Fig. 5.13).",
        _pumadyn32,
    ),
]


def _barrio_rank(view, ov) -> str | None:
    ms = [m for m in pub.BARRIO_ORDER if m in view.methods]
    if not ov.tasks or len(ms) < 2:
        return None
    net = {m: ov.total_wins(m) - ov.total_losses(m) for m in ms}
    order = sorted(ms, key=lambda m: -net[m])
    return "by net significant wins: " + ", ".join(
        f"{pub.BARRIO_LABEL[m]} ({net[m]:+d})" for m in order
    )


def _ols_never(view, ov) -> str | None:
    if "ols-cv-1" not in view.methods:
        return None
    return f"ols-cv-1 was significantly better than another method on {ov.total_wins('ols-cv-1')} task-pairs"


def _sffs_smallest(view, ov) -> str | None:
    ms = ["ssge-pta10-1", "ssge-pta21-1", "ssge-sffs-1", "ssge-oscil5-1", "rvm-1"]
    ts = [t for t in view.tasks() if t.ref.size == 1024]
    sizes = {}
    for m in ms:
        v = [x.get("info", {}).get("n_basis") for t in ts for x in view.metas(m, t)]
        v = [x for x in v if x is not None]
        if v:
            sizes[m] = float(np.mean(v))
    if len(sizes) < 2:
        return None
    return "mean #BF at n = 1024: " + ", ".join(
        f"{pub.BARRIO_LABEL[m]} {v:.1f}" for m, v in sorted(sizes.items(), key=lambda kv: kv[1])
    )


BARRIO_CLAIMS: list[Claim] = [
    (
        "Generalisation: ABF best, then Oscil(5) and PTA(1,0), PTA(2,1) and the SVM, the RVM, "
        "SFFS and finally OLS (§7, Table 2).",
        _barrio_rank,
    ),
    ("OLS is never significantly better than any method (Table 2).", _ols_never),
    (
        "Among the SSGEs, SFFS finds the smallest models; SFFS and the RVM are the sparsest "
        "(Tables 4, 7).",
        _sffs_smallest,
    ),
]


def _summary(view: StudyView) -> list[str]:
    ms = view.methods
    lines = ["| task | " + " | ".join(ms) + " |", "|---|" + "---:|" * len(ms)]
    for r in view.reports:
        for t in r.tasks:
            if not any(m in t.cells for m in ms):
                continue
            cells = []
            for m in ms:
                c = t.cells.get(m)
                cells.append(f"{c.mean:.3g}" if c is not None and c.has_value else "–")
            lines.append(f"| {t.ref.full_name} | " + " | ".join(cells) + " |")
    return lines


# per-prototask tables are linked from the diagrams' reports, not listed as displays
_PER_PROTOTASK = ("kin-", "pumadyn-", "boston-", "bank-")

# what each figure shows, by file stem (the thesis' numbering); a table's title is its
# own first line
_FIGURE_TITLES = {
    "anytime": "Fig. 5.19: accuracy against CPU time, from the snapshots",
    "geometric-5-14": "Fig. 5.14: geometric average by number of inputs",
    "geometric-5-15": "Fig. 5.15: geometric average by linearity",
    "geometric-5-16": "Fig. 5.16: geometric average by family",
    "geometric-5-17": "Fig. 5.17: geometric average by noise",
}


def _display_title(out: Path, f: str) -> str:
    """What display ``f`` (relative to ``out``) shows, for its link in RESULTS.md."""
    if f.endswith(".md"):
        first = (out / f).read_text().split("\n", 1)[0].lstrip("# ").strip()
        return first or f
    return _FIGURE_TITLES.get(Path(f).stem, f)


def write_results_md(study: Study, view: StudyView, ov, out: Path, files: list[str]) -> str:
    """Write ``RESULTS.md``; returns its name."""
    lines = [f"# Study `{study.name}`", ""]
    if study.description:
        lines += [study.description, ""]
    lines += [
        "## Budgets",
        "",
        "| method | budget mode | time scale | snapshots | sizes skipped |",
        "|---|---|---:|---|---|",
    ]
    for p in study.methods:
        lines.append(
            f"| {p.name} | {p.budget_mode} | {p.time_scale:g} | "
            f"{', '.join(format(f, 'g') for f in p.snapshots) or '–'} | "
            f"{', '.join(map(str, p.skip_sizes)) or '–'} |"
        )
    lines += ["", "## Standardised squared error (S) by method and task", ""]
    lines += _summary(view)
    lines += [
        "",
        "Expected loss divided by the variance of the task's test targets; ± SE, "
        "ranks and paired tests in `tables/summary-S.md` and the per-prototask tables.",
        "",
    ]
    plots = sorted(f for f in files if "plots/" in f and f.endswith(".png"))
    if plots:
        lines += ["## DELVE diagrams", ""]
        for f in plots:
            # a prototask with more losses has a report of its own (boston: S, A, L)
            sub = f.split("/plots/")[0] if "/plots/" in f else ""
            lines.append(f"* [{Path(f).stem}]({f})" + (f" (report `{sub}/`)" if sub else ""))
        lines.append("")
    shown = sorted(
        f
        for f in files
        if (f.startswith("tables/") and f.endswith(".md"))
        or (f.startswith("figures/") and f.endswith(".png"))
    )
    shown = [f for f in shown if not Path(f).stem.startswith(_PER_PROTOTASK)]
    if shown:
        lines += ["## Displays", ""]
        lines += [f"* [{_display_title(out, f)}]({f})" for f in shown]
        lines.append("")
    claims = [
        *(THESIS_CLAIMS if "thesis" in study.claims else []),
        *(BARRIO_CLAIMS if "barrio" in study.claims else []),
    ]
    if claims:
        lines += [
            "## Published claims and what these results show",
            "",
            "| claim | these results |",
            "|---|---|",
        ]
        for text, fn in claims:
            try:
                shown_ = fn(view, ov)
            except (KeyError, AttributeError, ValueError, ZeroDivisionError):
                shown_ = None
            lines.append(f"| {text} | {shown_ or 'not enough results yet'} |")
        lines.append("")
    write_file(out / "RESULTS.md", ("\n".join(lines) + "\n").encode())
    return "RESULTS.md"
