"""Summaries across prototasks for many methods: average ranks and significant wins.

* Average rank (1 = lowest standardised expected loss, ties share the mean rank) over the
  tasks where every ranked method has a value, so that every rank is out of the same
  field. Methods with no value on any task (e.g. no predictive density for L) are left
  out of the ranking rather than excluding every task.
* Wins (Barrio et al. 2009, Table 2 and §6.2.4): cell (row R,
  column C) counts the tasks on which C was significantly better than R, i.e. the
  design's paired test (t or quasi-F, on the instances both have) gave p < 0.05, a
  bounded ``p < 0.05`` included. A method's wins are its column sum, its losses its
  row sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .collect import PrototaskReport, TaskReport


@dataclass(frozen=True)
class Overview:
    """Cross-prototask summary for one loss."""

    loss: str
    methods: tuple[str, ...]
    tasks: tuple[TaskReport, ...]
    ranked: tuple[str, ...]  # methods in the ranking
    rank_tasks: tuple[TaskReport, ...]  # tasks where every ranked method has a value
    average_rank: dict[str, float]
    wins: dict[tuple[str, str], int]  # (row R, column C): tasks where C beat R
    compared: dict[tuple[str, str], int]  # tasks on which the pair had a test

    def total_wins(self, m: str) -> int:
        return sum(self.wins[(r, m)] for r in self.methods if r != m)

    def total_losses(self, m: str) -> int:
        return sum(self.wins[(m, c)] for c in self.methods if c != m)


def overview(reports: list[PrototaskReport], methods: list[str], loss: str) -> Overview:
    tasks = tuple(t for r in reports for t in r.tasks)
    ranked = tuple(m for m in methods if any(t.cells[m].has_value for t in tasks))
    rank_tasks = tuple(t for t in tasks if all(t.cells[m].has_value for m in ranked))
    average = {}
    if rank_tasks and ranked:
        ranks = np.array([[t.ranks_among(ranked)[m] for m in ranked] for t in rank_tasks])
        average = {m: float(v) for m, v in zip(ranked, ranks.mean(axis=0), strict=True)}
    wins = {(r, c): 0 for r in methods for c in methods if r != c}
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
        ranked=ranked,
        rank_tasks=rank_tasks,
        average_rank=average,
        wins=wins,
        compared=compared,
    )
