"""The tests' warm `delve` (tests/warm.py) is the command as a fresh process runs it: the
same exit status, stdout and stderr; nothing remembered from one command to the next; a
timeout as subprocess.run raises it; a command whose environment the server cannot take
run as a real subprocess."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import warm

# each starts `delve` processes (and the first a server); the fast loop runs none
pytestmark = pytest.mark.slow


def _cold(args, env, cwd):
    return warm.cold(args, env, cwd, timeout=600)


def test_a_warm_command_prints_and_exits_as_a_fresh_process(tmp_path):
    env = dict(os.environ, DELVE_ROOT=str(tmp_path), PYTHONUNBUFFERED="1")
    first = ("run", "lin-1", "kin-8nm/std.64", "--instances", "0-1", "--budget-mode", "work")
    assert warm.run(first, env=env, cwd=tmp_path, timeout=600).returncode == 0
    losses = next(tmp_path.rglob("losses.csv"))
    for args in (
        ("status",),
        ("stats", "lin-1", "kin-8nm/std.64", "--json"),
        ("run", "nope-1", "kin-8nm/std.64"),  # a user error: exit 2, one line
        ("frobnicate",),  # a usage error
    ):
        w, c = warm.run(args, env=env, cwd=tmp_path, timeout=600), _cold(args, env, tmp_path)
        assert (w.returncode, w.stdout, w.stderr) == (c.returncode, c.stdout, c.stderr), args
    # a file changed between two commands is seen by the next one, as by a fresh process
    losses.write_text("garbage\n")
    w, c = (f(("status",), env, tmp_path) for f in (_warm, _cold))
    assert "corrupt" in w.stdout and w.stdout == c.stdout


def _warm(args, env, cwd):
    return warm.run(args, env=env, cwd=cwd, timeout=600)


def test_a_warm_command_past_its_timeout_is_killed_and_raised(tmp_path):
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "sleep-1.yaml").write_text(
        "plugin: misbehaving:Sleep\nparams: {}\nbudget: {hard_limit: 600}\n"
    )
    env = dict(os.environ, DELVE_ROOT=str(tmp_path), PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(Path(__file__).parent / "run")
    args = ("run", "sleep-1", "kin-8nm/std.64", "--instances", "0", "--budget-mode", "work")
    with pytest.raises(subprocess.TimeoutExpired):
        warm.run(args, env=env, cwd=tmp_path, timeout=3)
    # the server goes on serving after a command it had to kill
    assert warm.run(("--version",), env=env, cwd=tmp_path, timeout=600).returncode == 0


def test_only_variables_read_while_a_command_runs_may_differ_from_the_servers():
    server = warm._server()
    assert server is not None
    base = dict(server.env)
    assert server.takes(dict(base, DELVE_ROOT="/elsewhere", PYTHONPATH="/plugins"))
    assert server.takes(dict(base, PYTEST_CURRENT_TEST="x"))
    for key in ("OPENBLAS_CORETYPE", "HOME", "MPLBACKEND", "LANG"):
        assert not server.takes(dict(base, **{key: "other"})), key
    gone = dict(base)
    gone.pop("PYTHONUNBUFFERED")
    assert not server.takes(gone)
