"""What ``delve`` prints is text, never terminal commands.

A method's summary, a dataset's description or a directory name can hold control
characters; printed raw, an escape sequence could retitle the terminal, clear it, or
rewrite what was printed before (e.g. turn a FAILED line into ok). :class:`Printable`
wraps the standard streams and drops every C0 control character except tab and newline
(and carriage return on stderr, which the progress bar uses), DEL and the C1 controls
(U+0080-U+009F; U+009B is a one-character escape sequence on some terminals). JSON
output escapes C0 characters itself, so only DEL and C1 are dropped from it.
"""

from __future__ import annotations

import io
import sys
from typing import Any


def _table(keep: str) -> dict[int, None]:
    drop = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]
    return {c: None for c in drop if chr(c) not in keep}


STDOUT_TABLE = _table("\t\n")
STDERR_TABLE = _table("\t\n\r")


def printable(text: str, table: dict[int, None] = STDOUT_TABLE) -> str:
    """``text`` without the control characters :data:`STDOUT_TABLE` drops."""
    return text.translate(table)


class Printable(io.TextIOBase):
    """A text stream that forwards to ``stream`` what :func:`printable` leaves."""

    def __init__(self, stream: Any, table: dict[int, None]):
        self._stream = stream
        self._table = table

    def write(self, s: str) -> int:
        self._stream.write(s.translate(self._table))
        return len(s)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._stream.errors

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def install() -> None:
    """Wrap sys.stdout and sys.stderr (once)."""
    if not isinstance(sys.stdout, Printable) and sys.stdout is not None:
        sys.stdout = Printable(sys.stdout, STDOUT_TABLE)
    if not isinstance(sys.stderr, Printable) and sys.stderr is not None:
        sys.stderr = Printable(sys.stderr, STDERR_TABLE)
