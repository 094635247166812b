"""``delve study leaderboard``: every method of several studies on the tasks they share.

The studies' committed results are read in place, as ``delve study report`` reads one
study's: a temporary folder links each method's packed files of each prototask from the
first study that has them, and is the analyses' reference study
(:mod:`delve_bench.run.sources`; no unpacking). The code of ``delve study report`` then
writes the DELVE diagrams and tables per prototask with each task's
paired tests, the summary, average ranks with the critical-difference diagram and the
wins and losses after Holm's correction (:mod:`delve_bench.analysis.rankings`), and the
geometric averages of standardised S by family, input dimension, noise level and
training-set size (the thesis' Figs. 5.14-5.17, :func:`.displays.write_geometric`). Like
a study's report it is a function of what is committed, so ``--check`` regenerates it and
compares byte for byte. Output: ``results/leaderboard/`` (``--out``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ..analysis.collect import collect, method_order
from ..errors import DelveError
from ..report import write_report
from ..run.packed import packed_paths
from ..tasks.names import TaskRef
from ..workspace import Reference, WorkspaceDirs
from . import displays as dp
from .report import FORMATS, StudyReport, check_tree, write_tree
from .spec import Study

#: where the leaderboard goes unless ``--out`` says otherwise
DEFAULT_OUT = Path("results/leaderboard")


def shared_refs(ws: WorkspaceDirs, studies: list[Study]) -> list[TaskRef]:
    """The tasks every study has, in the first study's order."""
    by_study = [{r.full_name: r for r in st.refs(ws)} for st in studies]
    common = set(by_study[0]).intersection(*by_study[1:])
    return [r for name, r in by_study[0].items() if name in common]


def leaderboard_methods(studies: list[Study]) -> list[str]:
    """The studies' main methods, each once, in the report's order."""
    return method_order(dict.fromkeys(m for st in studies for m in st.method_names))


def _link_results(study_dir: Path, union: Path, methods: list[str], refs: list[TaskRef]) -> int:
    """Link into ``union`` the study's packed files (``losses/<method>/<stem>.parquet``,
    ``meta/<method>/<stem>.jsonl.xz``) of each of ``methods`` on each prototask of
    ``refs`` that no earlier study linked. Returns how many of them the study has."""
    found = 0
    for m in methods:
        for ds, pt in sorted({(r.dataset, r.prototask) for r in refs}):
            theirs = packed_paths(study_dir, m, ds, pt)
            if not theirs[1].is_file():
                continue
            found += 1
            ours = packed_paths(union, m, ds, pt)
            if ours[1].exists():  # an earlier study's results of the method there
                continue
            for src, dst in zip(theirs, ours, strict=True):
                if src.is_file():
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    dst.symlink_to(src.resolve())
    return found


def _generate(ws: WorkspaceDirs, studies: list[Study], out: Path) -> StudyReport:
    if len(studies) < 2:
        raise DelveError("a leaderboard needs at least two studies")
    refs = shared_refs(ws, studies)
    names = ", ".join(st.name for st in studies)
    if not refs:
        raise DelveError(f"studies {names} share no task")
    res = StudyReport(out)
    with tempfile.TemporaryDirectory(prefix="delve-leaderboard-") as tmp:
        union = Path(tmp) / "studies"
        for st in studies:
            if not _link_results(ws.root / st.results, union, st.method_names, refs):
                raise DelveError(
                    f"study {st.name} has no committed results on the shared tasks in "
                    f"{st.results}; run `delve study run {st.name}` first"
                )
        ref = Reference(", ".join(st.name for st in studies), union)
        vws = WorkspaceDirs(ws.root, Path(tmp) / "results", ref)
        methods = leaderboard_methods(studies)
        tasks = [r.full_name for r in refs]
        rep = write_report(vws, tasks, methods, ("S",), out, True, FORMATS)
        res.files += [rep.index, *rep.tables, *rep.plots]
        res.warnings += rep.warnings
        reports = collect(vws, refs, methods, "S", res.warnings)
        res.files += dp.write_geometric(dp.StudyView(ws=vws, reports=reports, methods=methods), out)
    res.files = sorted(set(res.files))
    return res


def write_leaderboard(ws: WorkspaceDirs, studies: list[Study], out: Path) -> StudyReport:
    """Regenerate the leaderboard of ``studies`` in ``out`` (relative: to the workspace)."""
    return write_tree(ws.root / out, lambda tmp: _generate(ws, studies, tmp))


def check_leaderboard(ws: WorkspaceDirs, studies: list[Study], out: Path) -> list[str]:
    """Regenerate into a temporary folder and compare with ``out``: the files that
    differ, are missing or are extra (empty: byte-identical)."""
    return check_tree(ws.root / out, lambda tmp: _generate(ws, studies, tmp))
