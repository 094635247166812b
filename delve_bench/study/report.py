"""``delve study report``: every table and figure of a study, from its committed results.

The report is built from the packed files only (:mod:`.pack`), read in place as the
reference study of an empty result store (:mod:`delve_bench.run.sources`, the source
``--with STUDY`` reads) by the same code as ``delve report``. So the report is a function
of what is committed, and ``--check`` can regenerate it anywhere and compare it byte for
byte with the committed one. Nothing is unpacked: for the thesis study that would write,
read back and delete some 14,000 files on every ``--check``. Output: ``results/<study>/report/``:

* ``index.html``, ``tables/`` and ``plots/`` of ``delve report --plot`` (per prototask
  DELVE diagrams and tables; summary, ranks, wins) for the main methods;
* ``<dataset>-<prototask>/`` the same for prototasks with more losses (boston: S, A, L);
* the study's displays (:mod:`.displays`, :mod:`.scaling`) under ``tables/`` and ``figures/``;
* ``RESULTS.md``: the summary table, links, and the claims of the papers beside what
  the results show (:mod:`.results_md`, :mod:`.claims`).
"""

from __future__ import annotations

import filecmp
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..analysis.collect import PrototaskReport, collect, method_order
from ..analysis.overview import overview
from ..errors import DelveError
from ..report import write_report
from ..run.packed import packed_paths
from ..tasks.names import TaskRef
from ..workspace import Reference, WorkspaceDirs
from . import displays as dp
from .pack import pack
from .results_md import write_results_md
from .scaling import write_scaling
from .spec import Study

#: figures as PNG only: the committed results must stay small (an SVG diagram with its
#: glyphs as paths is 1.7 times the PNG)
FORMATS = ("png",)


@dataclass
class StudyReport:
    """A report written: its folder, the files in it (relative) and the warnings."""

    out: Path
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        warned = f"; {len(self.warnings)} warnings" if self.warnings else ""
        return f"StudyReport({len(self.files)} files in {self.out}{warned})"


@dataclass(frozen=True, kw_only=True)
class ReportCheck:
    """A report regenerated into a temporary folder and compared with the committed one:
    ``differs`` lists the files that differ, are missing or are no longer made."""

    what: str  # "study NAME" or "leaderboard of A, B"
    differs: tuple[str, ...]

    @property
    def identical(self) -> bool:
        return not self.differs

    def __repr__(self) -> str:
        if self.identical:
            return f"ReportCheck({self.what}: every file is byte-identical)"
        return (
            f"ReportCheck({self.what}: {len(self.differs)} files differ: {', '.join(self.differs)})"
        )


def report_dir(ws: WorkspaceDirs, study: Study) -> Path:
    return ws.root / study.results / "report"


def _generate(ws: WorkspaceDirs, study: Study, out: Path) -> StudyReport:
    study_dir = ws.root / study.results
    refs = study.refs(ws)
    names = [*study.method_names, *study.snapshot_names]
    res = StudyReport(out)
    with tempfile.TemporaryDirectory(prefix="delve-study-") as tmp:
        pairs = sorted({(r.dataset, r.prototask) for r in refs})
        metas = (packed_paths(study_dir, m, ds, pt)[1] for m in names for ds, pt in pairs)
        if not any(p.is_file() for p in metas):
            raise DelveError(
                f"study {study.name} has no committed results in {study.results}; "
                f"run `delve study run {study.name}` first"
            )

        # every method is read from the committed files, checked against the hashes their
        # meta lines record, through an empty store of the workspace's specs
        def planned(m: str, ref: TaskRef) -> set[int] | None:
            return study.plan(m).instances_at(ref)

        vws = WorkspaceDirs(ws.root, Path(tmp) / "results", Reference(study.name, study_dir))
        main = method_order(study.method_names)
        protos = sorted({f"{r.dataset}/{r.prototask}" for r in refs})
        tasks = [r.full_name for r in refs]
        if "diagrams" in study.displays:
            rep = write_report(
                vws,
                tasks,
                main,
                study.losses_for("default"),
                out,
                True,
                FORMATS,
                planned=planned,
            )
            res.files += [rep.index, *rep.tables, *rep.plots]
            res.warnings += rep.warnings
            for p in protos:
                extra = study.losses_for(p)
                if extra != study.losses_for("default"):
                    sub = out / p.replace("/", "-")
                    mine = [r.full_name for r in refs if f"{r.dataset}/{r.prototask}" == p]
                    r2 = write_report(
                        vws,
                        mine,
                        main,
                        extra,
                        sub,
                        True,
                        FORMATS,
                        planned=planned,
                    )
                    rel = sub.relative_to(out)
                    res.files += [str(rel / f) for f in (r2.index, *r2.tables, *r2.plots)]
        reports = collect(vws, [r for r in refs], method_order(names), "S", res.warnings)
        bad = [
            f"{c.method} on {t.ref.full_name}"
            for r in reports
            for t in r.tasks
            for c in t.cells.values()
            if c.corrupt
        ]
        if bad:  # the committed files must read back whole; never report around them
            raise DelveError(f"committed results do not read back: {', '.join(bad[:5])}")
        view = dp.StudyView(
            ws=vws,
            reports=reports,
            methods=main,
            study_tasks=tuple(refs),
            planned=planned,
            method_tasks={
                name: frozenset(study.method_refs(ws, p))
                for p in study.methods
                for name in (p.name, *p.snapshot_names)
            },
        )
        ov = overview(_only(reports, main), main, "S")
        snaps = {p.name: p.snapshot_names for p in study.methods if p.snapshots}
        d = study.displays
        if "geometric" in d:
            res.files += dp.write_geometric(view, out)
        if "cpu-time" in d:
            res.files += dp.write_cpu_time(view, out)
        if "anytime" in d:
            res.files += dp.write_anytime(view, out, snaps)
        if "bagging" in d:
            res.files += dp.write_bagging(view, out)
        if "wins" in d:
            res.files += dp.write_wins(view, out, ov)
        if "basis-size" in d:
            res.files += dp.write_basis_size(view, out)
        if "basis-steps" in d:
            res.files += dp.write_basis_steps(view, out)
        if "hwang-wins" in d:
            res.files += dp.write_hwang_wins(view, out, _only(reports, main))
        if "hwang-basis" in d:
            res.files += dp.write_hwang_basis(view, out)
        if "scaling" in d:
            res.files += write_scaling(view, out, study.display_args.get("scaling", ()))
        res.files.append(write_results_md(study, view, ov, out, res.files))
    res.files = sorted(set(res.files))
    return res


