"""The claims of Rasmussen (1996), chapters 5 and 6, each with its rule.

The thesis compares seven methods (``FIELD``); mars3.6-1 is in the study for the bagging
table (Fig. 5.2) only, so every other rule ranks, medians and counts among ``FIELD``.
gp-mc-1 was not run at n = 1024 (as in the thesis): rules compare the methods present on
each task, with ranks scaled to 0 (best) .. 1 (worst).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...analysis.collect import THESIS_ORDER, TaskReport
from ...analysis.overview import Overview
from .. import published as pub
from ..displays import StudyView
from .base import (
    AGREES,
    DISAGREES,
    PARTLY,
    Claim,
    Finding,
    NotEnough,
    by_share,
    combine,
    gmean,
    has,
    loss,
    matched,
    median_of,
    names,
    norm_ranks,
    rel_se,
    sig,
    snapshots,
    tasks_with,
)

if TYPE_CHECKING:
    from ...stats.results import Comparison

FIELD = THESIS_ORDER  # the thesis' seven methods, in its display order
GOOD = ("gp-map-1", "gp-mc-1", "mlp-mc-1")
REST = ("lin-1", "knn-cv-1", "mars3.6-bag-1", "mlp-ese-1")
SIZES = pub.SIZES


def _field(view: StudyView) -> list[str]:
    return [m for m in FIELD if m in view.methods]


def _others(view: StudyView, m: str) -> list[str]:
    return [o for o in _field(view) if o != m]


def _r(t: TaskReport, view: StudyView) -> dict[str, float]:
    return norm_ranks(t, _field(view))


# ---- Fig. 5.2: bagging ----------------------------------------------------------------


def _bagging(view: StudyView, ov: Overview) -> Finding | None:
    ts = tasks_with(view, "mars3.6-1", "mars3.6-bag-1")
    if not ts:
        return None
    worse = [t for t in ts if loss(t, "mars3.6-bag-1") > loss(t, "mars3.6-1")]
    bad = [t for t in worse if sig(t, "mars3.6-1", "mars3.6-bag-1")]
    return Finding(
        f"bagging lowered the expected loss on {len(ts) - len(worse)} of {len(ts)} tasks; "
        f"of the {len(worse)} increases, {len(bad)} significant"
        + (f" ({names(bad)})" if bad else ""),
        "paired t-test per task, p < 0.05; agrees: no significant increase and at most 10 % "
        "of tasks worse",
        AGREES
        if not bad and len(worse) <= 0.1 * len(ts)
        else PARTLY
        if len(bad) <= 0.05 * len(ts)
        else DISAGREES,
    )


def _bagging_trend(view: StudyView, ov: Overview) -> Finding | None:
    ts = tasks_with(view, "mars3.6-1", "mars3.6-bag-1")
    if not ts:
        return None
    r = {
        n: float(
            np.mean(
                [
                    100 * (loss(t, "mars3.6-1") - loss(t, "mars3.6-bag-1")) / loss(t, "mars3.6-1")
                    for t in ts
                    if t.ref.size == n
                ]
            )
        )
        for n in SIZES
        if any(t.ref.size == n for t in ts)
    }
    small = [t for t in ts if t.ref.size <= 256]
    good = [
        t
        for t in small
        if loss(t, "mars3.6-bag-1") < loss(t, "mars3.6-1") and sig(t, "mars3.6-1", "mars3.6-bag-1")
    ]
    ns = sorted(r)
    falling = all(r[a] > r[b] for a, b in zip(ns[:-1], ns[1:], strict=True))
    return Finding(
        "mean r = 100 (L_plain - L_bagged) / L_plain by size: "
        + ", ".join(f"{n} {r[n]:.1f}" for n in ns)
        + f" (published {', '.join(f'{x:g}' for x in pub.THESIS_BAGGING_AVERAGE)}); "
        f"significant improvements on {len(good)} of {len(small)} tasks with n <= 256",
        "agrees: r falls with every doubling of n and bagging is significantly better on half "
        "the tasks with n <= 256; partly: r larger at the smallest size than at the largest",
        AGREES
        if falling and len(good) >= 0.5 * len(small)
        else PARTLY
        if len(ns) > 1 and r[ns[0]] > r[ns[-1]]
        else DISAGREES,
    )


# ---- §5.4 and chapter 6: who wins -------------------------------------------------------


def _lin_beats(view: StudyView, ov: Overview) -> Finding | None:
    ts = tasks_with(view, "lin-1", "gp-map-1", "mlp-mc-1")
    if not ts:
        return None
    beats = [t for t in ts if all(loss(t, "lin-1") < loss(t, m) for m in GOOD if has(t, m))]
    return Finding(
        f"lin-1 has a lower expected loss than each of {', '.join(GOOD)} present on "
        f"{len(beats)} of {len(ts)} kin/pumadyn tasks" + (f" ({names(beats)})" if beats else ""),
        "expected loss per task; agrees: at most one task, partly: at most 10 %",
        AGREES if len(beats) <= 1 else PARTLY if len(beats) <= 0.1 * len(ts) else DISAGREES,
    )


def _knn_rank(view: StudyView, ov: Overview) -> Finding | None:
    ts = view.tasks(kin_puma_only=True)
    ranks: dict[str, list[float]] = {m: [] for m in _field(view)}
    for t in ts:
        for m, x in _r(t, view).items():
            ranks[m].append(x)
    mean = {m: float(np.mean(v)) for m, v in ranks.items() if v}
    if "knn-cv-1" not in mean:
        return None
    order = sorted(mean, key=lambda m: mean[m])
    place = order.index("knn-cv-1") + 1
    return Finding(
        f"knn-cv-1's mean scaled rank is {mean['knn-cv-1']:.2f} (0 best, 1 worst; place "
        f"{place} of {len(order)}) over {len(ranks['knn-cv-1'])} kin/pumadyn tasks",
        "rank of expected loss among the thesis' methods present on each task; agrees: last "
        "or second to last",
        AGREES if place >= len(order) - 1 else PARTLY if place > len(order) / 2 else DISAGREES,
    )


def _gp_best(view: StudyView, ov: Overview) -> Finding | None:
    rest = [m for m in REST if m in view.methods]
    ts = tasks_with(view, *rest)
    shares = {}
    for g in GOOD:
        mine = [t for t in ts if has(t, g)]
        if mine:
            won = sum(loss(t, g) < min(loss(t, m) for m in rest) for t in mine)
            shares[g] = (won, len(mine))
    if not shares or not rest:
        return None
    verdict = combine(by_share(k, n, 0.9, 0.6) for k, n in shares.values())
    return Finding(
        f"each beats the best of {', '.join(rest)} on: "
        + ", ".join(f"{g} {k} of {n}" for g, (k, n) in shares.items())
        + " kin/pumadyn tasks",
        "expected loss per task; each method on its own: agrees 90 % of tasks, partly 60 %; "
        "the claim agrees when all three do",
        verdict,
    )


def _mc_vs_ese(view: StudyView, ov: Overview) -> Finding | None:
    snaps = snapshots(view, "mlp-mc-1")
    if not snaps:
        return None
    s = snaps[0]
    ts = tasks_with(view, s, "mlp-ese-1")
    if not ts:
        return None
    wins = [t for t in ts if loss(t, s) < loss(t, "mlp-ese-1")]
    won_sig = [t for t in wins if sig(t, s, "mlp-ese-1")]
    cpu = {
        m: sum(x.get("fit_cpu_seconds") or 0.0 for t in ts for x in view.metas(m, t))
        for m in (s, "mlp-ese-1")
    }
    ratio = (
        f"; its training CPU is {cpu[s] / cpu['mlp-ese-1']:.2f} times mlp-ese-1's"
        if cpu[s] and cpu["mlp-ese-1"]
        else ""
    )
    return Finding(
        f"{s} (the shortest snapshot) has a lower expected loss than mlp-ese-1 on "
        f"{len(wins)} of {len(ts)} tasks ({len(won_sig)} significant){ratio}",
        "expected loss per task, paired t-test p < 0.05; agrees: 75 % of tasks, partly: 50 %",
        by_share(len(wins), len(ts), 0.75, 0.5),
    )


def _gain(view: StudyView, m: str, size: int) -> tuple[float, str, int] | None:
    """Geometric mean over the kin/pumadyn tasks of size ``size`` of
    loss(full budget) / loss(longest snapshot)."""
    snaps = snapshots(view, m)
    ts = [t for t in tasks_with(view, snaps[-1], m) if t.ref.size == size] if snaps else []
    if not ts:
        return None
    return gmean(loss(t, m) / loss(t, snaps[-1]) for t in ts), snaps[-1], len(ts)


def _convergence(view: StudyView, ov: Overview) -> Finding | None:
    gains = {m: g for m in ("gp-mc-1", "mlp-mc-1") if (g := _gain(view, m, 64))}
    if not gains:
        return None
    gp_flat = "gp-mc-1" in gains and gains["gp-mc-1"][0] >= 0.97
    mlp_gains = "mlp-mc-1" in gains and gains["mlp-mc-1"][0] < min(
        0.97, gains.get("gp-mc-1", (1.0,))[0]
    )
    return Finding(
        "at n = 64, loss at the full budget / at the last snapshot: "
        + "; ".join(
            f"{m} {g:.3f} ({at.split('@')[1]} of the budget; {k} tasks)"
            for m, (g, at, k) in gains.items()
        ),
        "geometric mean over the n = 64 tasks (the thesis extended the smallest runs); "
        "converged: the last stretch lowers the loss by less than 3 %; agrees: gp-mc-1 "
        "converged and mlp-mc-1 gains more",
        AGREES if gp_flat and mlp_gains else PARTLY if gp_flat or mlp_gains else DISAGREES,
    )


def _snapshots_improve(view: StudyView, ov: Overview) -> Finding | None:
    out, verdicts = [], []
    for m in ("gp-mc-1", "mlp-mc-1"):
        snaps = snapshots(view, m)
        ts = tasks_with(view, snaps[0], m) if snaps else []
        if not ts:
            continue
        better = sum(loss(t, m) < loss(t, snaps[0]) for t in ts)
        g = gmean(loss(t, snaps[0]) / loss(t, m) for t in ts)
        out.append(f"{m}: {better} of {len(ts)} tasks (loss ratio {g:.3f})")
        verdicts.append(by_share(better, len(ts), 0.75, 0.5))
    if not out:
        return None
    return Finding(
        "the full run has a lower loss than the shortest snapshot (1/16 of the time) on "
        + "; ".join(out),
        "expected loss per task (a converged sampler may tie: the ratio shows by how much); "
        "agrees: 75 % of tasks for each method, partly: 50 %",
        combine(verdicts),
    )


def _gp_mc_short_512(view: StudyView, ov: Overview) -> Finding | None:
    snaps = snapshots(view, "gp-mc-1")
    if not snaps:
        return None
    s = snaps[0]
    by = {(t.ref.dataset, t.ref.size): t for t in tasks_with(view, s)}
    protos = sorted({ds for ds, n in by if (ds, 256) in by and (ds, 512) in by})
    if not protos:
        return None
    worse = [ds for ds in protos if loss(by[(ds, 512)], s) > loss(by[(ds, 256)], s)]
    return Finding(
        f"{s} (a budget proportional to n) has a higher loss at n = 512 than at 256 on "
        f"{len(worse)} of {len(protos)} prototasks" + (f" ({', '.join(worse)})" if worse else ""),
        "expected loss; agrees: half the prototasks, partly: a quarter",
        by_share(len(worse), len(protos), 0.5, 0.25),
    )


def _recommend(view: StudyView, ov: Overview) -> Finding | None:
    small = [t for t in tasks_with(view, "gp-mc-1", "gp-map-1") if t.ref.size == 64]
    if not small:
        return None
    best = [
        t
        for t in small
        if loss(t, "gp-mc-1") < min(loss(t, m) for m in ("gp-map-1", "mlp-mc-1") if has(t, m))
    ]
    mid = [
        t
        for t in tasks_with(view, "gp-map-1")
        if 128 <= t.ref.size and (has(t, "gp-mc-1") or has(t, "mlp-mc-1"))
    ]
    g = (
        gmean(
            loss(t, "gp-map-1") / min(loss(t, m) for m in ("gp-mc-1", "mlp-mc-1") if has(t, m))
            for t in mid
        )
        if mid
        else None
    )
    ok = [len(best) >= 0.75 * len(small), g is not None and g <= 1.1]
    return Finding(
        f"at n = 64 gp-mc-1 has the lowest loss of the three GP/MC methods on {len(best)} of "
        f"{len(small)} tasks"
        + (
            f"; for n >= 128 gp-map-1's loss / the better of gp-mc-1 and mlp-mc-1 = {g:.3f} "
            f"(geometric mean over {len(mid)} tasks)"
            if g is not None
            else ""
        ),
        "agrees: gp-mc-1 best on 75 % of the n = 64 tasks and gp-map-1 within 10 % above; "
        "partly: one of the two",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _mlp_mc_1024(view: StudyView, ov: Overview) -> Finding | None:
    ts = [t for t in tasks_with(view, "mlp-mc-1", "gp-map-1") if t.ref.size == 1024]
    if not ts:
        return None
    wins = [t for t in ts if loss(t, "mlp-mc-1") < loss(t, "gp-map-1")]
    return Finding(
        f"at n = 1024 mlp-mc-1 has a lower expected loss than gp-map-1 on {len(wins)} of "
        f"{len(ts)} tasks ({sum(sig(t, 'mlp-mc-1', 'gp-map-1') for t in wins)} significant)",
        "the thesis says 'may be better'; agrees: half the tasks, partly: a quarter",
        by_share(len(wins), len(ts), 0.5, 0.25),
    )


# ---- §5.3: boston -----------------------------------------------------------------------


def _pairs(view: StudyView, boston: bool):
    field = _field(view)
    return [
        (t, p)
        for t in view.tasks(kin_puma_only=not boston)
        if (t.ref.dataset == "boston") == boston
        for p in t.pairs.values()
        if p.comparison and p.a in field and p.b in field
    ]


def _boston(view: StudyView, ov: Overview) -> Finding | None:
    b, kp = _pairs(view, True), _pairs(view, False)
    if not b or not kp:
        return None
    s, n = sum(p.significant for _, p in b), len(b)
    s2, n2 = sum(p.significant for _, p in kp), len(kp)
    return Finding(
        f"on boston {s} of {n} method pairs differ significantly ({100 * s / n:.0f} %); "
        f"on kin/pumadyn {s2} of {n2} ({100 * s2 / n2:.0f} %)",
        "share of pairs with p < 0.05 (quasi-F on boston, t-test on kin/pumadyn); agrees: "
        "boston's share is at most half of kin/pumadyn's",
        AGREES if s / n <= 0.5 * s2 / n2 else PARTLY if s / n < s2 / n2 else DISAGREES,
    )


def _boston_10_20(view: StudyView, ov: Overview) -> Finding | None:
    def rel(c: Comparison) -> float:
        return abs(c.mean_a - c.mean_b) / max(c.mean_a, c.mean_b)

    pairs = [p for _, p in _pairs(view, True) if p.comparison and 0.10 <= rel(p.comparison) <= 0.20]
    if not pairs:
        return None
    ns = sum(not p.significant for p in pairs)
    return Finding(
        f"of the {len(pairs)} boston pairs whose expected losses differ by 10-20 %, "
        f"{ns} are not significant",
        "quasi-F test, p < 0.05; agrees: at least half not significant",
        by_share(ns, len(pairs), 0.5, 0.25),
    )


def _boston_lin_knn(view: StudyView, ov: Overview) -> Finding | None:
    low = [m for m in ("lin-1", "knn-cv-1") if m in view.methods]
    others = [m for m in _field(view) if m not in low]
    cases = [
        (t, x, o)
        for t in view.tasks()
        if t.ref.dataset == "boston"
        for x in low
        for o in others
        if has(t, x) and has(t, o)
    ]
    if not cases:
        return None
    lower = [(t, x, o) for t, x, o in cases if loss(t, x) < loss(t, o)]
    won = [c for c in lower if sig(*c)]
    return Finding(
        f"lin-1 or knn-cv-1 has the lower expected loss in {len(lower)} of {len(cases)} "
        f"comparisons with the other methods on boston ({len(won)} significant)"
        + (
            "; " + ", ".join(f"{x} < {o} at {t.ref.size}" for t, x, o in lower[:6]) if lower else ""
        ),
        "expected loss (S) per task; agrees: never, partly: only without significance",
        AGREES if not lower else PARTLY if not won else DISAGREES,
    )


def _boston_ese_map(view: StudyView, ov: Overview) -> Finding | None:
    better = [m for m in ("mars3.6-bag-1", *GOOD, "mlp-ese-1") if m in view.methods]
    two = {"mlp-ese-1", "gp-map-1"}
    mine = [
        (t, p)
        for t, p in _pairs(view, True)
        if p.a in better and p.b in better and len(two & {p.a, p.b}) == 1
    ]
    if not mine:
        return None
    wins = [(t, p) for t, p in mine if p.significant and p.winner in two]
    between = [(t, p) for t, p in _pairs(view, True) if {p.a, p.b} == two and p.significant]
    return Finding(
        f"mlp-ese-1 or gp-map-1 won significantly in {len(wins)} of {len(mine)} boston "
        f"comparisons with {', '.join(m for m in better if m not in two)}"
        + (
            "; " + ", ".join(f"{p.winner} over {p.loser} at {t.ref.size}" for t, p in wins[:6])
            if wins
            else ""
        )
        + (
            f" (between themselves: {', '.join(f'{p.winner} at {t.ref.size}' for t, p in between)})"
            if between
            else ""
        ),
        "quasi-F test, p < 0.05, against the other better methods; agrees: no win, partly: "
        "at most 10 %",
        AGREES if not wins else PARTLY if len(wins) <= 0.1 * len(mine) else DISAGREES,
    )


# ---- Figs. 5.14-5.17 (matched prototasks) and §5.4 ---------------------------------------


def _relative(t: TaskReport, view: StudyView, m: str) -> float:
    """``m``'s expected loss over the median of the other methods of the field on ``t``."""
    return loss(t, m) / median_of(t, _others(view, m))


