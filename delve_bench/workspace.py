"""Where specs, splits, shipped data and results live.

A workspace is a directory with ``datasets/``, ``tasks/``, ``methods/`` and ``results/``.
Specs are looked up in the workspace first and then in the built-in copies shipped with
the package, so a fresh ``pip install`` works from any directory. The redistributable data
files ship beside the built-in specs (``data/``), so the built-in tasks run offline.
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_PKG = Path(__file__).resolve().parent


# cached: an installation does not change under a running process, and specs are looked
# up for every job (the stat below cost each lookup)
@functools.cache
def builtin_root() -> Path:
    """The directory holding the built-in ``datasets/``, ``tasks/``, ``methods/`` and ``data/``.

    A wheel carries them as ``delve_bench/_specs``; a source checkout (editable install)
    has them at the repository root beside the package.
    """
    packaged = _PKG / "_specs"
    if (packaged / "datasets").is_dir():
        return packaged
    return _PKG.parent


@dataclass(frozen=True)
class Reference:
    """A study's committed results read beside the workspace's own (``--with STUDY``):
    ``name`` is the study, ``dir`` its folder holding ``losses/`` and ``meta/``
    (:mod:`delve_bench.study.pack`). Read only: nothing is ever written there."""

    name: str
    dir: Path


@dataclass(frozen=True)
class WorkspaceDirs:
    """Where a DELVE workspace rooted at ``root`` (``--root`` / ``DELVE_ROOT`` / cwd) keeps
    its specs and results: what every layer below the API is handed. (The API's
    :class:`delve_bench.api.Workspace` wraps one and adds the commands as methods.)

    ``results_dir`` (``--results`` / ``DELVE_RESULTS``) puts the result store somewhere
    other than ``root/results``, e.g. a study's own ``results/<study>/``; specs still come
    from ``root``. ``reference``: a study whose committed results the analyses read as a
    second source (:mod:`delve_bench.run.sources`)."""

    root: Path
    results_dir: Path | None = None
    reference: Reference | None = None

    def __post_init__(self) -> None:
        # accept str and "~"; every path below is built from an absolute root
        object.__setattr__(self, "root", Path(self.root).expanduser().resolve())

    @classmethod
    def from_env(
        cls, root: str | os.PathLike | WorkspaceDirs | None = None, results: str | None = None
    ) -> WorkspaceDirs:
        if isinstance(root, WorkspaceDirs):  # already resolved (e.g. handed to a worker)
            return root
        # "~" is the user's home, never a folder named "~" in the current directory
        root = Path(root or os.environ.get("DELVE_ROOT") or os.getcwd()).expanduser().resolve()
        results = results or os.environ.get("DELVE_RESULTS")
        return cls(root, (root / Path(results).expanduser()).resolve() if results else None)

    def with_results(self, results: str | os.PathLike) -> WorkspaceDirs:
        """The same specs with the result store at ``results`` (relative to the root)."""
        return WorkspaceDirs(self.root, (self.root / results).resolve())

    def with_reference(self, reference: Reference | None) -> WorkspaceDirs:
        """The same workspace reading ``reference``'s committed results beside its own."""
        return WorkspaceDirs(self.root, self.results_dir, reference)

    def spec_dirs(self, kind: str) -> list[Path]:
        """Directories searched for ``kind`` specs (datasets, tasks, methods), in order."""
        dirs = [self.root / kind]
        builtin = builtin_root() / kind
        key = (self.root, kind)
        if key not in _BUILTIN_ELSEWHERE:  # resolving costs a syscall per path component
            _BUILTIN_ELSEWHERE[key] = builtin.resolve() != dirs[0].resolve()
        if _BUILTIN_ELSEWHERE[key]:
            dirs.append(builtin)
        return [d for d in dirs if d.is_dir()]

    def tasks_dir_for(self, dataset: str) -> Path:
        """The tasks directory of ``dataset``: the workspace's if present, else built-in."""
        for d in self.spec_dirs("tasks"):
            if (d / dataset).is_dir():
                return d / dataset
        return self.root / "tasks" / dataset

    @property
    def results(self) -> Path:
        return self.results_dir if self.results_dir is not None else self.root / "results"


def ensure_writable(directory: Path, probe: bool = True) -> None:
    """Prove that files can be written in ``directory``, so that a read-only results
    folder (or a full disk, or a file in the way) is one clear error before any job runs
    instead of one failure per job.

    ``probe=True`` creates the folder and writes and removes a file in it. ``probe=False``
    creates nothing: it asks the kernel (``access(2)``, which for root honours the
    capabilities the process holds) whether the folder, or where it does not exist yet its
    nearest existing parent, takes new entries. A run checks hundreds of result folders,
    and making each one and probing it cost the runner's parent more than dispatching the
    jobs; the jobs make their own folders."""
    from .errors import DelveError

    try:
        if probe:
            directory.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(dir=directory, prefix=".delve-write-test-")
            os.close(fd)
            os.unlink(name)
            return
        existing = directory
        while not os.path.lexists(existing) and existing.parent != existing:
            existing = existing.parent
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, f"{existing} is not a folder")
        if not os.access(existing, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as e:
        raise DelveError(f"cannot write results in {directory}: {e.strerror or e}") from None


#: (workspace root, kind) -> whether the built-in specs of that kind are another directory
#: than the workspace's (specs are looked up thousands of times by a study's status)
_BUILTIN_ELSEWHERE: dict[tuple[Path, str], bool] = {}


def shipped_data_dir() -> Path:
    """The data files that ship with the package (searched after DELVE_DATA_PATH and the cache)."""
    return builtin_root() / "data"


_LISTINGS: dict[tuple[Path, int], tuple[Path, ...]] = {}


def _listing_key(d: Path) -> tuple[Path, int] | None:
    """``d`` and the version of its listing (its mtime changes when a file is added,
    removed or renamed); None when it does not exist."""
    try:
        return (d, d.stat().st_mtime_ns)
    except OSError:
        return None


def yaml_files(d: Path) -> tuple[Path, ...]:
    """The ``*.yaml`` files of directory ``d``, sorted; () when it does not exist.

    Cached per version of the directory: specs are looked up for every job, and a fresh
    glob costs milliseconds."""
    key = _listing_key(d)
    if key is None:
        return ()
    if key not in _LISTINGS:
        _LISTINGS[key] = tuple(sorted(d.glob("*.yaml")))
    return _LISTINGS[key]


_BY_NAME: dict[tuple[tuple[Path, int] | None, ...], dict[str, Path]] = {}


def spec_files(dirs: Iterable[Path]) -> dict[str, Path]:
    """The ``*.yaml`` files of ``dirs`` by name (the file's stem), a later directory's
    file replacing an earlier one's of the same name. Cached per version of the
    directories' listings (:func:`yaml_files`), keyed by the directories and their
    mtimes, not the listings: hashing every file's path on each lookup cost a study's
    planning more than the lookup. The mapping is shared: read it, do not change it."""
    dirs = tuple(dirs)
    key = tuple(_listing_key(d) for d in dirs)
    if key not in _BY_NAME:
        _BY_NAME[key] = {p.stem: p for d in dirs for p in yaml_files(d)}
    return _BY_NAME[key]


def user_cache() -> Path:
    """The user's cache folder of delve-bench (``$XDG_CACHE_HOME/delve-bench``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "delve-bench"


def cache_dir() -> Path:
    """The user cache for fetched data (``$XDG_CACHE_HOME/delve-bench/data``)."""
    return user_cache() / "data"
