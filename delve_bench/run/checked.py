"""Which committed loss files passed their check in full, remembered by content.

Every read of a study's committed rows checks each instance against the sha256 its meta
line records (:meth:`.packed.Packed.rows`), which formats every loss as text: most of the
CPU of a ``compare`` or ``report`` over many tasks of a study. The outcome is a function
of the rows, the recorded hashes and the code that formats them, so once every instance
of a file has passed, a mark (an entry of :mod:`..usercache` with nothing in it) named
by the sha256 of exactly those (:func:`.packed.read_packed` computes it from what it
read) is written under ``$XDG_CACHE_HOME/delve-bench/checked``; a later read of the same
content skips the check. Any other byte, or another version of the code, is another name,
checked afresh.
Only a pass is remembered, never a result; a cache that cannot be read or written costs
time only, and a mark that does not match its sha256 (as the empty marks of earlier
versions) is no pass.
"""

from __future__ import annotations

from ..usercache import Shelf

#: no sources: the digest a mark is named by already holds :mod:`.packed`'s source
_SHELF = Shelf("checked")


def passed_before(digest: str) -> bool:
    """True when content ``digest`` passed its check in full before."""
    return _SHELF.read(_SHELF.name(digest)) is not None


def remember_pass(digest: str) -> None:
    """Record that content ``digest`` passed its check in full (quietly nothing where the
    cache cannot be written)."""
    _SHELF.write(_SHELF.name(digest), b"")
