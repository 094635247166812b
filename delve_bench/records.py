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
    """A dataset: size, prototasks, and where its data is (or how to get it).

    Attributes
    ----------
    name : str
        The dataset's name (``datasets/<name>.yaml``).
    cases, attributes : int or None
        Its number of cases and of attributes (None when the spec cannot be read).
    prototasks : list of str, length (prototasks,)
        Its prototasks' names.
    generated : bool
        Made by the package (no file).
    data : str or None
        The data file found, or None.
    fetch : str or None
        The command that gets a missing file.
    error : str or None
        Why the spec cannot be read (the other fields are then empty).
    """

    name: str
    cases: int | None
    attributes: int | None
    prototasks: list[str]
    generated: bool
    data: str | None
    fetch: str | None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class TaskInfo(_Record):
    """A task: its design and instances (``error`` when its splits cannot be made).

    Attributes
    ----------
    task : str
        Its full name, ``<dataset>/<prototask>/std.<n>`` (the dataset's name alone for a
        dataset whose spec cannot be read).
    dataset : str
    prototask : str or None
    train_size : int or None
        n, the cases of each training set.
    design : str or None
        ``hierarchical``, ``2-way``, ``resampled`` or ``fixed``.
    instances : int or None
        Its number of task instances.
    test_size : int or None
        The test cases of each instance.
    losses : list of str or None
        The task's losses: S A L (real target) or Z Q L (classification).
    instances_from : str or None
        Where its instances come from: ``DELVE's own`` (the exact instances DELVE made),
        ``generated (seed N)``, ``published splits``, ``file order`` or ``hand-made``.
    error : str or None
        Why its splits cannot be made (the other fields are then empty).
    """

    task: str
    dataset: str
    prototask: str | None
    train_size: int | None
    design: str | None
    instances: int | None
    test_size: int | None
    losses: list[str] | None = None
    instances_from: str | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class MethodInfo(_Record):
    """A named method: what it serves, its budget rule, its plugin, what it does.

    Attributes
    ----------
    name : str
        The method's name (``methods/<name>.yaml``).
    summary : str
        One line on what it does.
    losses : list of str or None
        The losses it serves; None where its plugin cannot be imported here (or its spec
        is broken).
    budget : dict
        The YAML's rule: ``cpu_per_case``, ``cpu_fixed``, ``cpu_cap``, ``work``,
        ``work_per_case``, ...
    budget_rule : str
        The rule in words.
    plugin : str
        ``module:Class`` of its plugin.
    params : dict
        The fixed parameters the plugin is made with.
    description : str
        What it does, in full.
    source : str
        The YAML file or entry point it comes from.
    error : str or None
        Why the spec cannot be read (the other fields are then empty).
    """

    name: str
    summary: str
    losses: list[str] | None
    budget: dict
    budget_rule: str
    plugin: str
    params: dict
    description: str
    source: str
    error: str | None = None
