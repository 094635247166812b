"""Find, verify and parse a dataset's cases.

Resolution order for a data file: every directory of ``DELVE_DATA_PATH`` (colon
separated), then the user cache (``delve fetch``), then the data shipped with the package
(docs/data.md). Generated datasets (hwang) are made in memory. The
sha256 of the uncompressed content is checked every time; a mismatch is an error (a gzip
file's content's sha256 is remembered by the sha256 of its bytes, :mod:`.parsed`).
"""

from __future__ import annotations

import gzip
import hashlib
import math
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DelveError
from ..workspace import WorkspaceDirs, cache_dir, shipped_data_dir
from . import hwang, parsed
from .spec import DatasetSpec, dataset_spec


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: ``values[case, attribute]`` as floats.

    Binary and nominal attributes hold the index of their value in ``spec.values``;
    missing values (tokens the spec declares with ``missing:``) are NaN.
    """

    spec: DatasetSpec
    values: np.ndarray
    source: str

    @property
    def name(self) -> str:
        return self.spec.name


def search_path() -> list[Path]:
    """Directories searched for data files: ``DELVE_DATA_PATH``, the user cache, the shipped data."""
    dirs = [Path(p) for p in os.environ.get("DELVE_DATA_PATH", "").split(os.pathsep) if p]
    return dirs + [cache_dir(), shipped_data_dir()]


def find_data_file(name: str) -> Path | None:
    """The first existing copy of data file ``name`` (plain or .gz) on the search path."""
    names = [name, name[:-3] if name.endswith(".gz") else name + ".gz"]
    for d in search_path():
        for n in names:
            if (d / n).is_file():
                return d / n
    return None


def find_file(spec: DatasetSpec) -> Path | None:
    """The first existing copy of the spec's data file (plain or .gz), or None."""
    return find_data_file(spec.file) if spec.file else None


def is_present(spec: DatasetSpec) -> bool:
    return spec.generated or find_file(spec) is not None


_GZIP = b"\x1f\x8b"  # the first bytes of a gzip file


def decompress(raw: bytes, where: str) -> bytes:
    """``raw`` itself, or its gzip-decompressed content; ``where`` names it in errors."""
    if raw[:2] == _GZIP:
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DelveError(f"{where}: corrupt gzip data ({e})") from None
    return raw


def read_bytes(path: Path) -> bytes:
    """The uncompressed content of a (possibly gzip-compressed) data file."""
    return decompress(path.read_bytes(), str(path))


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _token_values(tokens: np.ndarray, spec: DatasetSpec, where) -> np.ndarray:
    """Convert a (cases x attributes) array of string tokens to floats, column by column.

    Binary and nominal values become the index of their value; tokens the spec declares
    as missing (``missing:``) become NaN. Anything else that is not a finite number (or
    not a whole number in an integer column) is an error naming line and column."""
    out = np.empty(tokens.shape, dtype=np.float64)
    for j, attr in enumerate(spec.attributes):
        col = tokens[:, j]
        missing = np.isin(col, spec.missing) if spec.missing else np.zeros(col.shape, bool)

        def fail(i, what: str, j=j, col=col) -> DelveError:
            return _bad_token(spec, where, j, col, int(i), what)

        if attr.kind in ("binary", "nominal"):
            codes = np.full(col.shape, -1.0)
            for v, value in enumerate(attr.values):
                codes[col == value] = v
            # numeric spellings of a binary value ("1.0" for "1") count as that value
            bad = (codes < 0) & ~missing
            if bad.any() and attr.kind == "binary":
                num = np.array([_float_or_nan(t) for t in col[bad].tolist()])
                vals = np.array([_float_or_nan(v) for v in attr.values])
                hit = num[:, None] == vals[None, :]
                ok = hit.any(1)
                idx = np.flatnonzero(bad)
                codes[idx[ok]] = hit[ok].argmax(1)
                bad = (codes < 0) & ~missing
            if bad.any():
                raise fail(np.flatnonzero(bad)[0], f"not one of {', '.join(attr.values)}")
            codes[missing] = np.nan
            out[:, j] = codes
            continue
        loose = _loose_numbers(col) & ~missing
        if loose.any():
            raise fail(np.flatnonzero(loose)[0], "not a number (ASCII digits only, no '_')")
        try:
            vals = np.where(missing, "nan", col).astype(np.float64)
        except (ValueError, OverflowError):  # error path only: find the first bad token
            vals = np.full(col.shape, np.nan)
            for i, tok in enumerate(col.tolist()):
                if not missing[i]:
                    try:
                        vals[i] = float(tok)
                    except (ValueError, OverflowError):
                        raise fail(i, "not a number") from None
        bad = ~np.isfinite(vals) & ~missing
        if bad.any():
            raise fail(np.flatnonzero(bad)[0], "not a finite number")
        if attr.kind == "integer":
            frac = (vals != np.round(vals)) & ~missing
            if frac.any():
                raise fail(np.flatnonzero(frac)[0], "not a whole number")
        out[:, j] = vals
    return out


