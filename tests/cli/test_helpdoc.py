"""docs/cli.md is the commands' own --help, examples included, and is kept current."""

from __future__ import annotations

from support import REPO

from delve_bench.cli._helpdoc import render


def test_docs_cli_md_is_generated_from_the_help():
    current = (REPO / "docs" / "cli.md").read_text()
    assert current == render(), (
        "docs/cli.md is out of date: python -m delve_bench.cli._helpdoc > docs/cli.md"
    )
    assert current.count("Examples:") == current.count("## delve ")
