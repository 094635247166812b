"""What a claim is, how it is evaluated, and the helpers the rules share.

A claim names the methods it is about and a rule that reads the study's numbers and
returns a :class:`Finding`: what the results show, the test behind it, and a verdict
(``agrees``, ``partly`` or ``disagrees``) fixed in code, so the verdict changes only when
the results do. :func:`evaluate` marks a finding *provisional* while any of the claim's
methods has task results still to come, and gives none while a method the claim needs has
no results at all. A rule that lacks a number it needs raises :class:`NotEnough`; any
other exception is a bug and propagates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ...analysis.collect import TaskReport
from ...analysis.overview import Overview
from ..displays import StudyView

AGREES, PARTLY, DISAGREES = "agrees", "partly", "disagrees"


class NotEnough(Exception):
    """A rule lacks a number it needs (a method without a value on a task it reads)."""


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


Rule = Callable[[StudyView, Overview], "Finding | None"]


@dataclass(frozen=True)
class Claim:
    """A published claim; ``needs``: methods without whose results there is no finding;
    ``uses``: further methods it reads when present (the finding is provisional while
    any of ``needs`` or ``uses`` is incomplete)."""

    text: str
    needs: tuple[str, ...]
    evaluate: Rule
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Evaluated:
    """A claim with its finding (None: not enough results yet) and how many of the planned
    task results of its methods are done."""

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


def evaluate(
    claims: list[Claim], view: StudyView, ov: Overview, planned: dict[str, int]
) -> list[Evaluated]:
    """Evaluate ``claims``; ``planned[m]``: the number of tasks method ``m`` is to run on
    in the study (its snapshots ``m@f`` count as ``m``)."""
    done = {m: sum(1 for t in view.tasks() if view.finished(t, m)) for m in planned}
    out = []
    for c in claims:
        involved = [m for m in dict.fromkeys((*c.needs, *c.uses)) if m in planned]
        finding = None
        if all(done[m] for m in c.needs if m in planned):
            try:
                finding = c.evaluate(view, ov)
            except NotEnough:
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


# ---- helpers ---------------------------------------------------------------------------


def by_share(k: float, n: int, agree: float, partly: float) -> str:
    """``agrees`` when k / n >= agree, ``partly`` when >= partly, else ``disagrees``."""
    share = k / n if n else 0.0
    return AGREES if share >= agree else PARTLY if share >= partly else DISAGREES


def combine(verdicts: Iterable[str]) -> str:
    """All agree: agrees; none agrees or partly: disagrees; otherwise partly."""
    v = list(verdicts)
    if all(x == AGREES for x in v):
        return AGREES
    return DISAGREES if all(x == DISAGREES for x in v) else PARTLY


def has(t: TaskReport, m: str) -> bool:
    return m in t.cells and t.cells[m].has_value


def loss(t: TaskReport, m: str) -> float:
    """Standardised expected loss of ``m`` on ``t``."""
    v = t.cells[m].mean if m in t.cells else None
    if v is None:
        raise NotEnough(f"{m} has no value on {t.ref.full_name}")
    return v


def rel_se(t: TaskReport, m: str) -> float:
    """SE / expected loss of ``m`` on ``t``."""
    se = t.cells[m].se if m in t.cells else None
    if se is None:
        raise NotEnough(f"{m} has no value on {t.ref.full_name}")
    return se / loss(t, m)


def sig(t: TaskReport, a: str, b: str) -> bool:
    """Whether the paired test of ``a`` and ``b`` on ``t`` is significant."""
    p = t.pair(a, b)
    return p is not None and p.significant


def tasks_with(view: StudyView, *methods: str, kin_puma: bool = True) -> list[TaskReport]:
    """Tasks on which every one of ``methods`` has a value."""
    return [t for t in view.tasks(kin_puma_only=kin_puma) if all(has(t, m) for m in methods)]


def gmean(x: Iterable[float]) -> float:
    v = np.asarray(list(x), dtype=float)
    if not len(v):
        raise NotEnough("nothing to average")
    return math.exp(float(np.mean(np.log(v))))


def median_of(t: TaskReport, methods: Iterable[str]) -> float:
    """Median expected loss of those of ``methods`` with a value on ``t``."""
    ys = [loss(t, m) for m in methods if has(t, m)]
    if not ys:
        raise NotEnough(f"no value on {t.ref.full_name}")
    return float(np.median(ys))


def norm_ranks(t: TaskReport, methods: Iterable[str]) -> dict[str, float]:
    """Rank of each of ``methods`` present on ``t``, scaled to 0 (best) .. 1 (worst), so
    that tasks where a method is missing (gp-mc-1 at n = 1024) stay comparable."""
    have = [m for m in methods if has(t, m)]
    if len(have) < 2:
        return {}
    r = t.ranks_among(have)
    return {m: (r[m] - 1) / (len(have) - 1) for m in have}


def names(tasks: Iterable[TaskReport]) -> str:
    return ", ".join(t.ref.full_name for t in tasks)


def snapshots(view: StudyView, method: str) -> list[str]:
    """``method``'s snapshot names in the study, shortest first."""
    found = {n for r in view.reports for n in r.methods if n.startswith(f"{method}@")}
    return sorted(found, key=lambda n: float(n.split("@")[1]))


_KIN_PUMA = re.compile(r"^(kin|pumadyn)-(8|32)([fn])([mh])$")


def matched(view: StudyView, idx: int, a: str, b: str) -> list[tuple[TaskReport, TaskReport]]:
    """Pairs of kin/pumadyn tasks of one size whose datasets differ only in characteristic
    ``idx`` (0 family, 1 inputs, 2 linearity, 3 noise): ``a`` in the first, ``b`` in the
    second. Contrasting matched pairs keeps the other characteristics out of the
    comparison (the study's 32-input tasks are mostly pumadyn and non-linear)."""
    by = {(t.ref.dataset, t.ref.size): t for t in view.tasks(kin_puma_only=True)}
    out = []
    for (ds, n), t in sorted(by.items()):
        m = _KIN_PUMA.match(ds)
        if not m or m.group(idx + 1) != a:
            continue
        g = list(m.groups())
        g[idx] = b
        other = f"{g[0]}-{g[1]}{g[2]}{g[3]}"
        if (other, n) in by:
            out.append((t, by[(other, n)]))
    return out
