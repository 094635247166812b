"""Shared fixtures: scratch workspaces and a way to run the real `delve` command. The real
data ships with the package (DELVE_DATA_PATH, when set, is searched first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import DATA, REPO  # noqa: F401


def pytest_collection_modifyitems(items):
    """A test that runs the real `delve` command in a subprocess is slow (each start
    imports numpy, scipy and pandas): one that uses the ``delve`` fixture, or any test of
    a module that uses ``support.run_delve`` (its module-scoped fixtures run the command).
    `pytest -m "not slow"` is the fast loop."""
    for item in items:
        module = getattr(item, "module", None)
        if "delve" in getattr(item, "fixturenames", ()) or hasattr(module, "run_delve"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _own_user_cache(tmp_path_factory):
    """The suite's own ``$XDG_CACHE_HOME``: what `delve` remembers in the user's cache (the
    committed files that passed their check, fetched data) is written to a scratch folder,
    never to the cache of the user running the tests, and no test leans on what an
    earlier run left there (the suite passes on a fresh machine's empty cache). The
    variable is inherited by the `delve` subprocesses; tests that need another cache set
    their own."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture
def ws(tmp_path):
    """An empty workspace: built-in specs, results written under tmp_path."""
    from delve_bench.workspace import WorkspaceDirs

    return WorkspaceDirs(tmp_path)


@pytest.fixture(scope="module")
def ws_module(tmp_path_factory):
    """An empty workspace shared by a module's tests (built-in specs only)."""
    from delve_bench.workspace import WorkspaceDirs

    return WorkspaceDirs(tmp_path_factory.mktemp("ws"))


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


@pytest.fixture
def make_ctx():
    """``make_ctx(kinds=0, budget=None, seed=0)``: a seeded FitContext for fitting a method
    directly (an unlimited work budget unless given; ``kinds`` may be a number of inputs)."""
    from delve_bench.methods.base import FitContext

    def make(kinds: list[str] | int = 0, budget=None, seed: int = 0) -> FitContext:
        return FitContext.seeded(seed=seed, budget=budget, kinds=kinds)

    return make


@pytest.fixture
def instance():
    """``instance(task="kin-8nm/std.64", i=0)``: the harness' encoded instance
    (:class:`delve_bench.run.EncodedInstance`) from the shipped data."""
    from delve_bench.run import load_instance
    from delve_bench.workspace import WorkspaceDirs

    def load(task: str = "kin-8nm/std.64", i: int = 0):
        return load_instance(WorkspaceDirs.from_env(), task, i)

    return load
