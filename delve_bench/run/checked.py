"""Which committed loss files passed their check in full, remembered by content.

Every read of a study's committed rows checks each instance against the sha256 its meta
line records (:meth:`.packed.Packed.rows`), which formats every loss as text: most of the
CPU of a ``compare`` or ``report`` over many tasks of a study. The outcome is a function
of the rows, the recorded hashes and the code that formats them, so once every instance
of a file has passed, an empty file named by the sha256 of exactly those
(:func:`.packed.read_packed` computes it from what it read) is written under
``$XDG_CACHE_HOME/delve-bench/checked``; a later read of the same content skips the
check. Any other byte, or another version of the code, is another name, checked afresh.
Only a pass is remembered, never a result; a cache that cannot be read or written costs
time only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..workspace import user_cache


def _marker(digest: str) -> Path:
    return user_cache() / "checked" / digest


def passed_before(digest: str) -> bool:
    """True when content ``digest`` passed its check in full before."""
    return _marker(digest).is_file()


def remember_pass(digest: str) -> None:
    """Record that content ``digest`` passed its check in full (quietly nothing where the
    cache cannot be written)."""
    path = _marker(digest)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        os.close(fd)
        os.replace(tmp, path)  # complete or absent, whoever writes it at the same time
    except OSError:
        pass
