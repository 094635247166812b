"""Plain helpers shared by the test modules (importable as ``support``: pytest puts
``tests/`` on sys.path, see pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

from delve_bench.workspace import shipped_data_dir

REPO = Path(__file__).resolve().parents[1]
#: the data files that ship with the package (docs/data.md): every test has real data
DATA = shipped_data_dir()


def one_line_error(r, needle: str = "") -> str:
    """Assert a finished `delve` process failed as a user error: exit 2, one line, no
    traceback, mentioning ``needle``; returns the line."""
    out = (r.stderr + r.stdout).strip()
    assert r.returncode == 2, out
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert needle in out, out
    return out


def fit_method(method, X, y, budget=None, seed: int = 0):
    """Fit ``method`` on encoded ``X`` (n, m), ``y`` (n,) with a seeded context (an unlimited
    work budget unless given) and return the context (its ``info`` is the meta.json part)."""
    from delve_bench.methods.base import FitContext

    ctx = FitContext.seeded(seed=seed, budget=budget, kinds=len(X[0]))
    method.fit(X, y, ctx)
    return ctx
