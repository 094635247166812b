"""``delve study verify``: what CI checks about a committed study.

1. **Report**: every committed table and figure is byte-identical to what
   ``delve study report`` makes from the committed losses (:func:`.report.check_study_report`).
2. **Deterministic methods** (work budget mode, or no CPU budget): the cheapest committed
   instance of each (smallest training set, first prototask, instance 0) is rerun from
   scratch through the runner. Its full-precision losses.csv must have the sha256 that the
   committed meta.json recorded (bit-identical). If not (another BLAS or numpy can change
   the last bits), the rerun must agree with the committed losses to single precision,
   the precision they are committed in (relative difference <= 2^-23); that is reported as
   a pass "to float32" and anything larger fails.
3. **Methods with a CPU budget** (gp-mc-1, mlp-mc-1, mlp-ese-1 in the thesis study): the
   cheapest instance is rerun at the smallest committed budget (the smallest snapshot
   ``METHOD@F`` where the method has snapshots) and compared with the committed result of
   the same budget by a one-sided paired t-test on the per-case squared errors: the
   check fails when the rerun is worse than the committed loss times 1 + ``margin``
   (0.2) with p < ``alpha`` (0.01), so a change that breaks a sampler fails CI. The rerun
   uses the same seed; only where the CPU clock stops the chain differs, and that alone
   makes two such predictors differ by a few per cent -- on 512 paired cases often
   "significantly", in either direction -- hence the margin.

A study with no committed results passes trivially and says so.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..methods.registry import method_spec
from ..run import run_jobs
from ..run.job import Job
from ..run.store import read_meta, result_dir, sha256_bytes
from ..workspace import Workspace
from .pack import packed_methods, read_packed
from .report import check_study_report
from .spec import MethodPlan, Study

FLOAT32_REL = 2.0**-23


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def _cheapest(ws: Workspace, study: Study, plan: MethodPlan, name: str):
    """(ref, instance, packed losses, packed meta) of the cheapest committed instance."""
    study_dir = ws.root / study.results
    for ref in sorted(study.method_refs(ws, plan), key=lambda r: (r.size, r.dataset, r.prototask)):
        p = read_packed(study_dir, name, ref.dataset, ref.prototask)
        for (size, inst), meta in sorted(p.metas.items()):
            if size == ref.size and meta.get("status") == "ok" and (size, inst) in p.losses:
                return ref, inst, p.losses[(size, inst)], meta
    return None


def _rerun(ws: Workspace, plan: MethodPlan, job: Job, tmp: Path):
    rws = ws.with_results(tmp)
    out = run_jobs(rws, [job], plan.options(), 1, progress=False)
    d = result_dir(rws, job.method, job.ref, job.instance)
    meta = read_meta(d) or {}
    if out[0].status != "ok":
        return None, meta, out[0].error
    return d, meta, None


def _check_exact(ws, study, plan) -> Check:
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
        data = (d / "losses.csv").read_bytes()
        if sha256_bytes(data) == meta.get("losses_sha256"):
            return Check(
                name=label, ok=True, detail=f"{where}: bit-identical (sha256 of losses.csv)"
            )
        import pandas as pd

        new = pd.read_csv(d / "losses.csv")
        worst = 0.0
        for col in ("S", "A", "L"):
            a, b = new[col].to_numpy(float), committed[col].to_numpy(float)
            if np.isnan(b).all() and (
                np.isnan(a).all() or col not in study.losses_for(f"{ref.dataset}/{ref.prototask}")
            ):
                continue  # not a loss of this method, or one the study does not commit
            if np.isnan(a).any() != np.isnan(b).any():
                return Check(
                    name=label, ok=False, detail=f"{where}: loss {col} is missing on one side"
                )
            rel = np.abs(a - b) / np.maximum(np.abs(b), 1e-300)
            worst = max(worst, float(np.nanmax(rel)))
        ok = worst <= FLOAT32_REL
        return Check(
            name=label,
            ok=ok,
            detail=f"{where}: not bit-identical; largest relative difference {worst:.3g} "
            f"({'within' if ok else 'beyond'} the float32 precision of the committed losses)",
        )


def _check_statistical(ws, study, plan, alpha: float, margin: float) -> Check:
    name = plan.snapshot_names[0] if plan.snapshots else plan.name
    label = f"rerun {name}"
    found = _cheapest(ws, study, plan, name)
    if found is None:
        return Check(name=label, ok=True, detail="no committed instance yet (skipped)")
    ref, inst, committed, meta = found
    from scipy import stats

    with tempfile.TemporaryDirectory(prefix="delve-verify-") as tmp:
        d, new_meta, err = _rerun(ws, plan, Job(name, ref, inst), Path(tmp))
        where = f"{ref.full_name} #{inst}"
        if d is None:
            return Check(name=label, ok=False, detail=f"{where}: the rerun failed: {err}")
        import pandas as pd

        new = pd.read_csv(d / "losses.csv")
        new_s, old_s = new["S"].to_numpy(float), committed["S"].to_numpy(float)
        # H0: the rerun is no worse than the committed loss plus the margin
        excess = new_s - (1.0 + margin) * old_s
        res = stats.ttest_1samp(excess, 0.0, alternative="greater")
        p = float(res.pvalue) if np.isfinite(res.pvalue) else 1.0
        worse = excess.mean() > 0 and p < alpha
        rel = (new_s.mean() - old_s.mean()) / max(old_s.mean(), 1e-300)
        return Check(
            name=label,
            ok=not worse,
            detail=f"{where}: rerun - committed mean S {100 * rel:+.2f} % (fails when "
            f"significantly above +{100 * margin:g} %: one-sided paired t-test p = {p:.3g}, "
            f"alpha {alpha:g}); CPU {new_meta.get('cpu_seconds')} s",
        )


def verify_study(
    ws: Workspace, study: Study, alpha: float = 0.01, margin: float = 0.2, progress=None
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
    say("report: regenerating and comparing")
    diff = check_study_report(ws, study)
    checks = [
        Check(
            name="report",
            ok=not diff,
            detail="every committed table and figure is byte-identical"
            if not diff
            else f"{len(diff)} files differ: " + ", ".join(diff[:20]),
        )
    ]
    for plan in study.methods:
        spec = method_spec(ws, plan.name)
        cpu_budget = plan.budget_mode == "cpu" and spec.make_budget(64, "cpu", 1).cpu_seconds
        say(f"{plan.name}: rerunning one instance")
        if cpu_budget:
            checks.append(_check_statistical(ws, study, plan, alpha, margin))
        else:
            checks.append(_check_exact(ws, study, plan))
    return checks
