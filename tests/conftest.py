"""Shared fixtures: scratch workspaces and a way to run the real `delve` command. The real
data ships with the package (DELVE_DATA_PATH, when set, is searched first)."""

from __future__ import annotations

import atexit
import gc
import logging
import os
import signal
import sys
from pathlib import Path

import pytest
import warm
from support import DATA, REPO  # noqa: F401

#: the modules that take longest (wall seconds of the full suite on two workers, heaviest
#: first), run before all others: pytest-xdist (``--dist loadfile
#: --no-loadscope-reorder``, pyproject.toml) hands each worker the next module in this
#: order, so the long ones start early and the short ones fill in at the end, rather than
#: one worker finishing a long module while the other waits. A module not named here
#: keeps its place after these; the order changes no test's outcome.
HEAVY_FIRST = (
    "study/test_study.py",
    "study/test_verify_committed.py",
    "cli/test_cli.py",
    "run/test_runner.py",
    "run/test_safety.py",
    "report/test_report.py",
    "cli/test_bad_input.py",
    "methods/test_contract.py",
    "study/test_leaderboard.py",
    "cli/test_power_cli.py",
    "study/test_fresh_install.py",
    "test_imports.py",
    "methods/basis/test_basis.py",
    "methods/mlp/test_mlp.py",
    "cli/test_classification_cli.py",
    "cli/test_hostile.py",
    "study/test_beside.py",
    "methods/mars/test_mars_plugin.py",
    "methods/gp/test_gp.py",
    "test_notebook.py",
    "test_api.py",
)


def _module_rank(item) -> int:
    path = item.nodeid.split("::", 1)[0].removeprefix("tests/")
    return HEAVY_FIRST.index(path) if path in HEAVY_FIRST else len(HEAVY_FIRST)


def pytest_collection_modifyitems(items):
    """A test that runs the `delve` command in a process of its own is slow (each is a
    fork of the warm server, tests/warm.py, and most start a forkserver for their jobs):
    one that uses the ``delve`` fixture, or any test of a module that uses
    ``support.run_delve`` (its module-scoped fixtures run the command).
    `pytest -m "not slow"` is the fast loop. The heaviest modules go first
    (:data:`HEAVY_FIRST`; the sort is stable, a module's tests keep their order)."""
    for item in items:
        module = getattr(item, "module", None)
        if "delve" in getattr(item, "fixturenames", ()) or hasattr(module, "run_delve"):
            item.add_marker(pytest.mark.slow)
    items.sort(key=_module_rank)


#: examples hypothesis tries per property (tests/test_fuzz.py): the full suite tries 150;
#: the fast loop (exactly `-m "not slow"`) tries 25, every property on fewer inputs (the
#: fuzz module took a sixth of the fast loop at 150)
FUZZ_EXAMPLES = {"full": 150, "fast-loop": 25}


def pytest_configure(config):
    # collecting imports the libraries and the test modules: a few hundred thousand objects
    # that live to the end, which the collector walked again and again (0.6 CPU s a worker)
    gc.disable()
    if not os.environ.get("PYTEST_XDIST_WORKER") and config.getoption("numprocesses", None):
        return  # the controller of workers runs no test: hypothesis (0.3 s) would delay them
    try:
        from hypothesis import settings
    except ImportError:  # no hypothesis: no properties to size
        return
    for name, examples in FUZZ_EXAMPLES.items():
        settings.register_profile(name, max_examples=examples)
    settings.load_profile("fast-loop" if config.getoption("markexpr") == "not slow" else "full")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    """What collection made is kept out of the collector's reach (:func:`gc.freeze`): its
    full collections during the tests then walk only the tests' own objects (0.8 CPU s a
    worker less in the fast loop)."""
    gc.freeze()
    gc.enable()


#: the least room a memory file system needs to hold the suite's scratch folders
SCRATCH_ROOM = 4 * 2**30


def _memory_scratch() -> str | None:
    """/dev/shm where it is a memory file system (tmpfs) with room, else None. The suite
    makes and removes some ten thousand scratch files and folders; on a disk mounted with
    online discard (as the 2-core machine the suite is timed on is) each removal waits
    for the device, 3 ms a folder: a tenth of the fast loop."""
    try:
        with open("/proc/mounts") as f:
            tmpfs = any(li.split()[1:3] == ["/dev/shm", "tmpfs"] for li in f)
        room = os.statvfs("/dev/shm")
    except OSError:
        return None
    if tmpfs and room.f_bavail * room.f_frsize >= SCRATCH_ROOM and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return None


# pytest makes its numbered scratch folders (tmp_path) under this root; workers take the
# controller's. A root or temporary folder the user chose is kept.
if not {"PYTEST_DEBUG_TEMPROOT", "TMPDIR"} & os.environ.keys() and (_SCRATCH := _memory_scratch()):
    os.environ["PYTEST_DEBUG_TEMPROOT"] = _SCRATCH


#: set when this xdist worker's session has finished (nothing of it left to report)
_WORKER_DONE: list[bool] = []


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _WORKER_DONE.append(True)


def _end_worker() -> None:
    """A worker whose session finished leaves without tearing down its modules: freeing
    numpy, pandas, scipy, matplotlib and the method libraries took a second that the
    controller waited for. It runs after every exit function registered after this
    module was imported (tmp folders, the warm servers) and flushes what is left."""
    if _WORKER_DONE:
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_end_worker)


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


@pytest.fixture(scope="session", autouse=True)
def _ctrl_c_reaches_children():
    """Ctrl-C reaches the `delve` runs the tests start. A process started with `&` by a
    shell without job control (`nohup pytest &` in a script) has SIGINT ignored, and an
    ignored signal stays ignored across exec, so every run it starts would ignore the
    Ctrl-C the safety tests send (as a background job should). A handled signal is reset
    to the default at exec, so the tests' children get a terminal job's Ctrl-C again."""
    old = signal.getsignal(signal.SIGINT)
    if old == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if old == signal.SIG_IGN:
        signal.signal(signal.SIGINT, old)


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    """One BLAS and OpenMP thread in each test process, as every `delve` job has
    (:func:`delve_bench.run.job.thread_limit`, the jobs' own limit).

    Idle OpenBLAS threads spin: with a pool as wide as the machine in each pytest-xdist
    worker (one worker per core), and on a machine shared with other work, the same fits
    cost several times the CPU (the two kin-8nm width-stage tests of
    tests/methods/basis/test_widths.py: 31 CPU seconds with two threads on a loaded
    2-core machine, 7 with one). numpy's and scipy's OpenBLAS are loaded first, for the
    limit to reach both; its variables cover the libraries loaded later (OpenMP in
    scikit-learn) and the `delve` subprocesses. A test that asks for more threads
    (``threadpool_limits(2)``) still gets them: the limit is a setting, not a cap."""
    import numpy  # noqa: F401
    import scipy.linalg  # noqa: F401

    from delve_bench.run.job import thread_limit

    with thread_limit(1):
        yield


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
    """Run the `delve` command in a scratch workspace: a process of its own, forked from a
    server that has its imports done (tests/warm.py)."""

    def run(*args: str, root: Path | None = None, env: dict | None = None, check: bool = False):
        e = dict(os.environ, DELVE_ROOT=str(root or tmp_path), PYTHONUNBUFFERED="1")
        e.update(env or {})
        r = warm.run(args, env=e, cwd=root or tmp_path, timeout=600)
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
