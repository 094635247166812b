"""Errors a user can cause and fix: printed as one line by the CLI, exit code 2."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class DelveError(Exception):
    """A user error: bad name, missing or malformed data, inconsistent results."""

    exit_code = 2


class TamperedResults(DelveError):
    """Committed (packed) results that do not match the hash recorded for them: an
    analysis stops on them, never skips them with a warning."""


class RunFailed(DelveError):
    """One or more instances of a run failed (their errors are recorded in meta.json)."""

    exit_code = 1


def suggest(name: str, choices: Iterable[str], n: int = 3) -> str:
    """' (did you mean a, b?)' for the closest names, or '' when nothing is close."""
    close = difflib.get_close_matches(name, sorted(set(choices)), n=n, cutoff=0.5)
    return f" (did you mean {', '.join(close)}?)" if close else ""
