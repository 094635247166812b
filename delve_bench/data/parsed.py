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
its name and payload: a damaged one (or one of the wrong shape) is parsed afresh and
written again. A cache that cannot be read or written costs time only
(:mod:`..usercache` keeps the files).

The check of a gzip file's content needs its sha256, which took decompressing the file
every time (half of loading it once the values are remembered). The sha256 of the content
is a function of the file's bytes, so it is remembered too, under
``$XDG_CACHE_HOME/delve-bench/inflated``, named by the sha256 of the bytes: a load reads
the file, hashes its bytes (a third of the content's length) and, with the values
remembered as well, never decompresses it. Another byte of the file is another name.
"""

from __future__ import annotations

import io

import numpy as np

from ..usercache import Shelf
from .spec import DatasetSpec

#: the reader's source (:mod:`.load`, which imports this module), this module's (the
#: entry's format) and numpy's version (its C reader parses the plain files)
_SHELF = Shelf("parsed", ("data/load.py", "data/parsed.py"), ("numpy",))


#: the sha256 of a gzip file's content by the sha256 of its bytes: a function of the bytes
#: alone (gzip's format defines what they decompress to), so no sources
_DIGESTS = Shelf("inflated")


def known_digest(raw_sha256: str) -> str | None:
    """The sha256 (hex) of the content a gzip file whose bytes have sha256 ``raw_sha256``
    decompressed to, where one was remembered (:func:`remember_digest`); else None."""
    payload = _DIGESTS.read(_DIGESTS.name(raw_sha256))
    if payload is None or len(payload) != 64:
        return None
    digest = payload.decode("ascii", "replace")
    return digest if all(c in "0123456789abcdef" for c in digest) else None


def remember_digest(raw_sha256: str, content_sha256: str) -> None:
    """Remember that a gzip file whose bytes have sha256 ``raw_sha256`` decompresses to
    content of sha256 ``content_sha256`` (quietly nothing where the cache cannot be
    written)."""
    _DIGESTS.write(_DIGESTS.name(raw_sha256), content_sha256.encode("ascii"))


def entry_name(content_sha256: str, spec: DatasetSpec) -> str:
    """The name under which the values of a file whose content has sha256
    ``content_sha256`` (hex), read by ``spec``, are remembered."""
    # the spec's repr: attributes, kinds, missing tokens, cases, all of it
    return _SHELF.name(content_sha256, repr(spec))


def recall(name: str, shape: tuple[int, int]) -> np.ndarray | None:
    """The values remembered under ``name``; None where there are none, or they are
    damaged or not float64 of ``shape``."""
    payload = _SHELF.read(name)
    if payload is None:
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
    _SHELF.write(name, buf.getvalue())
