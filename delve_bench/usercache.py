"""Entries remembered in the user's cache (``$XDG_CACHE_HOME/delve-bench``) by what they
are computed from, so that a command does not compute again what an earlier one did.

An entry is a function of its inputs and of the code that computes it, so it is named by
the sha256 of both (:meth:`Shelf.name`): the code is the sources of the modules that
compute it, this module's own source (which lays the files out) and the versions of the
libraries it runs. Any other input or version of the code is another name, computed
afresh: an entry never goes stale. An entry file is the sha256 of its name and payload
followed by the payload, written to a temporary file and renamed into place, so that it
is complete or absent whoever writes it at the same time. A file that is damaged, cut
short, or was written under another name does not match its sha256 and reads as missing;
a cache that cannot be read or written costs time only. Deleting the folder is always
safe.

The shelves: ``parsed`` (a data file's values, :mod:`.data.parsed`), ``power`` (the
quasi-F's simulated powers, :mod:`.analysis.powers`) and ``checked`` (the committed loss
files that passed their check, :mod:`.run.checked`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .workspace import user_cache

_PKG = Path(__file__).resolve().parent
_DIGEST = 32  # bytes of the sha256 that heads an entry file


@functools.cache
def code_digest(sources: tuple[str, ...], libraries: tuple[str, ...]) -> bytes:
    """sha256 of the code an entry depends on: the ``sources`` (paths relative to the
    package), this module's source and the versions of the ``libraries`` (importable
    names, e.g. ``numpy``). Raises OSError where a source cannot be read."""
    h = hashlib.sha256()
    for name in (*sources, "usercache.py"):
        h.update(name.encode() + b"\0" + _PKG.joinpath(name).read_bytes() + b"\0")
    for lib in libraries:
        h.update(f"{lib} {importlib.import_module(lib).__version__}\0".encode())
    return h.digest()


@dataclass(frozen=True)
class Shelf:
    """The entries of one kind, in the folder ``folder`` of the user cache, computed by
    the modules ``sources`` with the ``libraries``."""

    folder: str
    sources: tuple[str, ...] = ()
    libraries: tuple[str, ...] = ()

    def name(self, *fields: str) -> str:
        """The name of the entry computed from ``fields`` (its inputs, as exact text) by
        this shelf's code."""
        h = hashlib.sha256(code_digest(self.sources, self.libraries))
        for f in fields:
            h.update(f.encode() + b"\0")  # "ab", "c" and "a", "bc" are other names
        return h.hexdigest()

    def path(self, name: str) -> Path:
        return user_cache() / self.folder / name

    def read(self, name: str) -> bytes | None:
        """The payload written under ``name``; None where there is none, it cannot be
        read, or it does not match its sha256 (damaged, or written under another name)."""
        try:
            data = self.path(name).read_bytes()
        except OSError:
            return None
        payload = data[_DIGEST:]
        return payload if data[:_DIGEST] == _sha256(name, payload) else None

    def write(self, name: str, payload: bytes) -> None:
        """Write ``payload`` under ``name`` (quietly nothing where the cache cannot be
        written; two commands writing at once leave one's payload, never a mixture)."""
        path = self.path(name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_sha256(name, payload) + payload)
            os.replace(tmp, path)  # complete or absent, whoever writes it at the same time
        except OSError:
            Path(tmp).unlink(missing_ok=True)


def _sha256(name: str, payload: bytes) -> bytes:
    """What heads an entry file: the sha256 of its name and payload."""
    return hashlib.sha256(name.encode() + b"\0" + payload).digest()
