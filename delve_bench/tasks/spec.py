"""Prototask specs: ``tasks/<dataset>/<prototask>.yaml`` with DELVE's Prototask.spec keys.

Keys: ``inputs``, ``targets`` (1-based attribute numbers, ranges like ``1-8``, or names),
``cases`` (``all`` | ``no missing``), ``order`` (``Random-order`` | ``retain``),
``test-set-size`` (the test pool T), ``training-set-sizes``,
``maximum-number-of-instances``, ``test-set-selection``, and ``seed`` (used once by
``delve gen`` to make Random-order).

``test-set-selection`` chooses the design:

* ``hierarchical`` and ``common`` (DELVE's two; the latter is the 2-way design): instances
  cut from Random-order, disjoint training sets;
* ``resampled``: published train/test realisations used as given (e.g. Rätsch's IDA
  splits), read from the data file named by ``splits`` (checked against
  ``splits-sha256``). Their training sets overlap, so comparisons use the corrected
  resampled t-test of Nadeau & Bengio (2003) instead of the ANOVA;
* ``fixed``: one published split (e.g. Ripley's training and test sets), from ``splits``;
  its statistics can only speak of test-case variation.

A target that is binary or nominal makes the prototask a classification one (losses Z,
Q and L instead of S, A and L).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from ..data.spec import DatasetSpec, dataset_names, dataset_spec
from ..errors import DelveError, suggest
from ..workspace import Workspace

DESIGNS = {
    "hierarchical": "hierarchical",
    "common": "2-way",
    "resampled": "resampled",
    "fixed": "fixed",
}
#: designs whose instances come from a published splits file, not from Random-order
SPLIT_DESIGNS = ("resampled", "fixed")


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
    seed: int
    path: Path
    description: str = ""
    classes: tuple[str, ...] = ()  # class labels when the target is binary/nominal
    splits: str | None = None  # data file of published realisations (resampled, fixed)
    splits_sha256: str | None = None

    @property
    def design(self) -> str:
        """``hierarchical``, ``2-way`` (DELVE's ``common``), ``resampled`` or ``fixed``."""
        return DESIGNS[self.test_set_selection]

    @property
    def categorical(self) -> bool:
        """True for a classification prototask (binary or nominal target)."""
        return bool(self.classes)

    @property
    def losses(self) -> tuple[str, ...]:
        from ..losses import task_losses

        return task_losses(self.categorical)

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
    sel = str(raw.get("test-set-selection", ""))
    if sel not in DESIGNS:
        raise DelveError(
            f"{path}: test-set-selection must be one of {', '.join(DESIGNS)}, not {sel!r}"
        )
    split_design = DESIGNS[sel] in SPLIT_DESIGNS
    required = ["inputs", "targets", "training-set-sizes", "maximum-number-of-instances"]
    required += ["splits"] if split_design else ["test-set-size"]
    missing = [k for k in required if k not in raw]
    if missing:
        raise DelveError(f"{path}: missing keys {', '.join(missing)}")
    ds = dataset_spec(ws, dataset)
    targets = _columns(raw["targets"], ds, "targets", path)
    if len(targets) != 1:
        raise DelveError(f"{path}: exactly one target is supported, got {len(targets)}")
    target = ds.attributes[targets[0]]
    classes = target.values if target.kind in ("binary", "nominal") else ()
    if split_design and str(raw.get("cases", "all")) != "all":
        raise DelveError(f"{path}: a {sel} prototask uses the published splits: cases must be all")
    return PrototaskSpec(
        dataset=dataset,
        name=path.stem,
        inputs=_columns(raw["inputs"], ds, "inputs", path),
        targets=targets,
        cases=str(raw.get("cases", "all")),
        order=str(raw.get("order", "Random-order")),
        test_set_size=int(raw.get("test-set-size", 0)),
        training_set_sizes=tuple(sorted(int(n) for n in raw["training-set-sizes"])),
        max_instances=int(raw["maximum-number-of-instances"]),
        test_set_selection=sel,
        seed=int(raw.get("seed", 0)),
        path=path,
        description=str(raw.get("description", "")).strip(),
        classes=tuple(classes),
        splits=str(raw["splits"]) if split_design else None,
        splits_sha256=str(raw["splits-sha256"]) if raw.get("splits-sha256") else None,
    )


def prototask_files(ws: Workspace, dataset: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for d in reversed(ws.spec_dirs("tasks")):
        for p in sorted((d / dataset).glob("*.yaml")):
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
