"""Writing files that others read (reports, a study's packed results): atomically (the
result store's temporary file + rename) and readable by others like any file the user
creates (``0666 & ~umask``), since they are meant to be served, committed and diffed."""

from __future__ import annotations

import os
from pathlib import Path

from .store import atomic_write


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_file(path: Path, data: bytes) -> None:
    atomic_write(path, data)
    os.chmod(path, 0o666 & ~_umask())
