"""``delve study verify``: what CI checks about a committed study.

0. **Committed losses** (first): every committed instance's loss rows must have the sha256
   that its meta line records (``packed_losses_sha256``, :mod:`.pack`); a mismatch, loss
   rows without a meta line or a finished instance without rows fails, naming the file and
   the instance. Instances packed before hashes were recorded are listed as *not verified*
   (they do not fail). Committed instances whose task fingerprint (``task.*`` fields) no
   longer matches the task files -- e.g. the task's index files were replaced -- are
   *stale*: listed, never counted as verified, never rerun. A study with part of its
   results committed (a run in progress) is verified on what is there.
1. **Report**: every committed table and figure is byte-identical to what
   ``delve study report`` makes from the committed losses (:func:`.report.check_study_report`).
2. **Deterministic methods** (work budget mode, or no CPU budget): the cheapest committed
   instance of each (smallest training set, first prototask, instance 0) is rerun from
   scratch through the runner. Its full-precision losses.csv must have the sha256 that the
   committed meta.json recorded (bit-identical). If not (another BLAS or numpy can change
   the last bits), the rerun must agree with the committed losses to single precision,
   the precision they are committed in (relative difference <= 2^-23); that is reported as
   a pass "to float32" and anything larger fails. Where the committed meta.json records
   other BLAS kernels than the rerun's (``blas``, :func:`~delve_bench.blas.kernel_note`),
   the line says which, and how to pin them. Where it records other numpy SIMD targets
   (``cpu``, :func:`~delve_bench.blas.machine_note`: numpy's AVX-512 float64 exp and log
   differ from the C library's in the last bits, and an iterative fit can then take
   another path), the bits cannot match: a rerun beyond float32 is then held to the
   statistical check of 3. instead, and the line names both CPUs. A committed result
   without that record keeps the exact check.
3. **Methods with a CPU budget** (gp-mc-1, mlp-mc-1 in the thesis study): the cheapest
   instance is rerun at its full committed budget (the method itself, not a snapshot
   ``METHOD@F``) and compared with the committed result by a one-sided paired t-test on
   the per-case squared errors: the check fails when the rerun is worse than the
   committed loss times 1 + ``margin`` (0.2) with p < ``alpha`` (0.01), so a change that
   breaks a sampler fails CI. The rerun uses the same seed; only where the CPU clock stops
   the chain differs, and that alone makes two such predictors differ by a few per cent
   -- on 512 paired cases often "significantly", in either direction -- hence the margin.
   Not the smallest snapshot: a chain stopped after 1/16 of its budget is still burning
   in, so its loss follows the machine's speed (mlp-mc-1 on boston/price/std.32 #0 at
   0.3 CPU s: +27 % to +46 % on an AVX2 machine against results made on an AVX-512 one,
   p from 0.17 down to 0.0095; at the full 4.8 s: -1.2 % to +3.4 %, p > 0.9).

Every rerun is compared with the committed loss rows themselves (case by case), never with
a recorded checksum alone: a bit-identical rerun must also round to the committed float32
values.

A study with no committed results passes trivially and says so.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..blas import kernel_note, machine_note
from ..errors import DelveError, TamperedResults
from ..methods.registry import method_spec
from ..run import provenance as pv
from ..run import run_jobs
from ..run.job import Job
from ..run.store import read_meta, result_dir, sha256_bytes
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs
from .pack import (
    LOSSES,
    PACKED_SHA,
    _meta_lines,
    committed_losses,
    packed_methods,
    packed_rows_sha,
    read_losses,
    read_packed,
)
from .report import check_study_report
from .spec import MethodPlan, Study

FLOAT32_REL = 2.0**-23


@dataclass
class Check:
    """One verification step. ``verified`` False: a list of what could not be verified
    (it neither passes nor fails)."""

    name: str
    ok: bool
    detail: str
    verified: bool = True


@dataclass(frozen=True, kw_only=True)
class Verification:
    """``delve study verify``: every check, passed, failed or not verified."""

    study: str
    checks: tuple[Check, ...]

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.ok]

    @property
    def unverified(self) -> list[Check]:
        return [c for c in self.checks if not c.verified]

    @property
    def passed(self) -> int:
        return len(self.checks) - len(self.failed) - len(self.unverified)

    @property
    def ok(self) -> bool:
        return not self.failed

    def __repr__(self) -> str:
        from ..report.commands import format_verification

        return format_verification(self).rstrip("\n")


def _ref_of(task: str) -> TaskRef | None:
    """``dataset/prototask/std.N`` as a TaskRef (None if it is not one)."""
    parts = task.split("/")
    if len(parts) != 3 or not parts[2].startswith("std.") or not parts[2][4:].isdigit():
        return None
    return TaskRef(parts[0], parts[1], int(parts[2][4:]))


def stale_task_fields(ws: WorkspaceDirs, meta: dict) -> list[str]:
    """The ``task.*`` fingerprint fields of a committed meta line that differ from what
    today's task files give ([] when current; ``task`` when the task is gone)."""
    from ..tasks import prototask_spec

    ref = _ref_of(str(meta.get("task", "")))
    fp = meta.get("fingerprint")
    if ref is None or not isinstance(fp, dict):
        return ["fingerprint"]
    try:
        proto = prototask_spec(ws, ref.dataset, ref.prototask)
        now = pv.task_fields(ws, proto, ref.size, int(meta["instance"]))
    except (DelveError, OSError, KeyError, ValueError):
        return ["task"]
    return [k for k, v in now.items() if fp.get(k) != v]


