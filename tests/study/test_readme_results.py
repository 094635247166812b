"""The README's headline table of the reference studies is made from the committed
``results/<study>/report/RESULTS.md`` files (which CI regenerates from the committed
losses): the block between ``<!-- headline -->`` and ``<!-- /headline -->`` must equal
:func:`headline`. The studies' full tables and claims live only in their RESULTS.md.

After ``delve study report NAME``, ``python tests/study/test_readme_results.py`` rewrites
the README's block.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: the studies the headline shows, in this order (those with a committed RESULTS.md)
STUDIES = ("thesis", "barrio", "barrio-hwang", "modern", "smoke")
SUMMARY = "## Standardised squared error (S) by method and task"
CLAIMS = "## Published claims and what these results show"
MARK = re.compile(r"<!-- headline -->\n(.*?)<!-- /headline -->\n", re.S)


def _section(text: str, title: str) -> list[list[str]]:
    """The rows (cells) of the Markdown table under ``title`` ([] when there is none)."""
    if title + "\n" not in text:
        return []
    body = text.split(title + "\n", 1)[1].split("\n## ", 1)[0]
    rows = [x for x in body.splitlines() if x.startswith("|")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def _row(study: str) -> str:
    path = ROOT / "results" / study / "report" / "RESULTS.md"
    text = path.read_text()
    what = text.split("\n\n", 2)[1].replace("\n", " ").split(":", 1)[0].rstrip(".")
    head = text.split(SUMMARY + "\n", 1)[1].split("\n", 2)[1]
    methods = [c.strip() for c in head.strip("|").split("|")][1:]
    rows = _section(text, SUMMARY)
    best: Counter[str] = Counter()
    for r in rows:
        values = {
            m: v for m, c in zip(methods, r[1:], strict=True) if (v := _number(c)) is not None
        }
        if values:
            best[min(values, key=lambda m: values[m])] += 1
    top = ", ".join(f"{m} {k}" for m, k in best.most_common(3))
    verdicts = Counter(r[-1].split()[0] for r in _section(text, CLAIMS))
    order = {"agrees": 0, "partly": 1, "disagrees": 2}
    claims = (
        ", ".join(
            f"{k} {v.removesuffix('s') if v in order else v}"
            for v, k in sorted(verdicts.items(), key=lambda x: (order.get(x[0], 3), x[0]))
        )
        or "–"
    )
    link = f"[RESULTS.md](results/{study}/report/RESULTS.md)"
    return f"| `{study}` | {what} | {len(methods)} | {len(rows)} | {top} | {claims} | {link} |\n"


def headline() -> str:
    """The README's table: per study what it reproduces, its methods and tasks, which
    methods have the lowest standardised S most often, the claims' verdicts, the link."""
    head = (
        "| study | reproduces | methods | tasks | lowest S (tasks) | claims | results |\n"
        "|---|---|---:|---:|---|---|---|\n"
    )
    return head + "".join(
        _row(s) for s in STUDIES if (ROOT / "results" / s / "report" / "RESULTS.md").is_file()
    )


def expected(readme: str) -> str:
    return MARK.sub(lambda m: f"<!-- headline -->\n{headline()}<!-- /headline -->\n", readme)


def test_the_readme_headline_is_made_from_the_committed_results():
    readme = README.read_text()
    assert len(MARK.findall(readme)) == 1
    assert readme == expected(readme), (
        "README's headline table differs from results/*/report/RESULTS.md; run "
        "`python tests/study/test_readme_results.py` to remake it"
    )


def test_the_readme_is_an_entry_point():
    """At most 300 lines, and no study table copied into it: those live in RESULTS.md."""
    readme = README.read_text()
    assert len(readme.splitlines()) <= 300
    assert "<!-- study:" not in readme
    for link in re.findall(r"\]\(([^)#\s]+)", readme):
        if not re.match(r"[a-z]+:", link):
            assert (ROOT / link).exists(), link


if __name__ == "__main__":
    README.write_text(expected(README.read_text()))
    sys.exit(0)
