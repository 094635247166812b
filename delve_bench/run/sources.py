"""Where a method's results are read from: the workspace's own result store, or the
committed (packed) results of a reference study (``--with STUDY``).

With a reference study (:attr:`WorkspaceDirs.reference <delve_bench.workspace.WorkspaceDirs>`),
the analyses (stats, compare, report, power, check) see two sources, one per method:

* a method with any result in the workspace's store is read from there (your own runs,
  also of a method the study has: they are yours to compare);
* any other method the study packed is read, read only, from the study's
  ``losses/<method>/<dataset>-<prototask>.parquet`` and ``meta/...jsonl.xz``
  (:mod:`.packed`): no unpacking, no copy.

Instances of both are then paired on task, instance and test case exactly as two methods
of one store are (:func:`delve_bench.analysis.task.paired_instances`). A result of the
workspace is used beside the study's only when it was made on the same task: its task
fingerprint (data, index files, spec; docs/provenance.md) must equal the one the study
recorded for that instance, else the analysis stops with one line naming the field
(:func:`check_same_task`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DelveError
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs

if TYPE_CHECKING:
    from .packed import Packed

#: the fingerprint fields that say which task a result was made on, and what they mean
TASK_FIELDS = {
    "task.data": "data",
    "task.index": "index files",
    "task.spec": "spec",
    "task.random_order": "case order",
}


def own_results(ws: WorkspaceDirs, method: str) -> bool:
    """True when the workspace's store holds any task folder of ``method``."""
    return any((ws.results / method).glob("*/*/std.*"))


def study_dir_of(ws: WorkspaceDirs, method: str) -> Path | None:
    """The reference study's folder when ``method``'s results are read from it, None when
    they are read from the workspace's store."""
    ref = ws.reference
    if ref is None or not (ref.dir / "meta" / method).is_dir() or own_results(ws, method):
        return None
    return ref.dir


def _stamp(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


@lru_cache(maxsize=256)
def _meta_lines(path: Path, stamp: int) -> tuple[dict, ...]:
    """The meta lines of a packed file, read once per file version: a command that lists
    a study's tasks (:func:`study_tasks`) then reads their results (:func:`packed`) would
    otherwise decompress and parse every line twice."""
    from .packed import _meta_lines

    return tuple(_meta_lines(path)) if path.is_file() else ()


@lru_cache(maxsize=64)
def _packed(study_dir: Path, method: str, dataset: str, prototask: str, stamps) -> Packed:
    from .packed import packed_paths, read_packed

    meta = packed_paths(study_dir, method, dataset, prototask)[1]
    return read_packed(study_dir, method, dataset, prototask, _meta_lines(meta, stamps[1]))


def packed(study_dir: Path, method: str, dataset: str, prototask: str) -> Packed:
    """The packed results of ``method`` on a prototask (read once per file version)."""
    from .packed import packed_paths

    stamps = tuple(_stamp(p) for p in packed_paths(study_dir, method, dataset, prototask))
    return _packed(study_dir, method, dataset, prototask, stamps)


def _task_ref(name: str) -> TaskRef | None:
    parts = name.split("/")
    if len(parts) != 3 or not parts[2].startswith("std.") or not parts[2][4:].isdigit():
        return None
    return TaskRef(parts[0], parts[1], int(parts[2][4:]))


def _packed_tasks(path: Path, stamp: int) -> tuple[TaskRef, ...]:
    refs = {_task_ref(m["task"]) for m in _meta_lines(path, stamp)}
    return tuple(sorted(r for r in refs if r is not None))


def study_tasks(study_dir: Path, method: str) -> list[TaskRef]:
    """The tasks on which a study packed any result of ``method``."""
    out: set[TaskRef] = set()
    for p in sorted((study_dir / "meta" / method).glob("*.jsonl.xz")):
        out.update(_packed_tasks(p, _stamp(p)))
    return sorted(out)


def study_methods(study_dir: Path) -> list[str]:
    """The methods (and snapshots) a study packed results of."""
    from .packed import packed_methods

    return packed_methods(study_dir)


def method_tasks(ws: WorkspaceDirs, method: str) -> list[TaskRef]:
    """Tasks holding any result of ``method`` (well-formed ``std.<n>`` folders of the
    store, or the packed tasks when the method is read from the reference study)."""
    sd = study_dir_of(ws, method)
    if sd is not None:
        return study_tasks(sd, method)
    refs = set()
    for d in (ws.results / method).glob("*/*/std.*"):
        size = d.name.split(".", 1)[1]
        if d.is_dir() and size.isdigit() and any(d.iterdir()):
            refs.add(TaskRef(d.parts[-3], d.parts[-2], int(size)))
    return sorted(refs)


def reference_methods(ws: WorkspaceDirs) -> list[str]:
    """The reference study's methods that are read from it (not shadowed by own results)."""
    ref = ws.reference
    if ref is None:
        return []
    return [m for m in study_methods(ref.dir) if study_dir_of(ws, m) is not None]


def study_task_fields(study_dir: Path, ref: TaskRef) -> dict[int, dict]:
    """Instance -> the task fingerprint fields the study recorded for ``ref`` (from the
    first of its methods with a result there; every method of a study runs on the same
    task files, which ``delve study verify`` checks)."""
    for m in study_methods(study_dir):
        p = packed(study_dir, m, ref.dataset, ref.prototask)
        found = {
            inst: {k: fp.get(k) for k in TASK_FIELDS}
            for (size, inst), meta in p.metas.items()
            if size == ref.size and isinstance(fp := meta.get("fingerprint"), dict)
        }
        if found:
            return found
    return {}


def check_same_task(
    ws: WorkspaceDirs, method: str, ref: TaskRef, recorded: dict[int, dict | None]
) -> None:
    """Refuse the workspace's results of ``method`` on ``ref`` (``recorded``: instance ->
    its fingerprint) when they were made on another task than the reference study's
    results: one line naming the field that differs."""
    if ws.reference is None:
        return
    theirs = study_task_fields(ws.reference.dir, ref)
    for inst, fp in sorted(recorded.items()):
        want = theirs.get(inst)
        if want is None:
            continue
        mine = fp if isinstance(fp, dict) else {}
        for k, what in TASK_FIELDS.items():
            if mine.get(k) != want[k]:
                raise DelveError(
                    f"your {method} on {ref.full_name} (instance {inst}) was made on other "
                    f"task {what} than study {ws.reference.name}'s results ({k}: "
                    f"{mine.get(k)} here, {want[k]} in the study); they cannot be paired: "
                    f"rerun it with `delve run {method} --study {ws.reference.name} "
                    f"--tasks {ref.full_name} --force`"
                )
