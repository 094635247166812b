"""Shared fixtures: scratch workspaces and a way to run the real `delve` command. The real
data ships with the package (DELVE_DATA_PATH, when set, is searched first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import DATA, REPO  # noqa: F401


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
