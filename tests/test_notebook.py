"""The README's notebook example, executed in a real Jupyter kernel (nbclient), cell by
cell as a user would run it, with what each cell shows checked: the plan's table and
estimate in words, the run's summary, the comparison's one-line verdict, the report's
absolute paths and its inline plot."""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

import pytest
from support import REPO

# found, not imported: at collection every pytest-xdist worker would import nbclient,
# ipykernel and scikit-learn (about 0.6 CPU s) for the one that runs the test
pytestmark = [
    pytest.mark.skipif(find_spec(m) is None, reason=f"no {m}: pip install '.[dev]'")
    for m in ("nbformat", "nbclient", "ipykernel", "sklearn")
]

BLOCK = re.compile(r"<!-- notebook -->\n```python\n(.*?)```\n", re.S)


def _cells() -> list[str]:
    blocks = BLOCK.findall((REPO / "README.md").read_text())
    assert len(blocks) == 1, "the README has one <!-- notebook --> python block"
    return [c.strip() for c in blocks[0].split("# %%") if c.strip()]


def _shown(cell) -> dict:
    """The last rich output of a cell: {mime type: text}."""
    outs = [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]
    assert outs, cell.source
    return {k: v if isinstance(v, str) else "".join(v) for k, v in outs[-1].data.items()}


@pytest.mark.slow
def test_the_readme_notebook_runs_in_a_kernel(tmp_path, monkeypatch):
    import nbclient
    import nbformat

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))  # the kernel inherits it: ~ is this folder
    monkeypatch.delenv("DELVE_ROOT", raising=False)
    monkeypatch.delenv("DELVE_RESULTS", raising=False)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in _cells()]
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    plan, run, compare, report = nb.cells
    shown = _shown(plan)
    assert shown["text/plain"].startswith("would run 8 jobs:")
    assert re.search(r"\b51 min\b", shown["text/plain"]), shown["text/plain"]
    assert "<table>" in shown["text/html"] and "Estimate: about 51 min CPU" in shown["text/html"]
    assert _shown(run)["text/plain"].startswith("RunSummary: ran 16, skipped 0 finished")
    verdict = _shown(compare)["text/plain"]
    assert verdict.startswith("ComparisonResult: ") and "\n" not in verdict
    assert "on kin-8nm/dist/std.128 (loss S, standardised): A - B = " in verdict
    files = _shown(report)
    root = home / "delve-notebook"
    assert f"open {root / 'results' / 'index.html'}" in files["text/plain"]
    assert "data:image/png;base64," in files["text/html"]
    # the user's method only: the study's were read from its committed files
    assert sorted(p.name for p in (root / "results").iterdir() if p.is_dir()) == [
        "my-hgb-1",
        "plots",
        "tables",
    ]
    assert not (tmp_path / "~").exists() and not Path("~").exists()
