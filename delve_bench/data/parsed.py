"""Parsed data files remembered by content, so that a command does not parse again what
an earlier one parsed.

Parsing is most of what loading a data file costs (numpy's C reader takes about 0.1 s
for a file of 8192 cases and 33 attributes; a compare over the thesis tasks standardises
on 17 files, 0.75 s). The parsed values are a function of the file's content, whose
sha256 :func:`.load.load_dataset` computes to verify it every time, of the spec that says
how to read it and of the code that reads it. So once a file has parsed, its values are
written under ``$XDG_CACHE_HOME/delve-bench/parsed``, named by the sha256 of exactly
those, and a later load of the same content reads them back instead of parsing. Any
other byte of the file, another spec or another version of the code or of numpy is
another name, parsed afresh: an entry never goes stale. Each entry holds the sha256 of
its own payload: a damaged one (or one of the wrong shape) is parsed afresh and written
again. A cache that cannot be read or written costs time only.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import tempfile
from pathlib import Path

import numpy as np

from ..workspace import user_cache
from .spec import DatasetSpec

_DIGEST = 32  # bytes of the sha256 that heads an entry


@functools.cache
def _code() -> bytes:
    """sha256 of what the parsed values depend on besides the file and its spec: the
    reader's source (:mod:`.load`, which imports this module) and numpy's version (its C
    reader parses the plain files)."""
    reader = Path(__file__).with_name("load.py").read_bytes()
    return hashlib.sha256(reader + np.__version__.encode()).digest()


def entry_name(content_sha256: str, spec: DatasetSpec) -> str:
    """The name under which the values of a file whose content has sha256
    ``content_sha256`` (hex), read by ``spec``, are remembered."""
    h = hashlib.sha256(_code())
    h.update(content_sha256.encode())
    h.update(repr(spec).encode())  # attributes, kinds, missing tokens, cases: all of it
    return h.hexdigest()


def _path(name: str) -> Path:
    return user_cache() / "parsed" / name


def recall(name: str, shape: tuple[int, int]) -> np.ndarray | None:
    """The values remembered under ``name``; None where there are none, or they are
    damaged or not float64 of ``shape``."""
    try:
        data = _path(name).read_bytes()
    except OSError:
        return None
    payload = data[_DIGEST:]
    if hashlib.sha256(payload).digest() != data[:_DIGEST]:
        return None
    try:
        values = np.load(io.BytesIO(payload), allow_pickle=False)
    except (OSError, ValueError):
        return None
    if values.dtype != np.float64 or values.shape != shape:
        return None
    return values


def remember(name: str, values: np.ndarray) -> None:
    """Write ``values`` under ``name`` (quietly nothing where the cache cannot be written)."""
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(values, dtype=np.float64), allow_pickle=False)
    payload = buf.getvalue()
    path = _path(name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(hashlib.sha256(payload).digest() + payload)
        os.replace(tmp, path)  # complete or absent, whoever writes it at the same time
    except OSError:
        Path(tmp).unlink(missing_ok=True)
