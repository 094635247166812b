"""The claims of Barrio, Romero & Belanche (2009), §7-8 and Tables 2, 4, 6 and 7, each
with its rule. Win counts follow Table 2: ``ov.wins[(R, C)]`` is the number of tasks on
which C was significantly better than R. A ranking is computed among the methods complete
on every task, and the ones still running are named."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...analysis.overview import Overview
from .. import published as pub
from ..displays import StudyView, basis_steps, n_basis
from .base import AGREES, DISAGREES, PARTLY, Claim, Finding, by_share, combine, has

SSGE = ("ssge-pta10-1", "ssge-pta21-1", "ssge-sffs-1", "ssge-oscil5-1")
LAB = pub.BARRIO_LABEL


def _complete(view: StudyView, ov: Overview) -> tuple[list[str], list[str]]:
    ms = [m for m in pub.BARRIO_ORDER if m in view.methods]
    done = [m for m in ms if all(has(t, m) for t in ov.tasks)]
    return done, [m for m in ms if m not in done]


def net_wins(ov: Overview, ms: list[str]) -> dict[str, int]:
    """Net significant wins among ``ms`` only."""
    return {m: sum(ov.wins[(o, m)] - ov.wins[(m, o)] for o in ms if o != m) for m in ms}


def published_net(
    ms: list[str], table: dict = pub.BARRIO_TABLE2, order: tuple = pub.BARRIO_ORDER
) -> dict[str, int]:
    """A published wins table's net wins among ``ms`` only (row R, column C: C better than
    R; Table 2 unless ``table`` and its ``order`` say otherwise)."""

    def won(c: str, r: str) -> int:
        return table[r][order.index(c)] or 0

    return {m: sum(won(m, o) - won(o, m) for o in ms if o != m) for m in ms}


def rank_finding(ov: Overview, ms: list[str], rest: list[str], source: str, theirs) -> Finding:
    """Our net significant wins among ``ms`` against the published ones (``theirs``, from
    ``source``): Kendall's tau-b, and whether the published best has the most."""
    from scipy.stats import kendalltau  # lazy: scipy.stats is slow to import

    net = net_wins(ov, ms)
    tau = float(kendalltau([net[m] for m in ms], [theirs[m] for m in ms]).statistic)
    order = sorted(ms, key=lambda m: -net[m])
    top = max(theirs, key=lambda m: theirs[m])
    shown = (
        "by net significant wins: "
        + ", ".join(f"{LAB[m]} {net[m]:+d}" for m in order)
        + f"; published ({source}, the same methods): "
        + ", ".join(f"{LAB[m]} {theirs[m]:+d}" for m in sorted(ms, key=lambda m: -theirs[m]))
        + f"; Kendall's tau-b {tau:.2f}"
    )
    if rest:
        shown += f" (not yet complete: {', '.join(LAB[m] for m in rest)})"
    return Finding(
        shown,
        "paired t-test per task, p < 0.05, wins minus losses; agrees: tau-b >= 0.6 and the "
        "published best method has the most net wins (ties allowed), partly: tau-b >= 0.2",
        AGREES
        if tau >= 0.6 and net[top] == max(net.values())
        else PARTLY
        if tau >= 0.2
        else DISAGREES,
    )


def _barrio_rank(view: StudyView, ov: Overview) -> Finding | None:
    ms, rest = _complete(view, ov)
    if len(ms) < 3:
        return None
    return rank_finding(ov, ms, rest, "Table 2", published_net(ms))