def _cheapest(ws: WorkspaceDirs, study: Study, plan: MethodPlan, name: str):
    """(ref, instance, packed losses, packed meta) of the cheapest committed instance whose
    task fingerprint is current (a stale one would be rerun on other test cases)."""
    study_dir = ws.root / study.results
    for ref in sorted(study.method_refs(ws, plan), key=lambda r: (r.size, r.dataset, r.prototask)):
        p = read_packed(study_dir, name, ref.dataset, ref.prototask)
        for (size, inst), meta in sorted(p.metas.items()):
            if (
                size == ref.size
                and meta.get("status") == "ok"
                and (size, inst) in p.losses
                and not stale_task_fields(ws, meta)
            ):
                return ref, inst, p.losses[(size, inst)], meta
    return None


def _aligned(new, committed):
    """The rerun's losses in the committed rows' case order (None if the cases differ)."""
    if len(new) != len(committed["case"]) or set(new["case"]) != set(committed["case"]):
        return None
    return new.set_index("case").loc[np.asarray(committed["case"])].reset_index()


def _largest_difference(new, committed, kept=LOSSES) -> tuple[float, str]:
    """Largest relative difference of the rerun's losses from the committed ones over the
    losses the study commits (``kept``), and '' or why they cannot be compared."""
    new = _aligned(new, committed)
    if new is None:
        return np.inf, "its test cases differ from the committed rows"
    worst = 0.0
    for col in kept:
        a, b = new[col].to_numpy(float), np.asarray(committed[col], dtype=float)
        if np.isnan(a).all() and np.isnan(b).all():
            continue
        if np.isnan(a).any() != np.isnan(b).any():
            return np.inf, f"loss {col} is missing on one side"
        rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
        worst = max(worst, float(np.nanmax(rel)))
    return worst, ""


def _kept(study: Study, task: str) -> tuple[str, ...]:
    """The losses ``study`` commits on the prototask of ``task`` (``ds/proto/std.N``)."""
    ds, pt = task.split("/")[:2]
    return committed_losses(study.losses_for, ds, pt)