_MATCHED_TEST = (
    "loss relative to the median of the thesis' other methods, on matched tasks (same size, "
    "datasets differing only in that characteristic); agrees: higher on 75 % of the pairs, "
    "partly: 50 %"
)


def _field_claim(view: StudyView, parts: list[tuple[str, int, str, str, str]]) -> Finding | None:
    """Figs. 5.14-5.17 compare each method with the field across the two values of one
    characteristic, on geometric averages of the loss; the thesis' advice for reading them
    is to compare each method with the field. A method's loss over the field's median keeps
    the size of the difference, which a rank loses where the weaker methods fail together
    (on pumadyn-32 lin-1, knn-cv-1 and mlp-ese-1 all stay above S = 0.7 up to n = 512).
    ``parts``: (method, characteristic index, worse side, better side, label)."""
    out, verdicts = [], []
    for m, idx, worse, better, label in parts:
        if m not in view.methods:
            return None
        pairs = [(a, b) for a, b in matched(view, idx, worse, better) if has(a, m) and has(b, m)]
        if not pairs:
            raise NotEnough(f"no matched tasks for {m}")
        ratio = [_relative(a, view, m) / _relative(b, view, m) for a, b in pairs]
        k = sum(r > 1 for r in ratio)
        out.append(
            f"{m}'s loss relative to the median of the other methods is higher {label} on "
            f"{k} of {len(pairs)} matched pairs (geometric mean ratio {gmean(ratio):.2f})"
        )
        verdicts.append(by_share(k, len(pairs), 0.75, 0.5))
    return Finding("; ".join(out), _MATCHED_TEST, combine(verdicts))


