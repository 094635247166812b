"""Dataset specs: ``datasets/<name>.yaml`` (attributes, file, size, sha256, sources)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import DelveError, suggest
from ..workspace import Workspace, yaml_files

KINDS = ("real", "integer", "binary", "nominal")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Attribute:
    """One column of a dataset. ``values`` lists the categories of binary/nominal ones."""

    name: str
    kind: str = "real"
    values: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Origin:
    """One upstream file a shipped data file was made from (a public git repository)."""

    repository: str
    path: str
    commit: str
    blob: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Where a shipped data file came from and how it was checked (docs/data.md)."""

    origin: tuple[Origin, ...]
    conversion: str
    checks: str
    doubts: str = "none"
    notes: str = ""


@dataclass(frozen=True)
class DatasetSpec:
    """What ``datasets/<name>.yaml`` says about a dataset."""

    name: str
    attributes: tuple[Attribute, ...]
    cases: int
    file: str | None = None
    sha256: str | None = None
    description: str = ""
    sources: tuple[dict, ...] = ()
    generator: dict | None = None
    path: Path | None = None
    provenance: Provenance | None = None
    extra: dict = field(default_factory=dict)

    @property
    def generated(self) -> bool:
        return self.generator is not None

    def attribute_index(self, ref: int | str) -> int:
        """0-based column of an attribute given by 1-based number or by name."""
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            i = int(ref)
            if not 1 <= i <= len(self.attributes):
                raise DelveError(
                    f"{self.name}: attribute number {i} out of range 1..{len(self.attributes)}"
                )
            return i - 1
        names = [a.name for a in self.attributes]
        if ref not in names:
            raise DelveError(f"{self.name}: no attribute {ref!r}{suggest(ref, names)}")
        return names.index(ref)


def _parse(path: Path) -> DatasetSpec:
    try:
        raw: dict[str, Any] = yaml.load(path.read_text(), Loader=_LOADER) or {}
    except yaml.YAMLError as e:
        raise DelveError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    attrs = []
    for a in raw.get("attributes", []):
        kind = a.get("kind", "real")
        if kind not in KINDS:
            raise DelveError(
                f"{path}: attribute {a.get('name')}: kind {kind!r} is not one of {KINDS}"
            )
        attrs.append(
            Attribute(
                str(a["name"]),
                kind,
                tuple(str(v) for v in a.get("values", ())),
                a.get("description", ""),
            )
        )
    if not attrs:
        raise DelveError(f"{path}: no attributes")
    known = {
        "name",
        "attributes",
        "cases",
        "file",
        "sha256",
        "description",
        "sources",
        "generator",
        "provenance",
    }
    return DatasetSpec(
        name=str(raw.get("name", path.stem)),
        attributes=tuple(attrs),
        cases=int(raw["cases"]),
        file=raw.get("file"),
        sha256=raw.get("sha256"),
        description=str(raw.get("description", "")).strip(),
        sources=tuple(raw.get("sources") or ()),
        generator=raw.get("generator"),
        path=path,
        provenance=_provenance(raw.get("provenance"), path),
        extra={k: v for k, v in raw.items() if k not in known},
    )


def _provenance(raw: Any, path: Path) -> Provenance | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise DelveError(f"{path}: provenance must be a mapping")
    origin = []
    for o in raw.get("origin") or []:
        if not isinstance(o, dict) or not all(
            isinstance(o.get(k), str) for k in ("repository", "path", "commit")
        ):
            raise DelveError(f"{path}: provenance.origin entries need repository, path and commit")
        origin.append(Origin(o["repository"], o["path"], o["commit"], o.get("blob")))
    return Provenance(
        tuple(origin),
        str(raw.get("conversion", "")),
        str(raw.get("checks", "")),
        str(raw.get("doubts", "none")),
        str(raw.get("notes", "")),
    )


def _spec_files(ws: Workspace) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for d in reversed(ws.spec_dirs("datasets")):  # workspace overrides built-in
        for p in yaml_files(d):
            found[p.stem] = p
    return found


def dataset_names(ws: Workspace) -> list[str]:
    """All dataset names known in the workspace (and built in)."""
    return sorted(_spec_files(ws))


_CACHE: dict[tuple[Path, int], DatasetSpec] = {}


def dataset_spec(ws: Workspace, name: str) -> DatasetSpec:
    """The spec of dataset ``name``; a one-line error with close names when unknown."""
    files = _spec_files(ws)
    if name not in files:
        raise DelveError(
            f"unknown dataset {name!r}{suggest(name, files)}; `delve datasets` lists them"
        )
    p = files[name]
    key = (p, p.stat().st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = _parse(p)
    return _CACHE[key]
