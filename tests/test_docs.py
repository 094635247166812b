"""docs/README.md is the index of the documentation: it links every page of docs/, once
per page at the least, and every link it has leads to a page."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _links(text: str) -> set[str]:
    """The pages of docs/ a Markdown text links to (anchors dropped, web links left out)."""
    found = re.findall(r"\]\(([^)\s#]+\.md)(?:#[^)]*)?\)", text)
    return {m for m in found if "://" not in m}


def test_the_index_links_every_page_and_only_pages_that_exist():
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")} - {"README.md"}
    linked = _links((DOCS / "README.md").read_text())
    assert sorted(pages - linked) == []
    assert sorted(linked - pages) == []


def test_the_link_reader_reads_anchored_and_nested_links():
    text = "[a](methods/gp.md), [b](statistics.md#standardisation), [c](https://x.org/y.md)"
    assert _links(text) == {"methods/gp.md", "statistics.md"}
