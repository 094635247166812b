"""The published claims a study checks (Rasmussen 1996 ch. 5-6; Barrio et al. 2009 §7-8),
each evaluated on the committed results.

A claim names the methods it is about and a function that reads the study's numbers and
returns a :class:`Finding`: what the results show, the test or rule behind it, and a
verdict (``agrees``, ``partly`` or ``disagrees``) by a rule fixed in the code, so the
verdict changes only when the results do. :func:`evaluate` marks a finding *provisional*
while any of the claim's methods still has instances to run, and gives no finding at all
while a method the claim needs has no results.

The rules are deliberately simple and are stated in each finding's ``test``; where a
claim is about a picture in the thesis (Figs. 5.14-5.17) the rule compares the method's
mean rank or relative loss between the two groups of tasks the figure contrasts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..report.collect import TaskReport
from ..report.overview import Overview
from . import published as pub
from .displays import StudyView, basis_steps, characteristic, n_basis

AGREES, PARTLY, DISAGREES = "agrees", "partly", "disagrees"


@dataclass(frozen=True)
class Finding:
    """What the committed results show about one claim.

    Parameters
    ----------
    shown : str
        The numbers, in words.
    test : str
        The test or rule that gives the verdict.
    verdict : str
        ``agrees``, ``partly`` or ``disagrees``.
    """

    shown: str
    test: str
    verdict: str


@dataclass(frozen=True)
class Claim:
    """A published claim, the methods it is about (``needs``: without results for every
    one of them there is no finding) and the function that evaluates it."""

    text: str
    needs: tuple[str, ...]
    evaluate: Callable[[StudyView, Overview], Finding | None]
    #: methods the claim also reads when present (a finding is provisional while any of
    #: them is incomplete)
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evaluated:
    """A claim with its finding (None: not enough results yet) and, while the claim's
    methods are incomplete, how many of their planned task cells are done."""

    claim: Claim
    finding: Finding | None
    done: int
    planned: int

    @property
    def provisional(self) -> bool:
        return self.finding is not None and self.done < self.planned

    @property
    def verdict(self) -> str:
        if self.finding is None:
            return "not enough results yet"
        if self.provisional:
            return (
                f"{self.finding.verdict} (provisional: {self.done} of {self.planned} task results)"
            )
        return self.finding.verdict


def _by_share(k: int, n: int, agree: float, partly: float) -> str:
    share = k / n if n else 0.0
    return AGREES if share >= agree else PARTLY if share >= partly else DISAGREES


def _loss(t: TaskReport, m: str) -> float:
    """Standardised expected loss of ``m`` on ``t`` (callers check it has a value)."""
    v = t.cells[m].mean
    if v is None:
        raise ValueError(f"{m} has no value on {t.ref.full_name}")
    return v


def _sig(t: TaskReport, a: str, b: str) -> bool:
    """Whether the paired test of ``a`` and ``b`` on ``t`` is significant."""
    p = t.pair(a, b)
    return p is not None and p.significant


def _tasks(view: StudyView, *methods: str, kin_puma: bool = True) -> list[TaskReport]:
    """Tasks on which every one of ``methods`` has a value."""
    return [
        t
        for t in view.tasks(kin_puma_only=kin_puma)
        if all(m in t.cells and t.cells[m].has_value for m in methods)
    ]


def _complete(view: StudyView, methods: Iterable[str], tasks: list[TaskReport]) -> list[str]:
    """Those of ``methods`` with a value on every one of ``tasks``."""
    return [m for m in methods if all(m in t.cells and t.cells[m].has_value for t in tasks)]


def _gmean(x: Iterable[float]) -> float:
    v = np.asarray(list(x), dtype=float)
    return math.exp(float(np.mean(np.log(v))))


def _mean_rank(view: StudyView, m: str, tasks: list[TaskReport], among: list[str]) -> float:
    return float(np.mean([t.ranks_among(among)[m] for t in tasks]))


def _names(tasks: Iterable[TaskReport]) -> str:
    return ", ".join(t.ref.full_name for t in tasks)


# ---- Rasmussen (1996), chapter 5 --------------------------------------------------------


def _bagging(view: StudyView, ov: Overview) -> Finding | None:
    ts = _tasks(view, "mars3.6-1", "mars3.6-bag-1")
    if not ts:
        return None
    worse = [t for t in ts if _loss(t, "mars3.6-bag-1") > _loss(t, "mars3.6-1")]
    sig = [t for t in worse if _sig(t, "mars3.6-1", "mars3.6-bag-1")]
    shown = (
        f"bagging lowered the expected loss on {len(ts) - len(worse)} of {len(ts)} tasks; "
        f"of the {len(worse)} increases, {len(sig)} significant"
        + (f" ({_names(sig)})" if sig else "")
    )
    verdict = (
        AGREES
        if not sig and len(worse) <= 0.1 * len(ts)
        else PARTLY
        if len(sig) <= 0.05 * len(ts)
        else DISAGREES
    )
    return Finding(
        shown,
        "paired t-test per task, p < 0.05; agrees: no significant increase and at most 10 % "
        "of tasks worse",
        verdict,
    )


def _lin_beats(view: StudyView, ov: Overview) -> Finding | None:
    others = [m for m in ("gp-map-1", "gp-mc-1", "mlp-mc-1") if m in view.methods]
    ts = _tasks(view, "lin-1", *others)
    if not ts:
        return None
    beats = [t for t in ts if all(_loss(t, "lin-1") < _loss(t, m) for m in others)]
    shown = (
        f"lin-1 has a lower expected loss than all of {', '.join(others)} on {len(beats)} of {len(ts)} tasks"
        + (f" ({_names(beats)})" if beats else "")
    )
    verdict = AGREES if len(beats) <= 1 else PARTLY if len(beats) <= 0.1 * len(ts) else DISAGREES
    return Finding(
        shown, "expected loss per task; agrees: at most one task, partly: at most 10 %", verdict
    )


def _knn_rank(view: StudyView, ov: Overview) -> Finding | None:
    if "knn-cv-1" not in ov.average_rank:
        return None
    order = sorted(ov.average_rank, key=lambda m: ov.average_rank[m])
    place = order.index("knn-cv-1") + 1
    shown = (
        f"knn-cv-1's average rank is {ov.average_rank['knn-cv-1']:.2f} "
        f"(place {place} of {len(order)}) over {len(ov.tasks)} tasks"
    )
    verdict = AGREES if place >= len(order) - 1 else PARTLY if place > len(order) / 2 else DISAGREES
    return Finding(
        shown,
        "average rank of expected loss over every task; agrees: last or second to last",
        verdict,
    )


def _gp_best(view: StudyView, ov: Overview) -> Finding | None:
    good = [m for m in ("gp-map-1", "gp-mc-1", "mlp-mc-1") if m in view.methods]
    rest = [m for m in ("lin-1", "knn-cv-1", "mars3.6-bag-1", "mlp-ese-1") if m in view.methods]
    ts = [
        t
        for t in view.tasks(kin_puma_only=True)
        if any(t.cells[m].has_value for m in good) and all(t.cells[m].has_value for m in rest)
    ]
    if not ts or not rest:
        return None
    best = [
        t
        for t in ts
        if min(_loss(t, m) for m in good if t.cells[m].has_value) < min(_loss(t, m) for m in rest)
    ]
    return Finding(
        f"the best of {', '.join(good)} beats the best of {', '.join(rest)} on "
        f"{len(best)} of {len(ts)} kin/pumadyn tasks",
        "expected loss per task; agrees: 90 % of tasks, partly: 60 %",
        _by_share(len(best), len(ts), 0.9, 0.6),
    )


def _shortest_snapshot(view: StudyView, method: str) -> str | None:
    snaps = {n for r in view.reports for n in r.methods if n.startswith(f"{method}@")}
    return min(snaps, key=lambda n: float(n.split("@")[1])) if snaps else None


def _mc_vs_ese(view: StudyView, ov: Overview) -> Finding | None:
    s = _shortest_snapshot(view, "mlp-mc-1")
    ts = _tasks(view, s, "mlp-ese-1") if s else []
    if not s or not ts:
        return None
    wins = [t for t in ts if _loss(t, s) < _loss(t, "mlp-ese-1")]
    sig = [t for t in wins if _sig(t, s, "mlp-ese-1")]
    return Finding(
        f"{s} (the shortest snapshot) has a lower expected loss than mlp-ese-1 on "
        f"{len(wins)} of {len(ts)} tasks ({len(sig)} significant)",
        "expected loss per task, paired t-test p < 0.05; agrees: 75 % of tasks, partly: 50 %",
        _by_share(len(wins), len(ts), 0.75, 0.5),
    )


def _gain(view: StudyView, m: str) -> tuple[float, str, int] | None:
    """Geometric mean over tasks of loss(full budget) / loss(longest snapshot)."""
    names = sorted(
        {n for r in view.reports for n in r.methods if n.startswith(f"{m}@")},
        key=lambda n: float(n.split("@")[1]),
    )
    ts = _tasks(view, names[-1], m) if names else []
    if not ts:
        return None
    return _gmean(_loss(t, m) / _loss(t, names[-1]) for t in ts), names[-1], len(ts)


def _convergence(view: StudyView, ov: Overview) -> Finding | None:
    gains = {m: g for m in ("gp-mc-1", "mlp-mc-1") if (g := _gain(view, m))}
    if not gains:
        return None
    shown = "; ".join(
        f"{m}: loss at the full budget / at {at.split('@')[1]} of it = {g:.3f} "
        f"(geometric mean over {k} tasks)"
        for m, (g, at, k) in gains.items()
    )
    gp_flat = "gp-mc-1" in gains and gains["gp-mc-1"][0] >= 0.97
    mlp_gains = "mlp-mc-1" in gains and gains["mlp-mc-1"][0] < min(
        0.97, gains.get("gp-mc-1", (1.0,))[0]
    )
    verdict = AGREES if gp_flat and mlp_gains else PARTLY if gp_flat or mlp_gains else DISAGREES
    return Finding(
        shown,
        "converged: four times the CPU time lowers the loss by less than 3 %; agrees: "
        "gp-mc-1 converged and mlp-mc-1 gains more",
        verdict,
    )


def _boston_pairs(view: StudyView, methods: list[str]):
    return [
        p
        for t in view.tasks()
        if t.ref.dataset == "boston"
        for p in t.pairs.values()
        if p.comparison and p.a in methods and p.b in methods
    ]


def _boston(view: StudyView, ov: Overview) -> Finding | None:
    ms = list(view.methods)
    pairs = _boston_pairs(view, ms)
    kp = [
        p
        for t in view.tasks(kin_puma_only=True)
        for p in t.pairs.values()
        if p.comparison and p.a in ms and p.b in ms
    ]
    if not pairs or not kp:
        return None
    s, n = sum(p.significant for p in pairs), len(pairs)
    s2, n2 = sum(p.significant for p in kp), len(kp)
    return Finding(
        f"on boston {s} of {n} method pairs differ significantly ({100 * s / n:.0f} %); "
        f"on kin/pumadyn {s2} of {n2} ({100 * s2 / n2:.0f} %)",
        "share of pairs with p < 0.05 (quasi-F on boston, t-test on kin/pumadyn); agrees: "
        "boston's share is at most half of kin/pumadyn's",
        AGREES if s / n <= 0.5 * s2 / n2 else PARTLY if s / n < s2 / n2 else DISAGREES,
    )


def _boston_10_20(view: StudyView, ov: Overview) -> Finding | None:
    def rel(c: dict) -> float:
        return abs(c["mean_a"] - c["mean_b"]) / max(c["mean_a"], c["mean_b"])

    pairs = [
        p for p in _boston_pairs(view, list(view.methods)) if 0.10 <= rel(p.comparison) <= 0.20
    ]
    if not pairs:
        return None
    ns = sum(not p.significant for p in pairs)
    return Finding(
        f"of the {len(pairs)} boston pairs whose expected losses differ by 10-20 %, "
        f"{ns} are not significant",
        "quasi-F test, p < 0.05; agrees: at least half not significant",
        _by_share(ns, len(pairs), 0.5, 0.25),
    )


def _boston_lin_knn(view: StudyView, ov: Overview) -> Finding | None:
    low = [m for m in ("lin-1", "knn-cv-1") if m in view.methods]
    others = [m for m in view.methods if m not in low]
    ts = [t for t in view.tasks() if t.ref.dataset == "boston"]
    cases = [
        (t, x, o)
        for t in ts
        for x in low
        for o in others
        if t.cells[x].has_value and t.cells[o].has_value
    ]
    if not cases or not low:
        return None
    lower = [(t, x, o) for t, x, o in cases if _loss(t, x) < _loss(t, o)]
    sig = [c for c in lower if _sig(c[0], c[1], c[2])]
    shown = (
        f"lin-1 or knn-cv-1 has the lower expected loss in {len(lower)} of {len(cases)} comparisons with the other methods on boston ({len(sig)} significant)"
        + ("; " + ", ".join(f"{x} < {o} at {t.ref.size}" for t, x, o in lower[:6]) if lower else "")
    )
    verdict = AGREES if not lower else PARTLY if not sig else DISAGREES
    return Finding(
        shown,
        "expected loss (S) per task; agrees: never, partly: only without significance",
        verdict,
    )


def _boston_ese_map(view: StudyView, ov: Overview) -> Finding | None:
    better = [m for m in ("mars3.6-bag-1", "mlp-ese-1", "gp-map-1", "gp-mc-1", "mlp-mc-1")]
    better = [m for m in better if m in view.methods]
    mine = [
        (t, p)
        for t in view.tasks()
        if t.ref.dataset == "boston"
        for p in t.pairs.values()
        if p.comparison
        and p.a in better
        and p.b in better
        and ({"mlp-ese-1", "gp-map-1"} & {p.a, p.b})
    ]
    if not mine:
        return None
    wins = [(t, p) for t, p in mine if p.significant and p.winner in ("mlp-ese-1", "gp-map-1")]
    return Finding(
        f"mlp-ese-1 or gp-map-1 won significantly in {len(wins)} of {len(mine)} boston "
        f"comparisons among {', '.join(better)}"
        + (
            "; " + ", ".join(f"{p.winner} over {p.loser} at {t.ref.size}" for t, p in wins[:6])
            if wins
            else ""
        ),
        "quasi-F test, p < 0.05; agrees: no win, partly: at most 10 %",
        AGREES if not wins else PARTLY if len(wins) <= 0.1 * len(mine) else DISAGREES,
    )


def _group_rank(view: StudyView, m: str, idx: int, a: str, b: str):
    """Mean rank of ``m`` among the methods complete on kin/pumadyn, on tasks whose
    characteristic ``idx`` is ``a`` and on those where it is ``b``."""
    tasks = view.tasks(kin_puma_only=True)
    among = _complete(view, view.methods, tasks)
    if m not in among:
        return None
    ga = [t for t in tasks if characteristic(t.ref.dataset, idx) == a]
    gb = [t for t in tasks if characteristic(t.ref.dataset, idx) == b]
    if not ga or not gb:
        return None
    return _mean_rank(view, m, ga, among), _mean_rank(view, m, gb, among), len(among)


def _family(view: StudyView, ov: Overview) -> Finding | None:
    mars = _group_rank(view, "mars3.6-bag-1", 0, "kin", "pumadyn")
    ese = _group_rank(view, "mlp-ese-1", 0, "kin", "pumadyn")
    if not mars or not ese:
        return None
    ok = [mars[0] > mars[1], ese[1] > ese[0]]
    return Finding(
        f"mean rank among {mars[2]} methods: mars3.6-bag-1 kin {mars[0]:.2f}, pumadyn {mars[1]:.2f}; "
        f"mlp-ese-1 kin {ese[0]:.2f}, pumadyn {ese[1]:.2f}",
        "mean rank of expected loss among the complete methods, by family; agrees: both "
        "ranks worse on the named family",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _inputs(view: StudyView, ov: Overview) -> Finding | None:
    r = _group_rank(view, "mlp-ese-1", 1, "8", "32")
    if not r:
        return None
    return Finding(
        f"mlp-ese-1's mean rank among {r[2]} methods: 8 inputs {r[0]:.2f}, 32 inputs {r[1]:.2f}",
        "mean rank among the complete methods; agrees: worse with 32 inputs",
        AGREES if r[1] > r[0] else DISAGREES,
    )


def _linearity(view: StudyView, ov: Overview) -> Finding | None:
    rs = {m: _group_rank(view, m, 2, "f", "n") for m in ("mlp-ese-1", "lin-1")}
    if not all(rs.values()):
        return None
    ok = [r[1] > r[0] for r in rs.values() if r]
    return Finding(
        "mean rank, fairly linear / non-linear: "
        + "; ".join(f"{m} {r[0]:.2f} / {r[1]:.2f}" for m, r in rs.items() if r),
        "mean rank among the complete methods; agrees: both worse on non-linear tasks",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _noise(view: StudyView, ov: Overview) -> Finding | None:
    tasks = view.tasks(kin_puma_only=True)
    others = [m for m in _complete(view, view.methods, tasks) if m != "knn-cv-1"]
    if "knn-cv-1" not in _complete(view, view.methods, tasks) or not others:
        return None

    def rel(level: str) -> float:
        ts = [t for t in tasks if characteristic(t.ref.dataset, 3) == level]
        return _gmean(
            _loss(t, "knn-cv-1") / float(np.median([_loss(t, o) for o in others])) for t in ts
        )

    m, h = rel("m"), rel("h")
    return Finding(
        f"knn-cv-1's loss relative to the median of the other methods: medium noise "
        f"{m:.2f}, high noise {h:.2f} (geometric means)",
        "agrees: the ratio is larger at medium noise",
        AGREES if m > h else DISAGREES,
    )


def _mars_vs_ese(view: StudyView, ov: Overview) -> Finding | None:
    ts = _tasks(view, "mars3.6-bag-1", "mlp-ese-1")
    groups = {
        "non-linear": [t for t in ts if characteristic(t.ref.dataset, 2) == "n"],
        "32 inputs": [t for t in ts if characteristic(t.ref.dataset, 1) == "32"],
    }
    if not all(groups.values()):
        return None
    ratio = {
        k: _gmean(_loss(t, "mlp-ese-1") / _loss(t, "mars3.6-bag-1") for t in g)
        for k, g in groups.items()
    }
    ok = [r > 1 for r in ratio.values()]
    return Finding(
        "loss of mlp-ese-1 / mars3.6-bag-1 (geometric mean): "
        + ", ".join(f"{k} {r:.2f} ({len(groups[k])} tasks)" for k, r in ratio.items()),
        "agrees: above 1 on both groups",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _pumadyn32(view: StudyView, ov: Overview) -> Finding | None:
    ts = [t for t in view.tasks() if t.ref.dataset == "pumadyn-32nm"]
    good = [m for m in ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1", "mars3.6-bag-1")]
    ts = [t for t in ts if t.cells["lin-1"].has_value and t.cells["knn-cv-1"].has_value]
    if not ts:
        return None
    rows, n_ok = [], 0
    for t in sorted(ts, key=lambda t: t.ref.size):
        have = [m for m in good if m in t.cells and t.cells[m].has_value]
        worst_good = max(_loss(t, m) for m in have)
        best_bad = min(_loss(t, m) for m in ("lin-1", "knn-cv-1"))
        n_ok += worst_good < best_bad
        rows.append(f"{t.ref.size}: {worst_good:.3g} vs {best_bad:.3g}")
    return Finding(
        "pumadyn-32nm, worst of the ARD methods and MARS vs best of lin-1 and knn-cv-1: "
        + "; ".join(rows),
        "expected loss per size; agrees: every size",
        _by_share(n_ok, len(ts), 1.0, 0.5),
    )


def _pumadyn32_ese(view: StudyView, ov: Overview) -> Finding | None:
    ts = {t.ref.size: t for t in view.tasks() if t.ref.dataset == "pumadyn-32nm"}
    if 1024 not in ts or 64 not in ts or not ts[1024].cells["mlp-ese-1"].has_value:
        return None
    gps = [m for m in ("gp-map-1", "gp-mc-1") if m in ts[64].cells and ts[64].cells[m].has_value]
    if not gps:
        return None
    ese = _loss(ts[1024], "mlp-ese-1")
    gp = {m: _loss(ts[64], m) for m in gps}
    return Finding(
        f"pumadyn-32nm: mlp-ese-1 at n = 1024 {ese:.3g}; at n = 64 "
        + ", ".join(f"{m} {v:.3g}" for m, v in gp.items()),
        "agrees: mlp-ese-1 with 16 times the data still has a higher loss than each GP method",
        AGREES
        if all(ese > v for v in gp.values())
        else PARTLY
        if any(ese > v for v in gp.values())
        else DISAGREES,
    )


def _small_gp_mc(view: StudyView, ov: Overview) -> Finding | None:
    ts = [t for t in _tasks(view, "gp-mc-1", "gp-map-1") if t.ref.size == 64]
    if not ts:
        return None
    wins = [t for t in ts if _loss(t, "gp-mc-1") < _loss(t, "gp-map-1")]
    sig = [t for t in wins if _sig(t, "gp-map-1", "gp-mc-1")]
    return Finding(
        f"at n = 64 gp-mc-1 has a lower expected loss than gp-map-1 on {len(wins)} of "
        f"{len(ts)} kin/pumadyn tasks ({len(sig)} significant)",
        "agrees: 75 % of tasks, partly: 50 %",
        _by_share(len(wins), len(ts), 0.75, 0.5),
    )


def _rel_se(t: TaskReport, m: str) -> float:
    c = t.cells[m]
    if c.se is None or c.mean is None:
        raise ValueError(f"{m} has no value on {t.ref.full_name}")
    return c.se / c.mean


def _mc_error_bars(view: StudyView, ov: Overview) -> Finding | None:
    protos = ("kin-8nm", "pumadyn-32nm", "pumadyn-32nh")
    ts = [t for t in _tasks(view, "mlp-mc-1", kin_puma=False) if t.ref.size == 64]
    ts = [t for t in ts if t.ref.dataset in protos]
    if not ts:
        return None
    rows, wider = [], 0
    for t in sorted(ts, key=lambda t: protos.index(t.ref.dataset)):
        others = [m for m in view.methods if m != "mlp-mc-1" and t.cells[m].has_value]
        med = float(np.median([_rel_se(t, m) for m in others]))
        wider += _rel_se(t, "mlp-mc-1") > med
        rows.append(f"{t.ref.dataset} {_rel_se(t, 'mlp-mc-1'):.2f} vs {med:.2f}")
    return Finding(
        "at n = 64, SE / expected loss of mlp-mc-1 vs the median of the other methods: "
        + "; ".join(rows),
        "agrees: wider on every one of the three, partly: on some",
        AGREES if wider == len(ts) else PARTLY if wider else DISAGREES,
    )


def _kin_size_effect(view: StudyView, ov: Overview) -> Finding | None:
    def gain(ds: str) -> tuple[float, int] | None:
        ts = {t.ref.size: t for t in view.tasks() if t.ref.dataset == ds}
        if 64 not in ts or 1024 not in ts:
            return None
        ms = [m for m in view.methods if ts[64].cells[m].has_value and ts[1024].cells[m].has_value]
        return _gmean(_loss(ts[64], m) / _loss(ts[1024], m) for m in ms), len(ms)

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

    def rel(t: TaskReport) -> float:
        others = [m for m in view.methods if m != "lin-1" and t.cells[m].has_value]
        return _loss(t, "lin-1") / float(np.median([_loss(t, m) for m in others]))

    small, large = rel(ts[64]), rel(ts[1024])
    return Finding(
        f"kin-32fh: lin-1's loss / the median of the other methods' at n = 64 {small:.2f}, "
        f"at n = 1024 {large:.2f}",
        "agrees: larger at n = 64 and above 1 there",
        AGREES if small > large and small > 1 else PARTLY if small > large else DISAGREES,
    )


_NEEDS_BASE = ("lin-1", "knn-cv-1", "mars3.6-bag-1", "mlp-ese-1")

THESIS_CLAIMS: list[Claim] = [
    Claim(
        "Bagging improved MARS on all but 4 of 80 tasks; no decrease was significant (Fig. 5.2).",
        ("mars3.6-1", "mars3.6-bag-1"),
        _bagging,
    ),
    Claim(
        "lin-1 beats gp-map-1, gp-mc-1 and mlp-mc-1 only once (kin-32fh) (§5.4).",
        ("lin-1", "gp-map-1", "gp-mc-1", "mlp-mc-1"),
        _lin_beats,
    ),
    Claim("knn-cv-1 mostly does a very poor job (§5.4).", ("knn-cv-1",), _knn_rank, _NEEDS_BASE),
    Claim(
        "gp-map-1, gp-mc-1 and mlp-mc-1 are consistently better than the other methods (ch. 6).",
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", *_NEEDS_BASE),
        _gp_best,
    ),
    Claim(
        "mlp-mc-1 beats mlp-ese-1 even at short run times (Fig. 5.19).",
        ("mlp-mc-1", "mlp-ese-1"),
        _mc_vs_ese,
    ),
    Claim(
        "gp-mc-1 seems converged at 30 s per case; mlp-mc-1 keeps improving (Fig. 5.19).",
        ("gp-mc-1", "mlp-mc-1"),
        _convergence,
    ),
    Claim(
        "Very small training sets: gp-mc-1 is the one to try; otherwise gp-map-1 is nearly "
        "as good (ch. 6).",
        ("gp-mc-1", "gp-map-1"),
        _small_gp_mc,
    ),
    Claim(
        "boston: large error bars and few significant differences (Figs. 5.3-5.5).",
        _NEEDS_BASE,
        _boston,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1"),
    ),
    Claim(
        "boston: differences in expected loss of 10-20 % are often not significant (§5.3).",
        _NEEDS_BASE,
        _boston_10_20,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1"),
    ),
    Claim(
        "boston: lin-1 and knn-cv-1 never have a lower expected loss than the other methods "
        "(§5.3; the exceptions were under log-density loss).",
        _NEEDS_BASE,
        _boston_lin_knn,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1"),
    ),
    Claim(
        "boston: among the better methods, mlp-ese-1 and gp-map-1 never win significantly (§5.3).",
        ("mlp-ese-1", "gp-map-1"),
        _boston_ese_map,
        ("mars3.6-bag-1", "gp-mc-1", "mlp-mc-1"),
    ),
    Claim(
        "mlp-ese-1 struggles with 32 inputs (Fig. 5.14).",
        _NEEDS_BASE,
        _inputs,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "mlp-ese-1 and lin-1 do poorly on non-linear tasks (Fig. 5.15).",
        _NEEDS_BASE,
        _linearity,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "mars3.6-bag-1 does badly on kin, mlp-ese-1 badly on pumadyn (Fig. 5.16).",
        _NEEDS_BASE,
        _family,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "knn-cv-1 is much worse at lower noise (Fig. 5.17).",
        _NEEDS_BASE,
        _noise,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "mlp-mc-1 has larger error bars for small training sets on kin-8nm, pumadyn-32nm and "
        "pumadyn-32nh: its chain is slow to find the posterior peak (§5.4).",
        ("mlp-mc-1", *_NEEDS_BASE),
        _mc_error_bars,
        ("gp-map-1", "gp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "kin-8nm: performance improves strongly with n; on kin-8fh n matters much less "
        "(Figs. 5.6, 5.7).",
        _NEEDS_BASE,
        _kin_size_effect,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "lin-1 has pronounced difficulties on the smallest instances of the fairly linear "
        "32-input tasks (Fig. 5.8).",
        ("lin-1", *_NEEDS_BASE),
        _lin_small_32,
        ("gp-map-1", "gp-mc-1", "mlp-mc-1", "mars3.6-1"),
    ),
    Claim(
        "Against folklore, mlp-ese-1 is less desirable than mars3.6-bag-1 for non-linear and "
        "high-dimensional tasks (§5.4).",
        ("mlp-ese-1", "mars3.6-bag-1"),
        _mars_vs_ese,
    ),
    Claim(
        "pumadyn-32nm: the ARD methods and MARS do very well with small training sets; lin-1 "
        "and knn-cv-1 never catch on (Fig. 5.13).",
        ("lin-1", "knn-cv-1", "gp-map-1", "mars3.6-1", "mars3.6-bag-1"),
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


# ---- Barrio, Romero & Belanche (2009) ---------------------------------------------------


def _complete_barrio(view: StudyView, ov: Overview) -> tuple[list[str], list[str]]:
    tasks = list(ov.tasks)
    ms = [m for m in pub.BARRIO_ORDER if m in view.methods]
    done = _complete(view, ms, tasks)
    return done, [m for m in ms if m not in done]


def _net(ov: Overview, ms: list[str]) -> dict[str, int]:
    """Net significant wins among ``ms`` only."""
    return {m: sum(ov.wins[(o, m)] - ov.wins[(m, o)] for o in ms if o != m) for m in ms}


def _kendall_tau(a: list[str], b: list[str]) -> float:
    """Kendall's tau between two orders of the same items (no ties)."""
    pos = {m: i for i, m in enumerate(b)}
    n = len(a)
    s = sum(1 if pos[a[i]] < pos[a[j]] else -1 for i in range(n) for j in range(i + 1, n))
    return s / (n * (n - 1) / 2) if n > 1 else 1.0