def _oscil_best(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete(view, ov)
    ssge = [m for m in SSGE if m in ms]
    if "ssge-oscil5-1" not in ssge or len(ssge) < 2:
        return None
    net = net_wins(ov, ms)
    order = sorted(ssge, key=lambda m: -net[m])
    place = [net[m] > net["ssge-oscil5-1"] for m in ssge].count(True) + 1
    return Finding(
        "net significant wins of the SSGEs: " + ", ".join(f"{LAB[m]} {net[m]:+d}" for m in order),
        "agrees: Oscil(5) has the most (ties allowed), partly: second",
        AGREES if place == 1 else PARTLY if place == 2 else DISAGREES,
    )


def _ols_never(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete(view, ov)
    if "ols-cv-1" not in ms or len(ms) < 2:
        return None
    w = sum(ov.wins[(o, "ols-cv-1")] for o in ms if o != "ols-cv-1")
    n = sum(ov.compared[(o, "ols-cv-1")] for o in ms if o != "ols-cv-1")
    return Finding(
        f"ols-cv-1 was significantly better than another method in {w} of {n} comparisons",
        "paired t-test, p < 0.05; agrees: never, partly: at most 2 %",
        AGREES if w == 0 else PARTLY if w <= 0.02 * n else DISAGREES,
    )


def _beat_ols(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete(view, ov)
    if "ols-cv-1" not in ms or len(ms) < 2:
        return None
    share = {
        m: (ov.wins[("ols-cv-1", m)], ov.compared[("ols-cv-1", m)]) for m in ms if m != "ols-cv-1"
    }
    return Finding(
        "significant wins over ols-cv-1: "
        + ", ".join(f"{LAB[m]} {w} of {n}" for m, (w, n) in share.items()),
        "paired t-test, p < 0.05; 'often': on at least 10 % of the tasks; agrees: every "
        "method, partly: half of them",
        by_share(sum(w >= 0.1 * n for w, n in share.values()), len(share), 1.0, 0.5),
    )


def _per_instance(
    view: StudyView, value: Callable[[str, dict], float | None], size: int | None = 1024
) -> dict[str, dict[tuple[str, int], float]]:
    """``value(method, meta)`` per method and (task, instance), on the tasks of ``size``
    (None: every size); methods that record it on none are left out."""
    ts = [t for t in view.tasks() if size is None or t.ref.size == size]
    out: dict[str, dict[tuple[str, int], float]] = {}
    for m in pub.BARRIO_ORDER:
        if m not in view.methods:
            continue
        vals = {
            (t.ref.full_name, int(x.get("instance", i))): v
            for t in ts
            for i, x in enumerate(view.metas(m, t))
            if (v := value(m, x)) is not None
        }
        if vals:
            out[m] = vals
    return out


def _means(view: StudyView, value: Callable[[str, dict], float | None]) -> dict[str, float]:
    """Mean over the n = 1024 tasks of the per-task means (methods recording it on every
    such task)."""
    tasks = {t.ref.full_name for t in view.tasks() if t.ref.size == 1024}
    out = {}
    for m, vals in _per_instance(view, value).items():
        per_task = [[v for (t, _), v in vals.items() if t == name] for name in sorted(tasks)]
        if tasks and all(per_task):
            out[m] = float(np.mean([np.mean(v) for v in per_task]))
    return out


def _sffs_smallest(view: StudyView, ov: Overview) -> Finding | None:
    sizes = {m: v for m, v in _means(view, n_basis).items() if m in (*SSGE, "rvm-1", "svm-1")}
    if "ssge-sffs-1" not in sizes or "rvm-1" not in sizes:
        return None
    order = sorted(sizes, key=lambda m: sizes[m])
    ssge = [m for m in order if m in SSGE]
    ok = [ssge[0] == "ssge-sffs-1", set(order[:2]) == {"ssge-sffs-1", "rvm-1"}]
    return Finding(
        "mean #BF at n = 1024: " + ", ".join(f"{LAB[m]} {sizes[m]:.1f}" for m in order),
        "mean of info.n_basis over the 12 tasks at n = 1024 (OLS left out, as in Table 7); "
        "agrees: SFFS smallest among the SSGEs, SFFS and the RVM the two smallest",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _oscil_size(view: StudyView, ov: Overview) -> Finding | None:
    per = _per_instance(view, n_basis, None)
    if "ssge-oscil5-1" not in per or "ssge-pta10-1" not in per:
        return None
    common = sorted(set(per["ssge-oscil5-1"]) & set(per["ssge-pta10-1"]))
    if not common:
        return None
    same = sum(per["ssge-oscil5-1"][k] == per["ssge-pta10-1"][k] for k in common)
    return Finding(
        f"Oscil(5)'s final model has as many basis functions as PTA(1,0)'s on {same} of "
        f"{len(common)} instances",
        "per instance, every size; agrees: 95 %, partly: 75 %",
        by_share(same, len(common), 0.95, 0.75),
    )


def _sparse_worse(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete(view, ov)
    sizes = _means(view, n_basis)
    group = [m for m in (*SSGE, "rvm-1") if m in ms and m in sizes]
    if len(group) < 3:
        return None
    from scipy.stats import spearmanr  # lazy: scipy.stats is slow to import

    net = net_wins(ov, ms)
    rho = float(spearmanr([sizes[m] for m in group], [net[m] for m in group])[0])
    return Finding(
        f"Spearman correlation of mean #BF (n = 1024) and net significant wins over "
        f"{', '.join(LAB[m] for m in group)}: {rho:.2f}",
        "agrees: rho > 0.3 (bigger models win more), partly: rho > 0",
        AGREES if rho > 0.3 else PARTLY if rho > 0 else DISAGREES,
    )


def _log_evidence(method: str, meta: dict) -> float | None:
    return (meta.get("info") or {}).get("log_evidence")


def _sffs_evidence(view: StudyView, ov: Overview) -> Finding | None:
    ev = _per_instance(view, _log_evidence, None)
    ssge = [m for m in SSGE if m in ev]
    if "ssge-sffs-1" not in ssge or len(ssge) < 2:
        return None
    common = sorted(set.intersection(*(set(ev[m]) for m in ssge)))
    if not common:
        return None
    # a relative tolerance: the searches often end in the same model
    top = sum(
        ev["ssge-sffs-1"][k] >= max(ev[m][k] for m in ssge) - 1e-9 * abs(ev["ssge-sffs-1"][k])
        for k in common
    )
    return Finding(
        f"SFFS's final model has the highest log evidence of {', '.join(LAB[m] for m in ssge)} "
        f"on {top} of {len(common)} instances",
        "info.log_evidence per instance, every size (ties count for SFFS); agrees: 75 %, "
        "partly: 50 %",
        by_share(top, len(common), 0.75, 0.5),
    )


def _sffs_not_best(view: StudyView, ov: Overview) -> Finding | None:
    ms, _ = _complete(view, ov)
    need = ("ssge-sffs-1", "ssge-pta10-1", "ssge-oscil5-1")
    if not all(m in ms for m in need):
        return None
    net = net_wins(ov, ms)
    ok = [net["ssge-sffs-1"] < net[m] for m in need[1:]]
    return Finding(
        "net significant wins: " + ", ".join(f"{LAB[m]} {net[m]:+d}" for m in need),
        "agrees: SFFS below both PTA(1,0) and Oscil(5)",
        AGREES if all(ok) else PARTLY if any(ok) else DISAGREES,
    )


def _most_steps(view: StudyView, ov: Overview) -> Finding | None:
    steps = _means(view, basis_steps)
    if "ssge-sffs-1" not in steps or "rvm-1" not in steps or len(steps) < 3:
        return None
    from scipy.stats import spearmanr  # lazy: scipy.stats is slow to import

    order = sorted(steps, key=lambda m: -steps[m])
    top = {"ssge-sffs-1", "rvm-1"} & set(order[:2])
    # 'most of all on difficult tasks': across the n = 1024 tasks, more steps where the
    # final model is bigger
    sizes, st = _per_instance(view, n_basis), _per_instance(view, basis_steps)
    rho = {}
    for m in ("ssge-sffs-1", "rvm-1"):
        keys = sorted(set(sizes.get(m, {})) & set(st.get(m, {})))
        if len(keys) > 2:
            rho[m] = float(spearmanr([sizes[m][k] for k in keys], [st[m][k] for k in keys])[0])
    return Finding(
        "mean add + remove steps at n = 1024 (RVM: iterations): "
        + ", ".join(f"{LAB[m]} {steps[m]:.0f}" for m in order)
        + "; Spearman correlation of steps and #BF across instances: "
        + ", ".join(f"{LAB[m]} {r:.2f}" for m, r in rho.items()),
        "agrees: SFFS and the RVM take the most steps, and more where the model is bigger "
        "(rho > 0); partly: some of that",
        combine(
            [
                AGREES if len(top) == 2 else PARTLY if top else DISAGREES,
                *(AGREES if r > 0 else DISAGREES for r in rho.values()),
            ]
        ),
    )


CLAIMS: list[Claim] = [
    Claim(
        "Generalisation: ABF best, then Oscil(5) and PTA(1,0), PTA(2,1) and the SVM, the RVM, "
        "SFFS and finally OLS (§7, Table 2).",
        ("abf-1", "ssge-oscil5-1", "ssge-pta10-1"),
        _barrio_rank,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "Oscil(5) generalises best of the SSGEs (Table 2; §8: the recommended trade-off).",
        SSGE,
        _oscil_best,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "OLS is never significantly better than any method (Table 2).",
        ("ols-cv-1",),
        _ols_never,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "ABF, the SSGEs, the RVM and the SVM often generalise better than OLS (§8).",
        ("ols-cv-1",),
        _beat_ols,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "Among the SSGEs, SFFS finds the smallest models; SFFS and the RVM are the sparsest "
        "(Tables 4, 7).",
        ("ssge-sffs-1", "rvm-1"),
        _sffs_smallest,
        (*SSGE, "svm-1"),
    ),
    Claim(
        "Oscil(5) keeps the model size PTA(1,0) found (Table 4; §7).",
        ("ssge-oscil5-1", "ssge-pta10-1"),
        _oscil_size,
    ),
    Claim(
        "Among the SSGEs, SFFS finds the models with the highest evidence (§7, Fig. 2).",
        ("ssge-sffs-1",),
        _sffs_evidence,
        SSGE,
    ),
    Claim(
        "The highest-evidence (SFFS) models are not the best generalisers (§8).",
        ("ssge-sffs-1", "ssge-pta10-1", "ssge-oscil5-1"),
        _sffs_not_best,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "Sparsity usually comes at the expense of some accuracy (§8).",
        (*SSGE, "rvm-1"),
        _sparse_worse,
        pub.BARRIO_ORDER,
    ),
    Claim(
        "SFFS and the RVM take the most steps, most of all on difficult tasks (Table 6).",
        ("ssge-sffs-1", "rvm-1"),
        _most_steps,
        SSGE,
    ),
]
