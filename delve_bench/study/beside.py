"""Your method beside a study: find a study's committed results wherever delve-bench is
installed, read them as a second source (``--with STUDY``), and run a method on exactly
the study's tasks, instances and budget settings (``delve run METHOD --study STUDY``).

The committed results (``results/<study>/losses`` and ``meta``) ship inside the package
(pyproject's ``force-include``), so a plain ``pip install`` reads them in place: a
workspace's own ``results/<study>/`` (a clone) comes first, then the installed copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import DelveError
from ..run.packed import packed_methods
from ..tasks.names import TaskRef
from ..workspace import Reference, WorkspaceDirs, builtin_root
from .spec import Instances, Study, instances_at, load_study, study_path


def committed_places(ws: WorkspaceDirs, study: Study) -> list[Path]:
    """Where a study's committed results may be: the workspace's, then the package's."""
    return list(dict.fromkeys([ws.root / study.results, builtin_root() / study.results]))


def committed_dir(ws: WorkspaceDirs, study: Study) -> Path:
    """The folder holding the study's committed ``losses/`` and ``meta/``; a one-line
    error naming the places looked at when there are none."""
    places = committed_places(ws, study)
    for p in places:
        if packed_methods(p):
            return p
    raise DelveError(
        f"study {study.name} has no committed results (looked in "
        f"{' and '.join(str(p) for p in places)}); `delve study run {study.name}` makes them"
    )


@dataclass(frozen=True, kw_only=True)
class Unpacked:
    """``delve study unpack``: how many instances were written from ``source`` into
    ``dest`` (the ordinary result-store layout)."""

    study: str
    written: int
    source: Path
    dest: Path

    def __repr__(self) -> str:
        return f"Unpacked({self.written} instances of study {self.study} into {self.dest})"


def unpack_study(ws: WorkspaceDirs, study: Study) -> Unpacked:
    """Write the committed results of ``study`` that are not there yet into the
    workspace's ``results/<study>/runs``; nothing to write is an error saying where the
    results are read from instead."""
    from .pack import unpack

    src = committed_dir(ws, study)  # a one-line error naming where it looked
    dest = ws.root / study.results / "runs"
    names = [*study.method_names, *study.snapshot_names]
    n = unpack(src, dest, names, study.refs(ws), True)
    if n == 0:
        raise DelveError(
            f"nothing to unpack: every committed result of study {study.name} ({src}) is in "
            f"{dest} already; the analysis commands read them in place with --with {study.name}"
        )
    return Unpacked(study=study.name, written=n, source=src, dest=dest)


def reference(ws: WorkspaceDirs, name: str) -> Reference:
    """Study ``name``'s committed results as a read-only source (``--with NAME``)."""
    study = load_study(ws, name)
    return Reference(study.name, committed_dir(ws, study))


def with_study(ws: WorkspaceDirs, name: str | None) -> WorkspaceDirs:
    """``ws`` reading study ``name``'s committed results beside its own (None: ``ws``)."""
    return ws if not name else ws.with_reference(reference(ws, name))


def study_baseline(ws: WorkspaceDirs, name: str) -> WorkspaceDirs:
    """The study's committed results alone, as ``delve check``'s baseline: its folder is
    the (empty) result store, so every method is read from the packed files."""
    r = reference(ws, name)
    return WorkspaceDirs(ws.root, r.dir, r)


def studies_with(ws: WorkspaceDirs, method: str, ref: TaskRef) -> list[str]:
    """The studies (workspace and built-in) that committed results of ``method`` on
    ``ref``: what a missing-results message may point to with ``--with``."""
    from ..run.sources import packed

    names = sorted({p.stem for d in ws.spec_dirs("studies") for p in d.glob("*.yaml")})
    out = []
    for name in names:
        try:
            study = load_study(ws, name)
            d = committed_dir(ws, study)
        except DelveError:
            continue
        p = packed(d, method, ref.dataset, ref.prototask)
        if any(size == ref.size for size, _ in p.metas):
            out.append(name)
    return out