def check_committed(ws: WorkspaceDirs, study: Study) -> list[Check]:
    """Every committed loss file against the hashes its meta lines record, and the task
    fingerprints of the committed instances (see the module doc, step 0)."""
    study_dir = ws.root / study.results
    bad: list[str] = []
    unhashed: dict[str, int] = {}
    stale: dict[str, list[str]] = {}
    checked = 0
    for method in packed_methods(study_dir):
        for mp in sorted((study_dir / "meta" / method).glob("*.jsonl.xz")):
            lp = study_dir / "losses" / method / (mp.name[: -len(".jsonl.xz")] + ".parquet")
            rel_l = lp.relative_to(ws.root) if lp.is_relative_to(ws.root) else lp
            metas = {(m["task"], m["instance"]): m for m in _meta_lines(mp)}
            rows = {}
            if lp.is_file():
                df = read_losses(lp)
                rows = {
                    (t, int(i)): g[["case", *LOSSES]]
                    for (t, i), g in df.groupby(["task", "instance"], sort=True)
                }
            for key in sorted(rows.keys() - metas.keys()):
                bad.append(f"{rel_l}: {key[0]} #{key[1]} has loss rows but no meta line")
            for key, meta in sorted(metas.items()):
                where = f"{rel_l}: {key[0]} #{key[1]}"
                if meta.get("status") != "ok":
                    if key in rows:
                        bad.append(f"{where} has loss rows but its meta line is not ok")
                    continue
                if key not in rows:
                    bad.append(f"{where} is finished but has no loss rows")
                    continue
                fields = stale_task_fields(ws, meta)
                if fields:
                    stale.setdefault(", ".join(fields), []).append(f"{method} {key[0]} #{key[1]}")
                    continue
                recorded = meta.get(PACKED_SHA)
                if recorded is None:
                    unhashed[str(rel_l)] = unhashed.get(str(rel_l), 0) + 1
                elif packed_rows_sha(rows[key], _kept(study, key[0])) != recorded:
                    bad.append(
                        f"{where}: its loss rows do not match the sha256 its meta line records"
                    )
                else:
                    checked += 1
    out = [
        Check(
            name="committed losses",
            ok=not bad,
            detail=f"{checked} committed instances match their recorded sha256"
            if not bad
            else f"{len(bad)} tampered or damaged: " + "; ".join(bad[:10]),
        )
    ]
    if unhashed:
        n = sum(unhashed.values())
        out.append(
            Check(
                name="unhashed",
                ok=True,
                verified=False,
                detail=f"{n} committed instances in {len(unhashed)} files record no hash of their "
                "loss rows (packed by an older delve-bench; `delve study run` records them when "
                "it repacks): " + ", ".join(sorted(unhashed)[:5]),
            )
        )
    if stale:
        n = sum(len(v) for v in stale.values())
        out.append(
            Check(
                name="stale",
                ok=True,
                verified=False,
                detail=f"{n} committed instances were made on other task files and are not "
                "verified ("
                + "; ".join(f"{k} differ: {len(v)}, e.g. {v[0]}" for k, v in stale.items())
                + "); `delve study run` reruns them",
            )
        )
    return out


def _rerun(ws: WorkspaceDirs, plan: MethodPlan, job: Job, tmp: Path):
    rws = ws.with_results(tmp)
    out = run_jobs(rws, [job], plan.options(job.ref), 1, progress=False)
    d = result_dir(rws, job.method, job.ref, job.instance)
    meta = read_meta(d) or {}
    if out[0].status != "ok":
        return None, meta, out[0].error
    return d, meta, None


def _not_worse(new_s, old_s, alpha: float, margin: float) -> tuple[bool, str]:
    """Whether a rerun's per-case squared errors ``new_s`` are no worse than the committed
    ``old_s`` plus ``margin``, by a one-sided paired t-test at ``alpha``; and the words."""
    from scipy import stats

    # H0: the rerun is no worse than the committed loss plus the margin
    excess = new_s - (1.0 + margin) * old_s
    res = stats.ttest_1samp(excess, 0.0, alternative="greater")
    p = float(res.pvalue) if np.isfinite(res.pvalue) else 1.0
    worse = excess.mean() > 0 and p < alpha
    rel = (new_s.mean() - old_s.mean()) / max(old_s.mean(), 1e-300)
    return not worse, (
        f"rerun - committed mean S {100 * rel:+.2f} % (fails when significantly above "
        f"+{100 * margin:g} %: one-sided paired t-test p = {p:.3g}, alpha {alpha:g})"
    )