def _barrio_rank(view: StudyView, ov: Overview) -> Finding | None:
    ms, rest = _complete_barrio(view, ov)
    if len(ms) < 2:
        return None
    net = _net(ov, ms)
    order = sorted(ms, key=lambda m: (-net[m], pub.BARRIO_ORDER.index(m)))
    published = [m for m in pub.BARRIO_RANKING if m in ms]
    tau = _kendall_tau(order, published)
    shown = "by net significant wins: " + ", ".join(
        f"{pub.BARRIO_LABEL[m]} ({net[m]:+d})" for m in order
    )
    shown += f"; Kendall's tau with the published order {tau:.2f}"
    if rest:
        shown += f" (not yet complete: {', '.join(pub.BARRIO_LABEL[m] for m in rest)})"
    return Finding(
        shown,
        "paired t-test per task, p < 0.05, wins minus losses; agrees: tau >= 0.6 and the "
        "same best method, partly: tau >= 0.2",
        AGREES if tau >= 0.6 and order[0] == published[0] else PARTLY if tau >= 0.2 else DISAGREES,
    )


def _ols_never(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete_barrio(view, ov)
    if "ols-cv-1" not in ms or len(ms) < 2:
        return None
    w = sum(ov.wins[(o, "ols-cv-1")] for o in ms if o != "ols-cv-1")
    n = sum(ov.compared[(o, "ols-cv-1")] for o in ms if o != "ols-cv-1")
    return Finding(
        f"ols-cv-1 was significantly better than another method in {w} of {n} comparisons",
        "paired t-test, p < 0.05; agrees: never, partly: at most 2 %",
        AGREES if w == 0 else PARTLY if w <= 0.02 * n else DISAGREES,
    )


def _beat_ols(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete_barrio(view, ov)
    if "ols-cv-1" not in ms or len(ms) < 2:
        return None
    others = [m for m in ms if m != "ols-cv-1"]
    share = {m: (ov.wins[("ols-cv-1", m)], ov.compared[("ols-cv-1", m)]) for m in others}
    ok = [w >= 0.1 * n for w, n in share.values()]
    return Finding(
        "significant wins over ols-cv-1: "
        + ", ".join(f"{pub.BARRIO_LABEL[m]} {w} of {n}" for m, (w, n) in share.items()),
        "paired t-test, p < 0.05; 'often': on at least 10 % of the tasks; agrees: every "
        "method, partly: most",
        _by_share(sum(ok), len(ok), 1.0, 0.5),
    )


def _info_means(view: StudyView, value: Callable[[str, dict], float | None]) -> dict[str, float]:
    """Mean over the n = 1024 tasks and instances of ``value(method, meta)``, by method
    (methods that record it on every such task)."""
    ts = [t for t in view.tasks() if t.ref.size == 1024]
    out = {}
    for m in pub.BARRIO_ORDER:
        if m not in view.methods or not ts:
            continue
        per_task = [[v for x in view.metas(m, t) if (v := value(m, x)) is not None] for t in ts]
        if all(per_task):
            out[m] = float(np.mean([np.mean(v) for v in per_task]))
    return out


_SSGE = ("ssge-pta10-1", "ssge-pta21-1", "ssge-sffs-1", "ssge-oscil5-1")


def _sffs_smallest(view: StudyView, ov: Overview) -> Finding | None:
    sizes = {m: v for m, v in _info_means(view, n_basis).items() if m in (*_SSGE, "rvm-1", "svm-1")}
    if "ssge-sffs-1" not in sizes or "rvm-1" not in sizes:
        return None
    order = sorted(sizes, key=lambda m: sizes[m])
    ssge = [m for m in order if m in _SSGE]
    ok = [ssge[0] == "ssge-sffs-1", set(order[:2]) == {"ssge-sffs-1", "rvm-1"}]
    return Finding(
        "mean #BF at n = 1024: "
        + ", ".join(f"{pub.BARRIO_LABEL[m]} {sizes[m]:.1f}" for m in order),
        "mean of info.n_basis over the 12 tasks at n = 1024 (OLS left out, as in Table 7); "
        "agrees: SFFS smallest among the SSGEs, SFFS and the RVM the two smallest",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _oscil_size(view: StudyView, ov: Overview) -> Finding | None:
    sizes = _info_means(view, n_basis)
    if "ssge-oscil5-1" not in sizes or "ssge-pta10-1" not in sizes:
        return None
    o, p = sizes["ssge-oscil5-1"], sizes["ssge-pta10-1"]
    return Finding(
        f"mean #BF at n = 1024: Oscil(5) {o:.1f}, PTA(1,0) {p:.1f}",
        "agrees: within 5 %",
        AGREES if abs(o - p) <= 0.05 * p else DISAGREES,
    )


def _sparse_worse(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete_barrio(view, ov)
    sizes = _info_means(view, n_basis)
    group = [m for m in (*_SSGE, "rvm-1") if m in ms and m in sizes]
    if len(group) < 3:
        return None
    from scipy.stats import spearmanr  # lazy: scipy.stats is slow to import

    net = _net(ov, ms)
    rho = float(spearmanr([sizes[m] for m in group], [net[m] for m in group])[0])
    return Finding(
        f"Spearman correlation of mean #BF (n = 1024) and net significant wins over "
        f"{', '.join(pub.BARRIO_LABEL[m] for m in group)}: {rho:.2f}",
        "agrees: rho > 0.3 (bigger models win more), partly: rho > 0",
        AGREES if rho > 0.3 else PARTLY if rho > 0 else DISAGREES,
    )


def _sffs_not_best(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete_barrio(view, ov)
    need = ("ssge-sffs-1", "ssge-pta10-1", "ssge-oscil5-1")
    if not all(m in ms for m in need):
        return None
    net = _net(ov, ms)
    ok = [net["ssge-sffs-1"] < net[m] for m in need[1:]]
    return Finding(
        "net significant wins: " + ", ".join(f"{pub.BARRIO_LABEL[m]} {net[m]:+d}" for m in need),
        "agrees: SFFS below both PTA(1,0) and Oscil(5)",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _most_steps(view: StudyView, ov: Overview) -> Finding | None:
    steps = _info_means(view, basis_steps)
    if "ssge-sffs-1" not in steps or "rvm-1" not in steps or len(steps) < 3:
        return None
    order = sorted(steps, key=lambda m: -steps[m])
    return Finding(
        "mean add + remove steps at n = 1024 (RVM: iterations): "
        + ", ".join(f"{pub.BARRIO_LABEL[m]} {steps[m]:.0f}" for m in order),
        "agrees: SFFS and the RVM take the most steps",
        AGREES
        if set(order[:2]) == {"ssge-sffs-1", "rvm-1"}
        else PARTLY
        if {"ssge-sffs-1", "rvm-1"} & set(order[:2])
        else DISAGREES,
    )


BARRIO_CLAIMS: list[Claim] = [
    Claim(
        "Generalisation: ABF best, then Oscil(5) and PTA(1,0), PTA(2,1) and the SVM, the RVM, "
        "SFFS and finally OLS (§7, Table 2).",
        ("abf-1", "ssge-oscil5-1", "ssge-pta10-1"),
        _barrio_rank,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "OLS is never significantly better than any method (Table 2).",
        ("ols-cv-1",),
        _ols_never,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "ABF, the SSGEs, the RVM and the SVM often generalise better than OLS (§8).",
        ("ols-cv-1",),
        _beat_ols,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "Among the SSGEs, SFFS finds the smallest models; SFFS and the RVM are the sparsest "
        "(Tables 4, 7).",
        ("ssge-sffs-1", "rvm-1"),
        _sffs_smallest,
        (*_SSGE, "svm-1"),
    ),
    Claim(
        "Oscil(5) keeps the model size PTA(1,0) found (Table 4; §7).",
        ("ssge-oscil5-1", "ssge-pta10-1"),
        _oscil_size,
    ),
    Claim(
        "Sparsity usually comes at the expense of some accuracy (§8).",
        (*_SSGE, "rvm-1"),
        _sparse_worse,
    ),
    Claim(
        "The highest-evidence (SFFS) models are not the best generalisers (§8).",
        ("ssge-sffs-1", "ssge-pta10-1", "ssge-oscil5-1"),
        _sffs_not_best,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "SFFS and the RVM take the most steps, most of all on difficult tasks (Table 6).",
        ("ssge-sffs-1", "rvm-1"),
        _most_steps,
        _SSGE,
    ),
]

CLAIMS = {"thesis": THESIS_CLAIMS, "barrio": BARRIO_CLAIMS}


def evaluate(
    claims: list[Claim], view: StudyView, ov: Overview, planned: dict[str, int]
) -> list[Evaluated]:
    """Evaluate ``claims``; ``planned[m]`` is the number of tasks method ``m`` is to run
    on in the study (a snapshot ``m@f`` counts as ``m``).

    A claim whose ``needs`` includes a method of the study without any result gets no
    finding; one whose ``needs`` or ``uses`` includes a method with fewer complete task
    results than planned is provisional.
    """
    done = {
        m: sum(1 for t in view.tasks() if m in t.cells and t.cells[m].status == "ok")
        for m in planned
    }
    out = []
    for c in claims:
        involved = [m for m in (*c.needs, *c.uses) if m in planned]
        if any(m in planned and not done[m] for m in c.needs):
            finding = None
        else:
            try:
                finding = c.evaluate(view, ov)
            except (KeyError, AttributeError, ValueError, ZeroDivisionError, TypeError):
                # a cell without a value where the rule needs one: not enough results
                finding = None
        out.append(
            Evaluated(
                claim=c,
                finding=finding,
                done=sum(min(done[m], planned[m]) for m in involved),
                planned=sum(planned[m] for m in involved),
            )
        )
    return out
