"""Summaries across prototasks for many methods: average ranks and significant wins.

* Average rank (1 = lowest standardised expected loss, ties share the mean rank), computed
  from the pairs: a method's rank on a task is 1 + the number of methods that beat it there
  (+ 1/2 per tie), so its average rank over tasks is 1 + the sum over opponents of the
  share of tasks on which the opponent beat it. Each pair's share is taken over the tasks
  *that pair* shares (both have a value). When every method has a value on every task this
  is exactly the usual average rank; when coverage differs no task is thrown away and no
  table is empty: a method is ranked among the methods it shares at least one task with
  (``field``), and the tables show each method's coverage and each pair's shared tasks.
  Methods with no value on any task (e.g. no predictive density for L) are not ranked.
* Wins (Barrio et al. 2009, Table 2 and §6.2.4): cell (row R, column C) counts the tasks on which C
  was significantly better than R, i.e. the design's paired test (t or quasi-F, on the
  instances both have) was significant at 5 %
  (:func:`~delve_bench.stats.results.is_significant`: never a bounded ``p < 0.05``), out
  of the tasks on which the pair was compared. A method's wins are its column sum, its losses its
  row sum.
"""

from __future__ import annotations

from dataclasses import dataclass

from .collect import PrototaskReport, TaskReport


@dataclass(frozen=True)
class Overview:
    """Cross-prototask summary for one loss."""

    loss: str
    methods: tuple[str, ...]
    tasks: tuple[TaskReport, ...]
    coverage: dict[str, int]  # tasks on which the method has a value
    shared: dict[tuple[str, str], int]  # tasks on which both have a value
    beaten: dict[tuple[str, str], float]  # (m, o): shared tasks where o's loss < m's (+1/2 ties)
    average_rank: dict[str, float]  # the ranked methods (a value on some task)
    field: dict[str, int]  # methods each rank is among: itself + opponents sharing a task
    wins: dict[tuple[str, str], int]  # (row R, column C): tasks where C beat R
    compared: dict[tuple[str, str], int]  # tasks on which the pair had a test

    @property
    def ranked(self) -> tuple[str, ...]:
        return tuple(m for m in self.methods if m in self.average_rank)

    def total_wins(self, m: str) -> int:
        return sum(self.wins[(r, m)] for r in self.methods if r != m)

    def total_losses(self, m: str) -> int:
        return sum(self.wins[(m, c)] for c in self.methods if c != m)


def overview(reports: list[PrototaskReport], methods: list[str], loss: str) -> Overview:
    tasks = tuple(t for r in reports for t in r.tasks)
    pairs = [(m, o) for m in methods for o in methods if m != o]
    coverage = {m: sum(t.cells[m].rankable for t in tasks) for m in methods}
    shared = {p: 0 for p in pairs}
    beaten = {p: 0.0 for p in pairs}
    for t in tasks:
        for m, o in pairs:
            x, y = t.cells[m].mean, t.cells[o].mean
            if x is not None and y is not None:
                shared[(m, o)] += 1
                beaten[(m, o)] += 1.0 if y < x else 0.5 if y == x else 0.0
    average, field = {}, {}
    for m in methods:
        if coverage[m]:
            opponents = [o for o in methods if o != m and shared[(m, o)]]
            average[m] = 1.0 + sum(beaten[(m, o)] / shared[(m, o)] for o in opponents)
            field[m] = 1 + len(opponents)
    wins = {p: 0 for p in pairs}
    compared = dict(wins)
    for t in tasks:
        for p in t.pairs.values():
            if p.comparison is None:
                continue
            compared[(p.a, p.b)] += 1
            compared[(p.b, p.a)] += 1
            winner, loser = p.winner, p.loser
            if p.significant and winner is not None and loser is not None:
                wins[(loser, winner)] += 1
    return Overview(
        loss=loss,
        methods=tuple(methods),
        tasks=tasks,
        coverage=coverage,
        shared=shared,
        beaten=beaten,
        average_rank=average,
        field=field,
        wins=wins,
        compared=compared,
    )