def _only(reports: list[PrototaskReport], methods: list[str]) -> list[PrototaskReport]:
    """The reports restricted to ``methods`` (the main methods, without snapshots)."""
    keep = set(methods)
    return [
        replace(
            r,
            methods=tuple(m for m in r.methods if m in keep),
            tasks=tuple(
                replace(
                    t,
                    cells={m: c for m, c in t.cells.items() if m in keep},
                    pairs={k: v for k, v in t.pairs.items() if k[0] in keep and k[1] in keep},
                )
                for t in r.tasks
            ),
        )
        for r in reports
    ]


def _tree(root: Path) -> set[str]:
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }


def write_study_report(ws: WorkspaceDirs, study: Study, pack_first: bool = True) -> StudyReport:
    """Pack new results from the working store, then regenerate the report directory
    (files that are no longer made are removed)."""
    if pack_first:
        for p in study.methods:
            pack(
                ws.root / study.results,
                [p.name, *p.snapshot_names],
                study.method_refs(ws, p),
                study.losses_for,
            )
    return write_tree(report_dir(ws, study), lambda tmp: _generate(ws, study, tmp))


def check_study_report(ws: WorkspaceDirs, study: Study) -> list[str]:
    """Regenerate the report from the committed results into a temporary folder and
    compare: the files that differ, are missing or are extra (empty: identical)."""
    return check_tree(report_dir(ws, study), lambda tmp: _generate(ws, study, tmp))


def write_tree(out: Path, generate: Callable[[Path], StudyReport]) -> StudyReport:
    """Make a report with ``generate(folder)`` in a temporary folder and bring ``out`` to
    it: changed files are copied, files no longer made removed (unchanged ones keep
    their timestamps)."""
    with tempfile.TemporaryDirectory(prefix="delve-study-report-") as tmp:
        res = generate(Path(tmp))
        made = _tree(Path(tmp))
        out.mkdir(parents=True, exist_ok=True)
        for rel in sorted(made):
            src, dst = Path(tmp) / rel, out / rel
            if not dst.is_file() or not filecmp.cmp(src, dst, shallow=False):
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)
                os.chmod(dst, 0o644)
        for rel in sorted(_tree(out) - made):
            (out / rel).unlink()
    res.out = out
    return res


def check_tree(out: Path, generate: Callable[[Path], StudyReport]) -> list[str]:
    """Make a report with ``generate(folder)`` in a temporary folder and compare it with
    ``out``: the files that differ, are missing or are extra (empty: identical)."""
    with tempfile.TemporaryDirectory(prefix="delve-study-check-") as tmp:
        generate(Path(tmp))
        made, have = _tree(Path(tmp)), _tree(out) if out.is_dir() else set()
        diff = [
            f"{rel} (differs)"
            for rel in sorted(made & have)
            if not filecmp.cmp(Path(tmp) / rel, out / rel, shallow=False)
        ]
        diff += [f"{rel} (missing)" for rel in sorted(made - have)]
        diff += [f"{rel} (not made any more)" for rel in sorted(have - made)]
    return diff
