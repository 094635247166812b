"""Task names: ``dataset/prototask/std.<n>``, with the DELVE shorthands.

* ``kin-8nm/std.256`` means ``kin-8nm/dist/std.256`` when the dataset has one prototask;
* ``kin-8nm/dist`` or ``kin-8nm`` mean all their tasks;
* shell-style globs in the dataset part (``kin-*/std.256``) expand over datasets.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from ..data.spec import dataset_names
from ..errors import DelveError, suggest
from ..workspace import WorkspaceDirs
from .spec import prototask_names, prototask_spec

_TASK = re.compile(r"^std\.(\d+)$")


@dataclass(frozen=True, order=True)
class TaskRef:
    dataset: str
    prototask: str
    size: int

    @property
    def name(self) -> str:
        return f"std.{self.size}"

    @property
    def full_name(self) -> str:
        return f"{self.dataset}/{self.prototask}/std.{self.size}"


def _one_dataset(ws: WorkspaceDirs, dataset: str, rest: list[str], name: str) -> list[TaskRef]:
    protos = prototask_names(ws, dataset)
    if not protos:
        raise DelveError(f"dataset {dataset} has no prototasks (no tasks/{dataset}/*.yaml)")
    task, size = None, None
    m = _TASK.match(rest[-1]) if rest else None
    if m:
        task, size = rest.pop(), int(m.group(1))
    elif rest and rest[-1].startswith("std"):
        raise DelveError(f"{name!r}: task names look like std.<training-set size>, e.g. std.256")
    if len(rest) > 1:
        raise DelveError(f"{name!r} is not dataset/prototask/std.<n>")
    if rest:
        chosen = [rest[0]]
    elif task is not None and len(protos) > 1:
        raise DelveError(
            f"{dataset} has several prototasks ({', '.join(protos)}); "
            f"say which, e.g. {dataset}/{protos[0]}/{task}"
        )
    else:
        chosen = protos
    refs = []
    for p in chosen:
        spec = prototask_spec(ws, dataset, p)
        sizes = spec.training_set_sizes
        if task is not None and size is not None:
            n = size
            if n not in sizes:
                names = [f"std.{s}" for s in sizes]
                raise DelveError(
                    f"{dataset}/{p} has no task {task}{suggest(task, names)} "
                    f"(tasks: {' '.join(names)})"
                )
            sizes = (n,)
        refs += [TaskRef(dataset, p, n) for n in sizes]
    return refs


def resolve_tasks(ws: WorkspaceDirs, names: list[str] | tuple[str, ...]) -> list[TaskRef]:
    """Expand task names (with shorthands and globs) to a sorted, duplicate-free list."""
    all_ds = dataset_names(ws)
    out: list[TaskRef] = []
    for name in names:
        parts = [p for p in name.strip().strip("/").split("/") if p]
        if not parts:
            raise DelveError("empty task name")
        ds = parts[0]
        if any(c in ds for c in "*?["):
            matches = [d for d in all_ds if fnmatch.fnmatchcase(d, ds)]
            if not matches:
                raise DelveError(f"no dataset matches {ds!r}")
            found, first = [], None
            for d in matches:
                try:
                    found += _one_dataset(ws, d, parts[1:], name)
                except DelveError as e:
                    first = first or e  # a glob takes the datasets where the rest fits
            if not found and first is not None:  # it fits none: the rest has a typo
                raise DelveError(
                    f"{name!r}: no dataset matching {ds!r} has {'/'.join(parts[1:])!r} "
                    f"(e.g. {first})"
                )
            out += found
            continue
        if ds not in all_ds:
            raise DelveError(
                f"unknown dataset {ds!r}{suggest(ds, all_ds)}; `delve datasets` lists them"
            )
        out += _one_dataset(ws, ds, parts[1:], name)
    seen, uniq = set(), []
    for r in out:
        if r not in seen:
            seen.add(r)
            uniq.append(r)
    return uniq


#: no task has more instances than this; a larger number in --instances is a typo
MAX_INSTANCE = 100_000


def parse_instances(text: str | None) -> set[int] | None:
    """``--instances``: numbers and ranges such as ``0,2-4``; None means every instance."""
    if text is None:
        return None
    out: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", part)
        if not m:
            raise DelveError(f"--instances {text!r}: use numbers and ranges like 0,2-4")
        lo = int(m.group(1))
        hi = lo if m.group(2) is None else int(m.group(2))
        if hi < lo:
            raise DelveError(f"--instances {text!r}: the range {part.strip()} is empty")
        if hi > MAX_INSTANCE:
            raise DelveError(f"--instances {text!r}: no task has an instance {hi}")
        out.update(range(lo, hi + 1))
    return out
