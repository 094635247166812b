"""The promise of the README's "Compare your method with the thesis", kept by CI: a
fresh virtual environment, ``pip install`` of a clone, then in an empty directory a
three-line YAML for a scikit-learn regressor, one command to run it on a study's tasks
and one for a report beside the study's methods; offline, no reference method rerun.

The study is ``smoke`` (the small one: lin-1 and knn-cv-1 on kin-8nm at 64 and 128
cases); the commands are those the README shows for ``thesis``. Offline: the fresh
environment takes its dependencies (numpy, scikit-learn, hatchling to build, ...) from
the test's own environment through a ``.pth`` file, and pip may not use an index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from support import REPO

STUDY = "smoke"
METHODS = ("lin-1", "knn-cv-1")  # the study's methods: read, never rerun
YAML = """\
plugin: sklearn.ensemble:HistGradientBoostingRegressor
summary: Histogram gradient-boosted trees (scikit-learn defaults)
params: {max_iter: 100}
"""


def _clone(dest: Path) -> Path:
    """The repository's tracked files (as a clone has them) copied to ``dest``."""
    files = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.split(b"\0")
    for f in filter(None, files):
        src = REPO / os.fsdecode(f)
        if src.is_file():
            (dest / os.fsdecode(f)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / os.fsdecode(f))
    return dest


def _offline(tmp: Path) -> dict:
    # PYTHONPATH too: a checkout on it (a worktree tested against another's install) would
    # be imported instead of the package the fresh environment installed
    drop = ("DELVE_", "PIP_", "VIRTUAL_ENV", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return env | {
        "HOME": str(tmp / "home"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "PIP_NO_INDEX": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "http_proxy": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
    }


@pytest.mark.slow
def test_a_new_method_beside_a_study_after_a_plain_pip_install(tmp_path):
    if not (REPO / ".git").exists():
        pytest.skip("needs a git checkout to clone")
    pytest.importorskip("hatchling", reason="builds the wheel offline (pip install '.[dev]')")
    pytest.importorskip("sklearn")
    clone = _clone(tmp_path / "clone")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # the dependencies, offline: this environment's site-packages, after the venv's own
    (site / "deps-from-the-test-environment.pth").write_text(sysconfig.get_paths()["purelib"])
    env = _offline(tmp_path)
    pip = [str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, str(clone)], check=True, env=env, cwd=tmp_path)
    where = subprocess.run(
        [str(py), "-c", "import delve_bench, sys; print(delve_bench.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tmp_path,
    ).stdout.strip()
    pkg = Path(where).parent
    assert pkg.is_relative_to(site), where  # the installed copy, not the checkout
    shipped = pkg / "_specs" / "results" / STUDY
    assert (shipped / "losses").is_dir() and (shipped / "meta").is_dir()
    results_mb = sum(p.stat().st_size for p in (pkg / "_specs" / "results").rglob("*")) / 1e6
    assert results_mb < 60, f"the shipped study results take {results_mb:.0f} MB"

    work = tmp_path / "empty"
    (work / "methods").mkdir(parents=True)
    (work / "methods" / "my-hgb-1.yaml").write_text(YAML)
    assert len(YAML.splitlines()) == 3
    delve = str(venv / "bin" / "delve")

    def run(*args: str) -> subprocess.CompletedProcess:
        r = subprocess.run(
            [delve, *args], capture_output=True, text=True, env=env, cwd=work, timeout=900
        )
        assert r.returncode == 0, f"delve {' '.join(args)}: {r.stderr[-2000:]}"
        return r

    run("run", "my-hgb-1", "--study", STUDY, "-q")
    r = run(
        "report", "--with", STUDY, "--methods", ",".join(("my-hgb-1", *METHODS)), "--plot",
        "--out", "beside",
    )  # fmt: skip
    assert r.stdout.endswith("open beside/index.html\n"), r.stdout
    # only the new method ran: the study's methods were read from the installed package
    assert sorted(p.name for p in (work / "results").iterdir()) == ["my-hgb-1"]
    summary = (work / "beside" / "tables" / "summary-S.md").read_text()
    head = next(x for x in summary.splitlines() if x.startswith("| task |"))
    assert all(m in head for m in ("my-hgb-1", *METHODS))
    rows = [x for x in summary.splitlines() if x.startswith("| kin-8nm/dist/std.")]
    assert len(rows) == 2 and all(x.count("±") == 3 for x in rows), rows
    assert (work / "beside" / "plots" / "kin-8nm-dist-S.png").is_file()
    # passed: the clone, the environment and its install (some 12,000 files) go now, beside
    # the other worker's tests, not in the serial clean-up at the end of a later pytest run
    # (pytest deletes a run's temporary folders three runs later); a failure keeps them
    for tree in (clone, venv):
        shutil.rmtree(tree)
