"""The README's study results are the committed ones: each block between
``<!-- study:NAME:SECTION -->`` markers is the matching table of
``results/NAME/report/RESULTS.md`` (which CI regenerates from the committed losses).

After ``delve study report NAME``, ``python tests/study/test_readme_results.py`` rewrites
the README's blocks.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: README block -> the RESULTS.md section whose table it shows
SECTIONS = {
    "summary": "## Standardised squared error (S) by method and task",
    "claims": "## Published claims and what these results show",
}
MARK = re.compile(r"<!-- study:(\w+):(\w+) -->\n(.*?)<!-- /study -->\n", re.S)


def table(study: str, section: str) -> str:
    """The Markdown table under ``section`` of the study's RESULTS.md."""
    text = (ROOT / "results" / study / "report" / "RESULTS.md").read_text()
    body = text.split(SECTIONS[section] + "\n", 1)[1].split("\n## ", 1)[0]
    return "".join(line + "\n" for line in body.splitlines() if line.startswith("|"))


def expected(readme: str) -> str:
    return MARK.sub(
        lambda m: f"<!-- study:{m[1]}:{m[2]} -->\n{table(m[1], m[2])}<!-- /study -->\n", readme
    )


def test_the_readme_shows_the_committed_study_results():
    readme = README.read_text()
    blocks = MARK.findall(readme)
    assert {(s, k) for s, k, _ in blocks} == {
        (s, k) for s in ("thesis", "barrio") for k in SECTIONS
    }
    assert readme == expected(readme), (
        "README's study tables differ from results/*/report/RESULTS.md; run "
        "`python tests/study/test_readme_results.py` to copy them over"
    )


if __name__ == "__main__":
    text = README.read_text()
    README.write_text(expected(text))
    sys.exit(0)
