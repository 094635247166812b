"""Prototask specs: ``tasks/<dataset>/<prototask>.yaml`` with DELVE's Prototask.spec keys.

Keys: ``inputs``, ``targets`` (1-based attribute numbers, ranges like ``1-8``, or names),
``cases`` (``all`` | ``no missing``), ``order`` (``Random-order`` | ``retain``),
``test-set-size`` (the test pool T), ``training-set-sizes``,
``maximum-number-of-instances``, ``test-set-selection`` (``hierarchical`` | ``common``),
and ``seed`` (used once by ``delve gen`` to make Random-order; a prototask without a seed
carries its own hand-made Random-order, which runs accept but ``delve gen`` cannot remake).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from ..data.spec import DatasetSpec, dataset_names, dataset_spec
from ..errors import DelveError, suggest
from ..workspace import Workspace, yaml_files

DESIGNS = {"hierarchical": "hierarchical", "common": "2-way"}


@dataclass(frozen=True)
class PrototaskSpec:
    """A prototask: which attributes are inputs and target, and how tasks are cut."""

    dataset: str
    name: str
    inputs: tuple[int, ...]  # 0-based attribute columns
    targets: tuple[int, ...]
    cases: str
    order: str
    test_set_size: int
    training_set_sizes: tuple[int, ...]
    max_instances: int
    test_set_selection: str
    seed: int | None
    path: Path
    description: str = ""

    @property
    def design(self) -> str:
        """``hierarchical`` or ``2-way`` (DELVE's ``common`` test-set selection)."""
        return DESIGNS[self.test_set_selection]

    @property
    def dir(self) -> Path:
        """Directory of Random-order and the per-task index files."""
        return self.path.with_suffix("")

    @property
    def full_name(self) -> str:
        return f"{self.dataset}/{self.name}"


def _columns(value, ds: DatasetSpec, key: str, path: Path) -> tuple[int, ...]:
    items = value if isinstance(value, list) else str(value).replace(",", " ").split()
    cols: list[int] = []
    for item in items:
        s = str(item)
        if "-" in s and all(p.isdigit() for p in s.split("-", 1)):
            lo, hi = (int(p) for p in s.split("-", 1))
            cols += [ds.attribute_index(i) for i in range(lo, hi + 1)]
        else:
            cols.append(ds.attribute_index(s))
    if not cols:
        raise DelveError(f"{path}: {key} is empty")
    return tuple(cols)


_PARSED: dict[tuple, PrototaskSpec] = {}
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(ws: Workspace, dataset: str, path: Path) -> PrototaskSpec:
    """Parse a prototask YAML; cached per file version (every job looks its task up)."""
    ds = dataset_spec(ws, dataset)
    key = (path, path.stat().st_mtime_ns, ds.path, ds.path.stat().st_mtime_ns if ds.path else 0)
    if key not in _PARSED:
        _PARSED[key] = _parse_file(ws, dataset, path)
    return _PARSED[key]


def _parse_file(ws: Workspace, dataset: str, path: Path) -> PrototaskSpec:
    try:
        raw = yaml.load(path.read_text(), Loader=_LOADER) or {}
    except yaml.YAMLError as e:
        raise DelveError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    required = [
        "inputs",
        "targets",
        "test-set-size",
        "training-set-sizes",
        "maximum-number-of-instances",
        "test-set-selection",
    ]
    missing = [k for k in required if k not in raw]
    if missing:
        raise DelveError(f"{path}: missing keys {', '.join(missing)}")
    ds = dataset_spec(ws, dataset)
    sel = str(raw["test-set-selection"])
    if sel not in DESIGNS:
        raise DelveError(f"{path}: test-set-selection must be hierarchical or common, not {sel!r}")
    targets = _columns(raw["targets"], ds, "targets", path)
    if len(targets) != 1:
        raise DelveError(f"{path}: exactly one target is supported, got {len(targets)}")
    return PrototaskSpec(
        dataset=dataset,
        name=path.stem,
        inputs=_columns(raw["inputs"], ds, "inputs", path),
        targets=targets,
        cases=str(raw.get("cases", "all")),
        order=str(raw.get("order", "Random-order")),
        test_set_size=int(raw["test-set-size"]),
        training_set_sizes=tuple(sorted(int(n) for n in raw["training-set-sizes"])),
        max_instances=int(raw["maximum-number-of-instances"]),
        test_set_selection=sel,
        seed=None if raw.get("seed") is None else int(raw["seed"]),
        path=path,
        description=str(raw.get("description", "")).strip(),
    )


def prototask_files(ws: Workspace, dataset: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for d in reversed(ws.spec_dirs("tasks")):
        for p in yaml_files(d / dataset):
            found[p.stem] = p
    return found


def prototask_names(ws: Workspace, dataset: str) -> list[str]:
    return sorted(prototask_files(ws, dataset))


def prototask_spec(ws: Workspace, dataset: str, name: str) -> PrototaskSpec:
    """The spec of ``dataset/name``; one-line errors with close names when unknown."""
    if dataset not in dataset_names(ws):
        names = dataset_names(ws)
        raise DelveError(
            f"unknown dataset {dataset!r}{suggest(dataset, names)}; `delve datasets` lists them"
        )
    files = prototask_files(ws, dataset)
    if name not in files:
        have = ", ".join(sorted(files)) or "none"
        raise DelveError(
            f"dataset {dataset} has no prototask {name!r}{suggest(name, files)} (prototasks: {have})"
        )
    return _parse(ws, dataset, files[name])
