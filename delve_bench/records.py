"""The records the API returns for what a workspace holds: datasets, tasks and methods
(``delve datasets``, ``delve tasks``, ``delve methods``). Plain frozen dataclasses,
built by keyword, whose fields are the ``--json`` keys: :mod:`delve_bench.api` fills
them, :mod:`delve_bench.report.listing` lays them out, and neither needs the other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class _Record:
    def to_dict(self) -> dict:
        """The ``--json`` record: the fields by name."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, kw_only=True)
class DatasetInfo(_Record):
    """A dataset: size, prototasks, and where its data is (or how to get it)."""

    name: str
    cases: int | None
    attributes: int | None
    prototasks: list[str]
    generated: bool  # made by the package (no file)
    data: str | None  # the data file found, or None
    fetch: str | None  # the command that gets a missing file
    error: str | None = None  # why the spec cannot be read (the other fields are empty)


@dataclass(frozen=True, kw_only=True)
class TaskInfo(_Record):
    """A task: its design and instances (``error`` when its splits cannot be made)."""

    task: str
    dataset: str
    prototask: str | None
    train_size: int | None
    design: str | None
    instances: int | None
    test_size: int | None
    #: the task's losses: S A L (real target) or Z Q L (classification); None on error
    losses: list[str] | None = None
    #: where its instances come from: ``DELVE's own`` (the exact instances DELVE made),
    #: ``generated (seed N)``, ``published splits``, ``file order`` or ``hand-made``
    instances_from: str | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class MethodInfo(_Record):
    """A named method: what it serves, its budget rule, its plugin, what it does."""

    name: str
    summary: str
    losses: list[str] | None  # None: the plugin cannot be imported here (or a broken spec)
    budget: dict  # the YAML's rule: cpu_per_case, cpu_fixed, cpu_cap, work, work_per_case, ...
    budget_rule: str  # the rule in words
    plugin: str
    params: dict
    description: str
    source: str  # the YAML file or entry point
    error: str | None = None  # why the spec cannot be read (the other fields are empty)