def _bad_token(spec: DatasetSpec, where, j: int, col: np.ndarray, i: int, what: str) -> DelveError:
    """The error for token ``i`` of column ``j``: file, line, column, attribute and a hint."""
    token, hint = str(col[i]), ""
    if not spec.missing and what != "not a whole number":
        name = spec.path.name if spec.path else "the dataset spec"
        hint = f"; if it marks a missing value, declare it in {name} (missing: [{token!r}])"
    attr = spec.attributes[j].name
    return DelveError(f"{where(i)}, column {j + 1} ({attr}): {token!r} is {what}{hint}")


def _loose_numbers(col: np.ndarray) -> np.ndarray:
    """Tokens that Python's float() reads but a data file must not hold: digit grouping
    with ``_`` (``1_000``) and non-ASCII digits (Arabic-Indic ``١٢``, full-width ``１２``),
    which would let a garbled file parse as other numbers. Boolean array of col's shape."""
    under = np.char.find(col, "_") >= 0
    try:
        col.astype("S")  # fails on any non-ASCII character: the usual, fast case passes
    except UnicodeEncodeError:
        return under | np.array([not t.isascii() for t in col.tolist()], dtype=bool)
    return under


def _float_or_nan(token: str) -> float:
    if "_" in token or not token.isascii():
        return math.nan
    try:
        return float(token)
    except (ValueError, OverflowError):
        return math.nan


def parse_cases(text: str, spec: DatasetSpec, filename: str) -> np.ndarray:
    """Parse DELVE's data layout: one case per line, whitespace separated, target last.

    A file of plain numbers is read by numpy's C reader (:func:`_plain_numbers`), others
    by splitting each line. When a line has the wrong number of values, the careful path
    joins ``\\`` continuations, drops ``#`` comments and ``@`` tails, and
    reports the first malformed line with its number.
    """
    ncols = len(spec.attributes)
    simple = "\\" not in text and "#" not in text and "@" not in text
    plain = _plain_numbers(text, spec) if simple else None
    if plain is not None:
        return _counted(plain, spec, filename)
    lines = text.split("\n")
    if lines and not lines[-1].strip():
        lines.pop()
    rows = [line.split() for line in lines]
    if simple and all(len(r) == ncols for r in rows):
        arr = np.array(rows, dtype=str).reshape(len(rows), ncols)
        line_of = np.arange(1, len(rows) + 1)
    else:
        kept: list[list[str]] = []
        starts: list[int] = []
        pending, start = "", None
        for num, line in enumerate(text.split("\n"), 1):  # careful path
            line = line.split("#", 1)[0].split("@", 1)[0]
            if start is None:
                start = num
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            toks = (pending + line).split()
            pending = ""
            if toks:
                if len(toks) != ncols:
                    raise DelveError(
                        f"{filename}, line {start}: {len(toks)} values, expected {ncols} "
                        f"(attributes of {spec.name})"
                    )
                kept.append(toks)
                starts.append(start)
            start = None
        arr = np.array(kept, dtype=str).reshape(len(kept), ncols)
        line_of = np.asarray(starts)
    values = _token_values(arr, spec, lambda i: f"{filename}, line {line_of[i]}")
    return _counted(values, spec, filename)


def _counted(values: np.ndarray, spec: DatasetSpec, filename: str) -> np.ndarray:
    if len(values) != spec.cases:
        raise DelveError(
            f"{filename}: {len(values)} cases, but the spec of {spec.name} says {spec.cases}"
        )
    return values


def _plain_numbers(text: str, spec: DatasetSpec) -> np.ndarray | None:
    """The values of a file of plain numbers (every attribute a number, no missing values
    declared, ASCII without ``_``, ``#``, ``@`` or ``\\``), read by numpy's C reader -- ten
    times faster than :func:`_token_values` column by column, to the same floats; None
    where this does not apply, or a line or a token is not as it must be (a finite
    number, a whole one in an integer column), so that the careful reader finds and names
    it."""
    import io

    attrs = spec.attributes
    if (
        spec.missing
        or any(a.kind in ("binary", "nominal") for a in attrs)
        or not text.isascii()
        or "_" in text
    ):
        return None
    try:
        values = np.loadtxt(io.StringIO(text), dtype=np.float64, comments=None, ndmin=2)
    except ValueError:  # a line of another length, a token that is not a number
        return None
    if values.shape[1:] != (len(attrs),):
        return None
    whole = [j for j, a in enumerate(attrs) if a.kind == "integer"]
    if not np.isfinite(values).all() or np.any(values[:, whole] != np.round(values[:, whole])):
        return None
    return values


