"""Shared fixtures: real DELVE data from DELVE_DATA_PATH (default ../shared/data beside the
checkout), scratch workspaces, and a way to run the real `delve` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_default = REPO.parent / "shared" / "data"
if not os.environ.get("DELVE_DATA_PATH") and _default.is_dir():
    os.environ["DELVE_DATA_PATH"] = str(_default)
DATA = Path(os.environ.get("DELVE_DATA_PATH", str(_default)).split(os.pathsep)[0])


def have_data(name: str) -> bool:
    return (DATA / f"{name}.data.gz").is_file()


needs_data = pytest.mark.skipif(
    not have_data("kin-8nm"), reason="real DELVE data not found (DELVE_DATA_PATH)"
)


@pytest.fixture
def ws(tmp_path):
    """An empty workspace: built-in specs, results written under tmp_path."""
    from delve_bench.workspace import Workspace

    return Workspace(tmp_path)


@pytest.fixture
def delve(tmp_path):
    """Run the real `delve` command (a subprocess) in a scratch workspace."""

    def run(*args: str, root: Path | None = None, env: dict | None = None, check: bool = False):
        e = dict(os.environ, DELVE_ROOT=str(root or tmp_path), PYTHONUNBUFFERED="1")
        e.update(env or {})
        r = subprocess.run(
            [sys.executable, "-m", "delve_bench", *args],
            capture_output=True,
            text=True,
            env=e,
            cwd=str(root or tmp_path),
            timeout=600,
        )
        if check and r.returncode != 0:
            raise AssertionError(
                f"delve {' '.join(args)} exited {r.returncode}: {r.stderr[-2000:]}"
            )
        return r

    return run
