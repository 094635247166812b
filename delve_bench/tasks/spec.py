"""Prototask specs: ``tasks/<dataset>/<prototask>.yaml`` with DELVE's Prototask.spec keys.

Keys: ``inputs``, ``targets`` (1-based attribute numbers, ranges like ``1-8``, or names),
``cases`` (``all`` | ``no missing``), ``order`` (``Random-order`` | ``retain``),
``test-set-size`` (the test pool T), ``training-set-sizes``,
``maximum-number-of-instances``, ``test-set-selection``, and ``seed`` (used once by
``delve gen`` to make Random-order; a prototask without a seed carries its own hand-made
Random-order, which runs accept but ``delve gen`` cannot remake).

``instances: delve`` declares that the tasks' instances are DELVE's own, the ones the thesis
and every paper on DELVE's std tasks used: either ``order: retain`` on a data file in
DELVE's case order (DELVE's ``splitPrototask`` then cuts the instances from file order), or
DELVE's own Random-order file, shipped beside the spec and pinned by
``random-order-sha256`` (sha256 of the file's bytes), which ``delve gen`` checks.

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

import re
from dataclasses import dataclass
from pathlib import Path

from ..data.spec import DatasetSpec, dataset_names, dataset_spec
from ..errors import DelveError, suggest
from ..specfile import Fields, read_yaml
from ..workspace import WorkspaceDirs, spec_files

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
    seed: int | None
    path: Path
    description: str = ""
    classes: tuple[str, ...] = ()  # class labels when the target is binary/nominal
    splits: str | None = None  # data file of published realisations (resampled, fixed)
    splits_sha256: str | None = None
    delve_instances: bool = False  # ``instances: delve``: DELVE's own instances
    random_order_sha256: str | None = None  # DELVE's Random-order file, pinned

    @property
    def instance_origin(self) -> str:
        """Where the instances come from, in words (``delve tasks``): ``DELVE's own``,
        ``published splits``, ``generated (seed N)``, ``file order`` or ``hand-made``."""
        if self.delve_instances:
            return "DELVE's own"
        if self.design in SPLIT_DESIGNS:
            return "published splits"
        if self.order == "retain":
            return "file order"
        if self.seed is not None:
            return f"generated (seed {self.seed})"
        return "hand-made"

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


#: the keys a prototask spec may have
KEYS = (
    "description",
    "inputs",
    "targets",
    "cases",
    "order",
    "test-set-size",
    "training-set-sizes",
    "maximum-number-of-instances",
    "test-set-selection",
    "seed",
    "splits",
    "splits-sha256",
    "instances",
    "random-order-sha256",
)
_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$")


def _columns(f: Fields, ds: DatasetSpec, key: str) -> tuple[int, ...]:
    """0-based columns from 1-based numbers, ranges (``1-8``) or attribute names."""
    value = f.raw.get(key)
    if isinstance(value, bool) or not isinstance(value, str | int | list):
        raise f.error(key, f"expected attribute numbers, ranges or names, got {value!r}")
    items = value if isinstance(value, list) else str(value).replace(",", " ").split()
    cols: list[int] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int):
            raise f.error(key, f"{item!r} is not an attribute number, range or name")
        m = _RANGE.match(str(item))
        refs: list[int | str] = [item]
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if not 1 <= lo <= hi <= len(ds.attributes):
                raise f.error(key, f"range {item} is not within 1-{len(ds.attributes)}")
            refs = list(range(lo, hi + 1))
        try:
            cols += [ds.attribute_index(r) for r in refs]
        except DelveError as e:
            raise f.error(key, str(e)) from None
    if not cols:
        raise f.error(key, "is empty")
    if len(set(cols)) != len(cols):
        dup = next(c for c in cols if cols.count(c) > 1)
        raise f.error(key, f"lists attribute {ds.attributes[dup].name} twice")
    return tuple(cols)


_PARSED: dict[tuple, PrototaskSpec] = {}


def _parse(ws: WorkspaceDirs, dataset: str, path: Path) -> PrototaskSpec:
    """Parse a prototask YAML; cached per file version (every job looks its task up)."""
    ds = dataset_spec(ws, dataset)
    try:
        key = (path, path.stat().st_mtime_ns, ds.path, ds.path.stat().st_mtime_ns if ds.path else 0)
    except OSError as e:
        raise DelveError(f"{path}: cannot read ({e.strerror or e})") from None
    if key not in _PARSED:
        _PARSED[key] = _parse_file(ws, dataset, path)
    return _PARSED[key]


def _parse_file(ws: WorkspaceDirs, dataset: str, path: Path) -> PrototaskSpec:
    f = Fields(path, read_yaml(path), allowed=KEYS)
    for k in ("inputs", "targets"):
        if k not in f:
            raise f.error(k, "missing (required)")
    ds = dataset_spec(ws, dataset)
    sel = f.choice("test-set-selection", list(DESIGNS))
    inputs = _columns(f, ds, "inputs")
    targets = _columns(f, ds, "targets")
    if len(targets) != 1:
        raise f.error("targets", f"exactly one target is supported, got {len(targets)}")
    both = sorted(set(inputs) & set(targets))
    if both:
        raise f.error(
            "targets",
            f"attribute {ds.attributes[both[0]].name} is also an input; a task "
            "must not see its target",
        )
    sizes = f.wholes("training-set-sizes", minimum=1, maximum=ds.cases)
    if len(set(sizes)) != len(sizes):
        raise f.error("training-set-sizes", "lists a size twice")
    target = ds.attributes[targets[0]]
    classes = target.values if target.kind in ("binary", "nominal") else ()
    split_design = DESIGNS[sel] in SPLIT_DESIGNS
    splits = f.file_name("splits", required=split_design)
    if splits is not None and not split_design:
        raise f.error("splits", f"only a resampled or fixed prototask reads splits, not {sel}")
    cases = f.choice("cases", ["all", "no missing"], "all")
    if split_design and cases != "all":
        raise f.error("cases", f"a {sel} prototask uses the published splits: must be all")
    order = f.choice("order", ["Random-order", "retain"], "Random-order")
    delve = f.choice("instances", ["delve", "generated"], "generated") == "delve"
    pinned = f.hexdigest("random-order-sha256", 64)
    if delve and (split_design or "seed" in f):
        raise f.error(
            "instances",
            "DELVE's own instances come from file order or DELVE's Random-order, "
            "not from a seed or published splits",
        )
    if delve and order == "Random-order" and pinned is None:
        raise f.error(
            "random-order-sha256",
            "required with instances: delve and order: "
            "Random-order (the sha256 of DELVE's Random-order file)",
        )
    if pinned is not None and (order == "retain" or "seed" in f):
        raise f.error(
            "random-order-sha256",
            "pins a shipped Random-order: only with order: Random-order and no seed",
        )
    return PrototaskSpec(
        dataset=dataset,
        name=path.stem,
        inputs=inputs,
        targets=targets,
        cases=cases,
        order=order,
        test_set_size=0 if split_design else f.whole("test-set-size", minimum=1, maximum=ds.cases),
        training_set_sizes=tuple(sorted(sizes)),
        max_instances=f.whole("maximum-number-of-instances", minimum=1, maximum=ds.cases),
        test_set_selection=sel,
        seed=f.whole("seed", minimum=0, maximum=2**63 - 1) if "seed" in f else None,
        path=path,
        description=f.optional("description").strip(),
        classes=tuple(classes),
        splits=splits,
        splits_sha256=f.hexdigest("splits-sha256", 64),
        delve_instances=delve,
        random_order_sha256=pinned,
    )


def prototask_files(ws: WorkspaceDirs, dataset: str) -> dict[str, Path]:
    return spec_files(d / dataset for d in reversed(ws.spec_dirs("tasks")))


def prototask_names(ws: WorkspaceDirs, dataset: str) -> list[str]:
    return sorted(prototask_files(ws, dataset))


def prototask_spec(ws: WorkspaceDirs, dataset: str, name: str) -> PrototaskSpec:
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