def generated_text(spec: DatasetSpec) -> str:
    g = spec.generator or {}
    if g.get("name") != "hwang":
        raise DelveError(f"{spec.name}: unknown generator {g.get('name')!r}")
    return hwang.generate_text(
        g["function"], spec.cases, int(g["seed"]), float(g.get("noise_sd", 0.25))
    )


_LOADED: dict[tuple, Dataset] = {}


def _locate(spec: DatasetSpec) -> Path:
    path = find_file(spec)
    if path is None:
        raise DelveError(
            f"data for {spec.name} not found in DELVE_DATA_PATH, the cache or the package; "
            f"run `delve fetch {spec.name}`"
        )
    return path


def _check_sha256(spec: DatasetSpec, content: bytes, where: str) -> str:
    """The sha256 of ``content``, after checking it against the spec's."""
    digest = sha256(content)
    if spec.sha256 and digest != spec.sha256:
        raise DelveError(
            f"checksum mismatch for {spec.name} ({where}): expected sha256 {spec.sha256}, "
            f"got {digest}"
        )
    return digest


_VERIFIED: set[tuple] = set()


def verify_dataset(ws: WorkspaceDirs, name: str) -> None:
    """Check that dataset ``name`` is there and intact, as cheaply as that can be known.

    A file whose spec declares a sha256 is checksummed only (its content is then exactly
    the verified one, which parses); a gzip file is decompressed for that only the first
    time, its content's sha256 remembered by the sha256 of its bytes, as a load does.
    Others, and generated data, are loaded in full. ``delve run`` calls this before any
    job starts, so its parent never parses data."""
    spec = dataset_spec(ws, name)
    if spec.generated or not spec.sha256:
        load_dataset(ws, name)
        return
    path = _locate(spec)
    st = path.stat()
    key = (spec.name, spec.sha256, str(path), st.st_mtime_ns, st.st_size)
    if key in _VERIFIED:
        return
    raw = path.read_bytes()
    if raw[:2] != _GZIP:
        _check_sha256(spec, raw, str(path))
    else:
        raw_sha = hashlib.sha256(raw).hexdigest()
        if parsed.known_digest(raw_sha) != spec.sha256:
            parsed.remember_digest(
                raw_sha, _check_sha256(spec, decompress(raw, str(path)), str(path))
            )
    _VERIFIED.add(key)


def load_dataset(ws: WorkspaceDirs, name: str) -> Dataset:
    """Load, verify (sha256) and parse dataset ``name``; cached per process, and the
    parsed values of a data file by its content (:mod:`.parsed`)."""
    spec = dataset_spec(ws, name)
    if spec.generator is not None:  # spec.generated
        key: tuple = (spec.name, "generated", repr(spec.generator), spec.cases)
        if key in _LOADED:
            return _LOADED[key]
        content: bytes | None = generated_text(spec).encode()
        where = f"generator {spec.generator.get('name')}"
        known = raw_sha = None
    else:
        path = _locate(spec)
        st = path.stat()
        key = (spec.name, str(path), st.st_mtime_ns, st.st_size)
        if key in _LOADED:
            return _LOADED[key]
        where = str(path)
        raw = path.read_bytes()
        raw_sha = hashlib.sha256(raw).hexdigest() if raw[:2] == _GZIP else None
        known = None if raw_sha is None else parsed.known_digest(raw_sha)
        if known is not None and spec.sha256 and known != spec.sha256:
            known = None  # a mismatch is reported from the content itself, below
        content = None
    if known is not None:  # a gzip file whose content's sha256 an earlier load remembered
        digest = known
    else:
        content = decompress(raw, where) if content is None else content
        digest = _check_sha256(spec, content, where)
        if raw_sha is not None:
            parsed.remember_digest(raw_sha, digest)
    # a file's values by its content; a generated dataset's are made afresh each time
    entry = None if spec.generator is not None else parsed.entry_name(digest, spec)
    values = None if entry is None else parsed.recall(entry, (spec.cases, len(spec.attributes)))
    if values is None:
        if content is None:  # the digest was remembered; to parse, the content is needed
            content = decompress(raw, where)
            _check_sha256(spec, content, where)
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise DelveError(f"{where}: not a text data file") from None
        values = parse_cases(text, spec, where)
        if entry is not None:
            parsed.remember(entry, values)
    ds = Dataset(spec=spec, values=values, source=where)
    _LOADED[key] = ds
    return ds