def _inputs(view: StudyView, ov: Overview) -> Finding | None:
    return _field_claim(view, [("mlp-ese-1", 1, "32", "8", "with 32 inputs")])


def _linearity(view: StudyView, ov: Overview) -> Finding | None:
    return _field_claim(
        view,
        [
            ("mlp-ese-1", 2, "n", "f", "on non-linear tasks"),
            ("lin-1", 2, "n", "f", "on non-linear tasks"),
        ],
    )


def _family(view: StudyView, ov: Overview) -> Finding | None:
    return _field_claim(
        view,
        [
            ("mars3.6-bag-1", 0, "kin", "pumadyn", "on kin"),
            ("mlp-ese-1", 0, "pumadyn", "kin", "on pumadyn"),
        ],
    )


def _noise(view: StudyView, ov: Overview) -> Finding | None:
    return _field_claim(view, [("knn-cv-1", 3, "m", "h", "at medium noise")])


def _knn_linear(view: StudyView, ov: Overview) -> Finding | None:
    return _field_claim(view, [("knn-cv-1", 2, "f", "n", "on fairly linear tasks")])


def _mars_vs_ese(view: StudyView, ov: Overview) -> Finding | None:
    ts = tasks_with(view, "mars3.6-bag-1", "mlp-ese-1")
    groups = {
        "non-linear": [t for t in ts if t.ref.dataset.split("-")[1][-2] == "n"],
        "32 inputs": [t for t in ts if t.ref.dataset.split("-")[1].startswith("32")],
    }
    if not all(groups.values()):
        return None
    ratio = {
        k: gmean(loss(t, "mlp-ese-1") / loss(t, "mars3.6-bag-1") for t in g)
        for k, g in groups.items()
    }
    ok = [r > 1 for r in ratio.values()]
    return Finding(
        "loss of mlp-ese-1 / mars3.6-bag-1 (geometric mean): "
        + ", ".join(f"{k} {r:.2f} ({len(groups[k])} tasks)" for k, r in ratio.items()),
        "agrees: above 1 on both groups",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


# ---- Figs. 5.6-5.13: single prototasks --------------------------------------------------


def _pumadyn32(view: StudyView, ov: Overview) -> Finding | None:
    ts = sorted(
        (
            t
            for t in tasks_with(view, "lin-1", "knn-cv-1", kin_puma=False)
            if t.ref.dataset == "pumadyn-32nm"
        ),
        key=lambda t: t.ref.size,
    )
    good = ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-bag-1")
    if not ts:
        return None
    rows, n_ok = [], 0
    for t in ts:
        have = [m for m in good if has(t, m)]
        if not have:
            raise NotEnough("no ARD method or MARS on pumadyn-32nm")
        worst = max(have, key=lambda m: loss(t, m))
        ref = min(loss(t, "lin-1"), loss(t, "knn-cv-1"))
        n_ok += loss(t, worst) <= 0.5 * ref
        rows.append(f"{t.ref.size}: {worst} {loss(t, worst):.3g} vs {ref:.3g}")
    return Finding(
        "pumadyn-32nm, worst of the ARD methods and mars3.6-bag-1 vs the better of lin-1 and "
        "knn-cv-1: " + "; ".join(rows),
        "expected loss per size; 'very well': at most half the loss of lin-1 and knn-cv-1; "
        "agrees: every size, partly: half the sizes",
        by_share(n_ok, len(ts), 1.0, 0.5),
    )


def _pumadyn32_ese(view: StudyView, ov: Overview) -> Finding | None:
    ts = {t.ref.size: t for t in view.tasks() if t.ref.dataset == "pumadyn-32nm"}
    if 1024 not in ts or 64 not in ts or not has(ts[1024], "mlp-ese-1"):
        return None
    gps = [m for m in ("gp-map-1", "gp-mc-1") if has(ts[64], m)]
    if not gps:
        return None
    ese = loss(ts[1024], "mlp-ese-1")
    above = [ese > loss(ts[64], m) for m in gps]
    return Finding(
        f"pumadyn-32nm: mlp-ese-1 at n = 1024 {ese:.3g}; at n = 64 "
        + ", ".join(f"{m} {loss(ts[64], m):.3g}" for m in gps),
        "agrees: mlp-ese-1 with 16 times the data still has a higher loss than each GP method",
        AGREES if all(above) else PARTLY if any(above) else DISAGREES,
    )


def _mc_error_bars(view: StudyView, ov: Overview) -> Finding | None:
    named = ("kin-8nm", "pumadyn-32nm", "pumadyn-32nh")
    others = _others(view, "mlp-mc-1")
    excess = {}
    for t in tasks_with(view, "mlp-mc-1"):
        if t.ref.size == 64:
            excess[t.ref.dataset] = rel_se(t, "mlp-mc-1") / float(
                np.median([rel_se(t, m) for m in others if has(t, m)])
            )
    mine = {d: excess[d] for d in named if d in excess}
    rest = [v for d, v in excess.items() if d not in named]
    if not mine or not rest:
        return None
    typical = float(np.median(rest))
    wider = sum(v > typical for v in mine.values())
    return Finding(
        "at n = 64, mlp-mc-1's SE / loss over the median of the other methods': "
        + ", ".join(f"{d} {v:.2f}" for d, v in mine.items())
        + f"; median over the other {len(rest)} prototasks {typical:.2f}",
        "agrees: above the other prototasks' median on all three named, partly: on some",
        AGREES if wider == len(mine) else PARTLY if wider else DISAGREES,
    )


def _kin_size_effect(view: StudyView, ov: Overview) -> Finding | None:
    def gain(ds: str) -> tuple[float, int] | None:
        ts = {t.ref.size: t for t in view.tasks() if t.ref.dataset == ds}
        if 64 not in ts or 1024 not in ts:
            return None
        ms = [m for m in _field(view) if has(ts[64], m) and has(ts[1024], m)]
        return gmean(loss(ts[64], m) / loss(ts[1024], m) for m in ms), len(ms)

    nm, fh = gain("kin-8nm"), gain("kin-8fh")
    if not nm or not fh:
        return None
    return Finding(
        f"loss at n = 64 / at n = 1024 (geometric mean over methods): kin-8nm {nm[0]:.2f} "
        f"({nm[1]} methods), kin-8fh {fh[0]:.2f} ({fh[1]} methods)",
        "agrees: the ratio is larger on kin-8nm",
        AGREES if nm[0] > fh[0] else DISAGREES,
    )


def _lin_small_32(view: StudyView, ov: Overview) -> Finding | None:
    ts = {t.ref.size: t for t in view.tasks() if t.ref.dataset == "kin-32fh"}
    if 64 not in ts or 1024 not in ts:
        return None
    others = _others(view, "lin-1")
    small = loss(ts[64], "lin-1") / median_of(ts[64], others)
    large = loss(ts[1024], "lin-1") / median_of(ts[1024], others)
    return Finding(
        f"kin-32fh: lin-1's loss / the median of the other methods' at n = 64 {small:.2f}, "
        f"at n = 1024 {large:.2f}",
        "agrees: larger at n = 64 and above 1 there",
        AGREES if small > large and small > 1 else PARTLY if small > large else DISAGREES,
    )


_ALL = FIELD
CLAIMS: list[Claim] = [
    Claim(
        "Bagging improved MARS on all but 4 of 80 tasks; no increase in loss was significant "
        "(Fig. 5.2).",
        ("mars3.6-1", "mars3.6-bag-1"),
        _bagging,
    ),
    Claim(
        "Bagging helps most with small training sets: the mean improvement falls from 25 % at "
        "n = 64 to 4 % at 1024 (Fig. 5.2).",
        ("mars3.6-1", "mars3.6-bag-1"),
        _bagging_trend,
    ),
    Claim(
        "lin-1 beats gp-map-1, gp-mc-1 and mlp-mc-1 only once (kin-32fh) (§5.4).",
        ("lin-1", "gp-map-1", "mlp-mc-1"),
        _lin_beats,
        ("gp-mc-1",),
    ),
    Claim("knn-cv-1 mostly does a very poor job (§5.4).", ("knn-cv-1",), _knn_rank, _ALL),
    Claim(
        "gp-map-1, gp-mc-1 and mlp-mc-1 are consistently better than the other methods (ch. 6).",
        _ALL,
        _gp_best,
    ),
    Claim(
        "mlp-mc-1 beats mlp-ese-1 even at short run times (Fig. 5.19).",
        ("mlp-mc-1", "mlp-ese-1"),
        _mc_vs_ese,
    ),
    Claim(
        "Every method improves with more time (Fig. 5.19).",
        ("gp-mc-1", "mlp-mc-1"),
        _snapshots_improve,
    ),
    Claim(
        "gp-mc-1 seems converged at 30 s per case; mlp-mc-1 keeps improving (Fig. 5.19, the "
        "smallest tasks).",
        ("gp-mc-1", "mlp-mc-1"),
        _convergence,
    ),
    Claim(
        "At short run times proportional to n, gp-mc-1 does worse with 512 cases than with 256 "
        "(Fig. 5.19).",
        ("gp-mc-1",),
        _gp_mc_short_512,
    ),
    Claim(
        "Very small training sets: try gp-mc-1; otherwise gp-map-1 is nearly as good (ch. 6).",
        ("gp-mc-1", "gp-map-1", "mlp-mc-1"),
        _recommend,
    ),
    Claim(
        "Around 1000 training cases mlp-mc-1 may be better than gp-map-1 (ch. 6).",
        ("mlp-mc-1", "gp-map-1"),
        _mlp_mc_1024,
    ),
    Claim(
        "boston: large error bars and few significant differences (Figs. 5.3-5.5).",
        REST,
        _boston,
        GOOD,
    ),
    Claim(
        "boston: differences in expected loss of 10-20 % are often not significant (§5.3).",
        REST,
        _boston_10_20,
        GOOD,
    ),
    Claim(
        "boston: lin-1 and knn-cv-1 never have a lower expected loss than the other methods "
        "(§5.3; the exceptions were under log-density loss).",
        REST,
        _boston_lin_knn,
        GOOD,
    ),
    Claim(
        "boston: among the better methods, mlp-ese-1 and gp-map-1 never win significantly "
        "over the others (§5.3).",
        ("mlp-ese-1", "gp-map-1"),
        _boston_ese_map,
        ("mars3.6-bag-1", "gp-mc-1", "mlp-mc-1"),
    ),
    Claim("mlp-ese-1 struggles with 32 inputs (Fig. 5.14).", REST, _inputs, GOOD),
    Claim("mlp-ese-1 and lin-1 do poorly on non-linear tasks (Fig. 5.15).", REST, _linearity, GOOD),
    Claim(
        "mars3.6-bag-1 does badly on kin, mlp-ese-1 badly on pumadyn (Fig. 5.16).",
        REST,
        _family,
        GOOD,
    ),
    Claim("knn-cv-1 is much worse at lower noise (Fig. 5.17).", REST, _noise, GOOD),
    Claim(
        "knn-cv-1 does especially poorly on fairly linear tasks (§5.4).", REST, _knn_linear, GOOD
    ),
    Claim(
        "Against folklore, mlp-ese-1 is less desirable than mars3.6-bag-1 for non-linear and "
        "high-dimensional tasks (§5.4).",
        ("mlp-ese-1", "mars3.6-bag-1"),
        _mars_vs_ese,
    ),
    Claim(
        "mlp-mc-1 has larger error bars for small training sets on kin-8nm, pumadyn-32nm and "
        "pumadyn-32nh: its chain is slow to find the posterior peak (§5.4).",
        ("mlp-mc-1", *REST),
        _mc_error_bars,
        ("gp-map-1", "gp-mc-1"),
    ),
    Claim(
        "kin-8nm: performance improves strongly with n; on kin-8fh n matters much less "
        "(Figs. 5.6, 5.7).",
        REST,
        _kin_size_effect,
        GOOD,
    ),
    Claim(
        "lin-1 has pronounced difficulties on the smallest instances of the fairly linear "
        "32-input tasks (Fig. 5.8).",
        REST,
        _lin_small_32,
        GOOD,
    ),
    Claim(
        "pumadyn-32nm: the ARD methods and MARS do very well with small training sets; lin-1 "
        "and knn-cv-1 never catch on (Fig. 5.13).",
        ("lin-1", "knn-cv-1", "gp-map-1", "mars3.6-bag-1"),
        _pumadyn32,
        ("gp-mc-1", "mlp-mc-1"),
    ),
    Claim(
        "pumadyn-32nm: mlp-ese-1 at n = 1024 is still short of the GP methods given 1/16 of "
        "the data (Fig. 5.13).",
        ("mlp-ese-1", "gp-map-1"),
        _pumadyn32_ese,
        ("gp-mc-1",),
    ),
]

__all__ = ["CLAIMS", "FIELD", "NotEnough"]
