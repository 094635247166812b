"""Dataset specs: ``datasets/<name>.yaml`` (attributes, file, size, sha256, sources)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import DelveError, suggest
from ..specfile import Fields, read_yaml
from ..workspace import WorkspaceDirs, spec_files

KINDS = ("real", "integer", "binary", "nominal")


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
    #: tokens that mark a missing value in the data file (none unless the spec says so)
    missing: tuple[str, ...] = ()

    @property
    def generated(self) -> bool:
        return self.generator is not None

    def attribute_index(self, ref: int | str) -> int:
        """0-based column of an attribute given by 1-based number or by name."""
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isascii() and ref.isdigit()):
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


#: the keys a dataset spec may have
KEYS = (
    "name",
    "description",
    "cases",
    "file",
    "sha256",
    "missing",
    "sources",
    "generator",
    "provenance",
    "attributes",
)
#: at most this many cases: every task keeps a case list in memory
MAX_CASES = 100_000_000


def _attributes(f: Fields) -> tuple[Attribute, ...]:
    items = f.items("attributes", required=True)
    if not items:
        raise f.error("attributes", "the list is empty")
    attrs: list[Attribute] = []
    for i, item in enumerate(items):
        a = f.item_fields("attributes", i, item, ("name", "kind", "values", "description"))
        name = a.required("name")
        if name in {x.name for x in attrs}:
            raise a.error("name", f"{name!r} is used by an earlier attribute")
        kind = a.choice("kind", KINDS, "real")
        values = []
        for j, v in enumerate(a.items("values")):
            if isinstance(v, bool):
                raise a.error("values", f"value {j + 1} reads as {v} in YAML: quote it ('{v}')")
            if not isinstance(v, str | int | float):
                raise a.error("values", f"value {j + 1} is not a word or number: {v!r}")
            values.append(str(v))
        if kind in ("binary", "nominal"):
            need = 2 if kind == "binary" else None
            if len(set(values)) != len(values) or len(values) < 2 or (need and len(values) != need):
                raise a.error(
                    "values",
                    f"a {kind} attribute lists its {'2' if need else '2 or more'} distinct values",
                )
        elif values:
            raise a.error("values", f"a {kind} attribute has no list of values")
        attrs.append(
            Attribute(
                name=name, kind=kind, values=tuple(values), description=a.optional("description")
            )
        )
    return tuple(attrs)


def _sources(f: Fields) -> tuple[dict, ...]:
    out = []
    for i, item in enumerate(f.items("sources")):
        if isinstance(item, str):
            item = {"url": item}
        src = f.item_fields("sources", i, item, ("url", "member"))
        out.append({"url": src.required("url"), "member": src.text("member")})
    return tuple(out)


def _generator(f: Fields) -> dict | None:
    from .hwang import FUNCTIONS

    g = f.mapping("generator", ("name", "function", "seed", "noise_sd"))
    if g is None:
        return None
    return {
        "name": g.choice("name", ["hwang"]),
        "function": g.choice("function", sorted(FUNCTIONS)),
        "seed": g.whole("seed", minimum=0),
        "noise_sd": g.number("noise_sd", 0.25),
    }


def _provenance(f: Fields) -> Provenance | None:
    p = f.mapping("provenance", ("origin", "conversion", "checks", "doubts", "notes"))
    if p is None:
        return None
    origin = []
    for i, item in enumerate(p.items("origin", required=True)):
        o = p.item_fields("origin", i, item, ("repository", "path", "commit", "blob"))
        o.hexdigest("commit", 40, required=True)
        origin.append(
            Origin(
                repository=o.required("repository"),
                path=o.required("path"),
                commit=o.required("commit"),
                blob=o.hexdigest("blob", 40),
            )
        )
    return Provenance(
        origin=tuple(origin),
        conversion=p.required("conversion"),
        checks=p.required("checks"),
        doubts=p.optional("doubts", "none"),
        notes=p.optional("notes"),
    )


def _missing(f: Fields) -> tuple[str, ...]:
    v = f.raw.get("missing")
    if v is None:
        return ()
    tokens = [v] if isinstance(v, str) else f.items("missing")
    for t in tokens:
        if not isinstance(t, str) or not t or any(c.isspace() for c in t):
            raise f.error("missing", f"expected words that mark a missing value, got {t!r}")
    return tuple(tokens)


def _parse(path: Path) -> DatasetSpec:
    f = Fields(path, read_yaml(path), allowed=KEYS)
    name = f.check_name("dataset")
    file, generator = f.file_name("file"), _generator(f)
    if (file is None) == (generator is None):
        raise f.error("file", "a dataset has either a data file or a generator")
    return DatasetSpec(
        name=name,
        attributes=_attributes(f),
        cases=f.whole("cases", minimum=1, maximum=MAX_CASES),
        file=file,
        sha256=f.hexdigest("sha256", 64),
        description=f.optional("description").strip(),
        sources=_sources(f),
        generator=generator,
        path=path,
        provenance=_provenance(f),
        missing=_missing(f),
    )


def _spec_files(ws: WorkspaceDirs) -> dict[str, Path]:
    return spec_files(reversed(ws.spec_dirs("datasets")))  # workspace overrides built-in


def dataset_names(ws: WorkspaceDirs) -> list[str]:
    """All dataset names known in the workspace (and built in)."""
    return sorted(_spec_files(ws))


_CACHE: dict[tuple[Path, int], DatasetSpec] = {}


def dataset_spec(ws: WorkspaceDirs, name: str) -> DatasetSpec:
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
