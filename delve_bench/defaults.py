"""The package's defaults and fixed names, each defined once.

Everything that names a loss, a budget mode or a budget key, or that falls back to the
significance level or the time scale, reads it from here: changing one of these facts is
a change of one line. This module is part of the foundation and imports nothing (it is
read by ``delve --help``, which must stay fast).
"""

from __future__ import annotations

from typing import Literal

# ---- statistics ------------------------------------------------------------------------

#: the significance level of every verdict: "significant" means p < ALPHA (the gate,
#: ``delve power``, the reports' stars and wins, the rankings, ``--alpha`` defaults)
ALPHA = 0.05
#: DELVE's quasi-F with fewer than 4 instances reports only ``p < P_BOUND`` (the test is
#: anti-conservative there); a decision uses the bound itself (Rasmussen 1996 §2.5)
P_BOUND = 0.05

# ---- losses (docs/statistics.md) -------------------------------------------------------

#: the losses of a task with a real or integer target: squared error of the mean,
#: absolute error of the median, negative log density
REGRESSION_LOSSES = ("S", "A", "L")
#: the losses of a task with a binary or nominal target: zero-one, squared probability,
#: negative log probability
CLASSIFICATION_LOSSES = ("Z", "Q", "L")
#: every loss name, regression first
ALL_LOSSES = ("S", "A", "L", "Z", "Q")
#: the loss an analysis reports when none is asked for: each task's first (S, or Z on a
#: classification task)
DEFAULT_LOSSES = (REGRESSION_LOSSES[0], CLASSIFICATION_LOSSES[0])

# ---- budgets (docs/guide.md, methods/<name>.yaml) --------------------------------------

BudgetMode = Literal["cpu", "work"]
#: ``cpu``: CPU seconds from the method's rule (x the time scale); ``work``: a fixed,
#: deterministic amount of work (the method's own unit)
BUDGET_MODES: tuple[BudgetMode, ...] = ("cpu", "work")
#: the budget mode of ``delve run``, of :func:`delve_bench.api.plan` and of a study that
#: sets none
DEFAULT_BUDGET_MODE: BudgetMode = "cpu"
#: a modern core does in 1 CPU second what the thesis' 200 MHz R4400 did in 20: the
#: 1996-machine seconds of a cpu budget are multiplied by this (``--time-scale``)
DEFAULT_TIME_SCALE = 0.05
#: the keys of a method YAML's ``budget`` that give a cpu budget, and a work budget
CPU_BUDGET_KEYS = ("cpu_per_case", "cpu_fixed", "cpu_cap")
WORK_BUDGET_KEYS = ("work", "work_per_case", "work_cap")
#: every key a ``budget`` may have: the two rules and the hard limit in CPU seconds
BUDGET_KEYS = (*CPU_BUDGET_KEYS, *WORK_BUDGET_KEYS, "hard_limit")
