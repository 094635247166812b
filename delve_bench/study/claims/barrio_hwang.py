"""The claims of Barrio, Romero & Belanche (2009) about part 2, the Hwang tasks with 8192
training cases (§7 and Table 3). Wins are counted at n = 8192 only, as Table 3 counts them;
a method with no result at that size (SFFS, which the study runs up to 2048 cases) is
named, not ranked."""

from __future__ import annotations

from ...analysis.overview import Overview
from ...analysis.overview import overview as make_overview
from .. import published as pub
from ..displays import StudyView, at_size
from .barrio import LAB, net_wins, published_net, rank_finding
from .base import AGREES, DISAGREES, PARTLY, Claim, Finding, has


def _at_size(view: StudyView) -> tuple[Overview, list[str], list[str], list[str]]:
    """The overview of the tasks with n = 8192; the methods with a value on every one of
    them, those with values on some, and those with none."""
    ov = make_overview(at_size(view.reports, pub.HWANG_SIZE), view.methods, "S")
    ms = [m for m in pub.HWANG_ORDER if m in view.methods]
    done = [m for m in ms if ov.tasks and all(has(t, m) for t in ov.tasks)]
    some = [m for m in ms if m not in done and any(has(t, m) for t in ov.tasks)]
    return ov, done, some, [m for m in ms if m not in done and m not in some]


def _without(some: list[str], none: list[str]) -> str:
    parts = []
    if some:
        parts.append(f"not yet complete at n = {pub.HWANG_SIZE}: {', '.join(LAB[m] for m in some)}")
    if none:
        parts.append(f"no results at n = {pub.HWANG_SIZE}: {', '.join(LAB[m] for m in none)}")
    return f" ({'; '.join(parts)})" if parts else ""


def _hwang_rank(view: StudyView, ov: Overview) -> Finding | None:
    ov8, ms, some, none = _at_size(view)
    if len(ms) < 3:
        return None
    theirs = published_net(ms, pub.BARRIO_TABLE3, pub.HWANG_ORDER)
    f = rank_finding(ov8, ms, [], "Table 3", theirs)
    return Finding(f.shown + _without(some, none), f.test, f.verdict)


def _oscil_svm(view: StudyView, ov: Overview) -> Finding | None:
    ov8, ms, some, none = _at_size(view)
    pair = ("ssge-oscil5-1", "svm-1")
    if not all(m in ms for m in pair) or len(ms) < 3:
        return None
    net = net_wins(ov8, ms)
    # a method's place: 1 + the methods with strictly more net wins (ties share it)
    place = {m: 1 + sum(net[o] > net[m] for o in ms) for m in pair}
    top2 = [place[m] <= 2 for m in pair]
    order = sorted(ms, key=lambda m: -net[m])
    return Finding(
        f"net significant wins at n = {pub.HWANG_SIZE}: "
        + ", ".join(f"{LAB[m]} {net[m]:+d}" for m in order)
        + _without(some, none),
        "paired t-test over the test cases per task, p < 0.05, wins minus losses; agrees: "
        "Oscil(5) and the SVM both among the two with the most (ties share a place), "
        "partly: one of them",
        AGREES if all(top2) else PARTLY if any(top2) else DISAGREES,
    )


CLAIMS: list[Claim] = [
    Claim(
        "On the largest Hwang tasks (n = 8192) the methods generalise as Table 3 ranks them: "
        "Oscil(5) first, then the SVM, SFFS, PTA(1,0), PTA(2,1) and last the RVM (§7).",
        ("ssge-pta10-1", "ssge-oscil5-1", "svm-1"),
        _hwang_rank,
        pub.HWANG_ORDER,
    ),
    Claim(
        "Very noteworthy is the good behaviour of Oscil(5) and the SVM on the largest Hwang "
        "tasks (§7, Table 3).",
        ("ssge-oscil5-1", "svm-1"),
        _oscil_svm,
        pub.HWANG_ORDER,
    ),
]
