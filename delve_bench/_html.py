"""The HTML the API's result objects show in a notebook is built from escaped text only."""

from __future__ import annotations

import html
from collections.abc import Sequence


def html_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain HTML table (every cell escaped)."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def paragraph(text: str) -> str:
    return f"<p>{html.escape(text)}</p>"