def _check_exact(ws, study, plan, alpha: float, margin: float) -> Check:
    found = _cheapest(ws, study, plan, plan.name)
    label = f"reproduce {plan.name}"
    if found is None:
        return Check(name=label, ok=True, detail="no committed instance yet (skipped)")
    ref, inst, committed, meta = found
    with tempfile.TemporaryDirectory(prefix="delve-verify-") as tmp:
        d, new_meta, err = _rerun(ws, plan, Job(plan.name, ref, inst), Path(tmp))
        where = f"{ref.full_name} #{inst}"
        if d is None:
            return Check(name=label, ok=False, detail=f"{where}: the rerun failed: {err}")
        import pandas as pd

        data = (d / "losses.csv").read_bytes()
        worst, why = _largest_difference(
            pd.read_csv(d / "losses.csv"),
            committed,
            committed_losses(study.losses_for, ref.dataset, ref.prototask),
        )
        if why:
            return Check(name=label, ok=False, detail=f"{where}: {why}")
        if worst <= FLOAT32_REL and sha256_bytes(data) == meta.get("losses_sha256"):
            return Check(
                name=label,
                ok=True,
                detail=f"{where}: bit-identical (sha256 of losses.csv) and equal to the "
                "committed losses",
            )
        ok = worst <= FLOAT32_REL
        machine = machine_note(meta.get("cpu"), new_meta.get("cpu"))
        if not ok and machine:
            # made where numpy ran other loops: the bits cannot match, so the rerun is held
            # to the statistical check of the methods with a CPU budget
            new_s = _aligned(pd.read_csv(d / "losses.csv"), committed)["S"].to_numpy(float)
            ok, said = _not_worse(new_s, np.asarray(committed["S"], float), alpha, margin)
            return Check(
                name=label,
                ok=ok,
                detail=f"{where}: not bit-comparable ({machine}); largest relative "
                f"difference {worst:.3g}; {said}",
            )
        notes = [kernel_note(meta.get("blas"), new_meta.get("blas")), machine]
        note = "; ".join(x for x in notes if x)
        return Check(
            name=label,
            ok=ok,
            detail=f"{where}: not bit-identical; largest relative difference from the committed "
            f"losses {worst:.3g} "
            f"({'within' if ok else 'beyond'} the float32 precision of the committed losses)"
            + (f"; {note}" if note else ""),
        )


def _check_statistical(ws, study, plan, alpha: float, margin: float) -> Check:
    name = plan.name  # the full budget: a snapshot's short chain follows the CPU's speed
    label = f"rerun {name}"
    found = _cheapest(ws, study, plan, name)
    if found is None:
        return Check(name=label, ok=True, detail="no committed instance yet (skipped)")
    ref, inst, committed, meta = found

    with tempfile.TemporaryDirectory(prefix="delve-verify-") as tmp:
        d, new_meta, err = _rerun(ws, plan, Job(name, ref, inst), Path(tmp))
        where = f"{ref.full_name} #{inst}"
        if d is None:
            return Check(name=label, ok=False, detail=f"{where}: the rerun failed: {err}")
        import pandas as pd

        new = _aligned(pd.read_csv(d / "losses.csv"), committed)
        if new is None:
            return Check(
                name=label,
                ok=False,
                detail=f"{where}: its test cases differ from the committed rows",
            )
        new_s, old_s = new["S"].to_numpy(float), np.asarray(committed["S"], dtype=float)
        ok, said = _not_worse(new_s, old_s, alpha, margin)
        return Check(
            name=label,
            ok=ok,
            detail=f"{where}: {said}; CPU {new_meta.get('cpu_seconds')} s",
        )


def verify_study(
    ws: WorkspaceDirs, study: Study, alpha: float = 0.01, margin: float = 0.2, progress=None
) -> list[Check]:
    """Run the checks; each is reported whether it passes or not."""
    study_dir = ws.root / study.results
    if not packed_methods(study_dir):
        return [
            Check(
                name="results",
                ok=True,
                detail=f"no committed results in {study.results}: nothing to verify",
            )
        ]
    say = progress or (lambda s: None)
    say("committed losses: checking their recorded sha256")
    checks = check_committed(ws, study)
    say("report: regenerating and comparing")
    try:
        diff = check_study_report(ws, study)
    except TamperedResults as e:  # the report reads the committed rows, checked, in place
        checks.append(Check(name="report", ok=False, detail=f"cannot be regenerated: {e}"))
    else:
        checks.append(
            Check(
                name="report",
                ok=not diff,
                detail="every committed table and figure is byte-identical"
                if not diff
                else f"{len(diff)} files differ: " + ", ".join(diff[:20]),
            )
        )
    for plan in study.methods:
        spec = method_spec(ws, plan.name)
        cpu_budget = plan.budget_mode == "cpu" and spec.make_budget(64, "cpu", 1).cpu_seconds
        say(f"{plan.name}: rerunning one instance")
        if cpu_budget:
            checks.append(_check_statistical(ws, study, plan, alpha, margin))
        else:
            checks.append(_check_exact(ws, study, plan, alpha, margin))
    return checks