@dataclass(frozen=True)
class StudySettings:
    """How ``delve run METHOD --study S`` runs: S's tasks, instances and budget settings."""

    study: Study
    refs: list[TaskRef]
    budget_mode: str
    time_scale: float
    hard_limit: float | None
    #: (size, instances) the study runs at the sizes it names (``instances``); others: all
    instances: Instances = ()

    def instances_at(self, ref: TaskRef) -> set[int] | None:
        """The instances the study runs on ``ref``; None: all of them."""
        return instances_at(self.instances, ref)


def study_settings(
    ws: WorkspaceDirs, name: str, methods: Sequence[str], tasks: Sequence[str] = ()
) -> StudySettings:
    """The tasks (the study's, or those of ``tasks`` among them) and budget settings that
    run ``methods`` as study ``name`` ran its own: a method of the study keeps its plan
    (budget mode, time scale, hard limit, sizes it skips, instances it runs); any other
    method gets the study's defaults. Methods with different settings must be run one at a time."""
    study = load_study(ws, name)
    plans = {
        m: study.plan(m) if m in study.method_names or m in study.snapshot_names else None
        for m in methods
    }
    settings = {
        (p.budget_mode, p.time_scale, p.time_scales, p.hard_limit, p.instances)
        if p
        else (study.defaults[0], study.defaults[1], (), None, study.default_instances)
        for p in plans.values()
    }
    if len(settings) > 1:
        raise DelveError(
            f"{', '.join(methods)} run with different budget settings in study {name}; "
            "run them one at a time"
        )
    mode, _, _, hard, instances = settings.pop()
    refs = study.refs(ws)
    if tasks:
        wanted = study.subset(ws, tasks)
        refs = [r for r in refs if r in wanted]
    skip = {s for p in plans.values() if p for s in p.skip_sizes}
    refs = [r for r in refs if r.size not in skip]
    if not refs:
        raise DelveError(f"study {name} runs {', '.join(methods)} on none of these tasks")
    # one run has one time scale; the study may set one per task (``time_scale: {...}``)
    plan = next(iter(plans.values()))
    scales = {plan.time_scale_at(r) if plan else study.defaults[1] for r in refs}
    if len(scales) > 1:
        assert plan is not None  # a method the study does not name has one time scale
        raise DelveError(
            f"study {name} runs {plan.name} at time scale {plan.describe_time_scale()}; "
            "run the tasks of one time scale at a time (--tasks)"
        )
    return StudySettings(study, refs, mode, scales.pop(), hard, instances)


def is_study(ws: WorkspaceDirs, name: str) -> bool:
    try:
        study_path(ws, name)
    except DelveError:
        return False
    return True


def next_command(ws: WorkspaceDirs, method: str, ref: TaskRef) -> str:
    """What to do when ``method`` has no results on ``ref``: the command that makes them,
    or the ``--with STUDY`` that reads a study's committed ones."""
    from ..run.sources import study_dir_of, study_task_fields

    if study_dir_of(ws, method) is not None and ws.reference is not None:
        return (
            f"study {ws.reference.name} has none there (`delve study status {ws.reference.name}`)"
        )
    run = f"`delve run {method} {ref.full_name}`"
    if ws.reference is not None and study_task_fields(ws.reference.dir, ref):
        run = f"`delve run {method} --study {ws.reference.name} --tasks {ref.full_name}`"
    if ws.reference is not None and (ws.reference.dir / "meta" / method).is_dir():
        # the study has the method, but the store's own results of it (on other tasks)
        # are read instead, per method (run/sources.py): say so, or the study looks empty
        return (
            f"your {ws.results / method} is read instead of study {ws.reference.name}'s "
            f"{method}: run {run}, or move that folder aside to read the study's"
        )
    have = [
        s for s in studies_with(ws, method, ref) if ws.reference is None or s != ws.reference.name
    ]
    if have:
        also = "".join(f" (or {s})" for s in have[1:])
        return f"add `--with {have[0]}`{also} to read the study's, or run {run}"
    return f"run {run}"
