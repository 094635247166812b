"""Prototasks, tasks and task instances (hierarchical and 2-way designs)."""

from .instances import Instance, TaskLayout, task_layout
from .names import TaskRef, resolve_tasks
from .spec import PrototaskSpec, prototask_names, prototask_spec

__all__ = [
    "Instance",
    "PrototaskSpec",
    "TaskLayout",
    "TaskRef",
    "prototask_names",
    "prototask_spec",
    "resolve_tasks",
    "task_layout",
]
