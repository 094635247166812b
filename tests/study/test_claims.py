"""The published claims a study checks: each rule's verdict on hand-made results that
agree and that disagree, and when a finding is provisional or missing."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from support import comparison, summary

from delve_bench.analysis.collect import (
    THESIS_ORDER,
    MethodCell,
    PairCell,
    PrototaskReport,
    TaskReport,
)
from delve_bench.analysis.overview import Overview, overview
from delve_bench.study import claims as cl
from delve_bench.study import published as pub
from delve_bench.study.claims import barrio as cb
from delve_bench.study.claims import thesis as ct
from delve_bench.study.displays import StudyView
from delve_bench.study.report import _only
from delve_bench.tasks.names import TaskRef

SIZES = (64, 128, 256, 512, 1024)


def cell(m: str, mean: float | None) -> MethodCell:
    if mean is None:
        return MethodCell(method=m, status="not run", task_instances=4, missing=(0, 1, 2, 3))
    return MethodCell(
        method=m,
        status="ok",
        task_instances=4,
        used=(0, 1, 2, 3),
        summary=summary(mean),
    )


def task(ds: str, size: int, means: dict, sig: set[tuple[str, str]]) -> TaskReport:
    """``sig``: (winner, loser) pairs whose paired test is significant."""
    ms = list(means)
    pairs = {}
    for i, a in enumerate(ms):
        for b in ms[i + 1 :]:
            if means[a] is None or means[b] is None:
                continue
            p = 0.01 if (a, b) in sig or (b, a) in sig else 0.5
            pairs[(a, b)] = PairCell(
                a=a,
                b=b,
                instances=(0, 1, 2, 3),
                comparison=comparison(means[a] - means[b], p, mean_a=means[a], mean_b=means[b]),
            )
    pt = "accel" if ds.startswith("pumadyn") else "dist" if ds.startswith("kin") else "rej"
    return TaskReport(
        ref=TaskRef(ds, pt, size),
        design="hierarchical",
        task_instances=4,
        test_size=512,
        cells={m: cell(m, v) for m, v in means.items()},
        pairs=pairs,
    )


@dataclass
class FakeView(StudyView):
    """A StudyView over hand-made reports; meta.json values come from ``info``."""

    info: dict = field(default_factory=dict)  # method -> info of every instance

    def metas(self, name, t):
        """Four instances; the counts grow with the task's place in pub.BARRIO_PROTOTASKS
        (harder tasks: bigger models, more steps), the same for every method."""
        if name not in self.info:
            return []
        k = 1 + pub.BARRIO_PROTOTASKS.index(t.ref.dataset) / 10
        scaled = ("n_basis", "adds", "removes", "iterations")
        info = {a: (v * k if a in scaled else v) for a, v in self.info[name].items()}
        return [{"status": "ok", "instance": i, "info": info} for i in range(4)]


def view_of(
    tasks: list[TaskReport], methods: list[str], info=None, main: list[str] | None = None
) -> tuple[FakeView, Overview]:
    """The view over ``tasks``; ``main``: the study's methods without snapshots."""
    by_ds: dict[str, list[TaskReport]] = {}
    for t in tasks:
        by_ds.setdefault(t.ref.dataset, []).append(t)
    reports = [
        PrototaskReport(
            dataset=ds,
            prototask=ts[0].ref.prototask,
            loss="S",
            methods=tuple(methods),
            tasks=tuple(ts),
        )
        for ds, ts in by_ds.items()
    ]
    main = main or methods
    v = FakeView(ws=None, reports=reports, methods=main, info=info or {})  # type: ignore[arg-type]
    return v, overview(_only(reports, main), main, "S")


def mars_tasks(bagged: float, sig_worse: bool = False) -> list[TaskReport]:
    out = []
    for ds in ("kin-8nm", "pumadyn-8nm"):
        for n in SIZES:
            means = {"mars3.6-1": 0.5, "mars3.6-bag-1": bagged}
            sig = {("mars3.6-1", "mars3.6-bag-1")} if sig_worse else set()
            out.append(task(ds, n, means, sig))
    return out


def test_bagging_agrees_when_bagging_helps_and_disagrees_on_significant_harm():
    v, ov = view_of(mars_tasks(0.4), ["mars3.6-1", "mars3.6-bag-1"])
    f = ct._bagging(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    assert f.shown.startswith("bagging lowered the expected loss on 10 of 10 tasks")
    v, ov = view_of(mars_tasks(0.6, sig_worse=True), ["mars3.6-1", "mars3.6-bag-1"])
    f = ct._bagging(v, ov)
    assert f is not None and f.verdict == cl.DISAGREES
    assert "of the 10 increases, 10 significant" in f.shown


def test_a_claim_is_provisional_while_its_methods_have_results_to_come():
    ts = mars_tasks(0.4)
    # bagged MARS has not run on the last two tasks yet
    for t in ts[-2:]:
        t.cells["mars3.6-bag-1"] = cell("mars3.6-bag-1", None)
    v, ov = view_of(ts, ["mars3.6-1", "mars3.6-bag-1"])
    bag = ct.CLAIMS[0]
    (e,) = cl.evaluate([bag], v, ov, {"mars3.6-1": 10, "mars3.6-bag-1": 10})
    assert e.finding is not None and e.provisional
    assert e.verdict == "agrees (provisional: 18 of 20 task results)"
    assert "on 8 of 8 tasks" in e.finding.shown
    # complete: the verdict stands alone
    v, ov = view_of(mars_tasks(0.4), ["mars3.6-1", "mars3.6-bag-1"])
    (e,) = cl.evaluate([bag], v, ov, {"mars3.6-1": 10, "mars3.6-bag-1": 10})
    assert e.verdict == "agrees" and not e.provisional


def test_a_claim_whose_needed_method_has_no_result_has_no_finding():
    ts = mars_tasks(0.4)
    for t in ts:
        t.cells["mars3.6-bag-1"] = cell("mars3.6-bag-1", None)
    v, ov = view_of(ts, ["mars3.6-1", "mars3.6-bag-1"])
    (e,) = cl.evaluate(ct.CLAIMS[:1], v, ov, {"mars3.6-1": 10, "mars3.6-bag-1": 10})
    assert e.finding is None and e.verdict == "not enough results yet"


def test_published_net_wins_are_table_2s():
    # Barrio et al. Table 2: column sums minus row sums over the 8 methods
    net = cb.published_net(list(pub.BARRIO_ORDER))
    assert net == {
        "abf-1": 67,
        "ssge-oscil5-1": 56,
        "ssge-pta10-1": 44,
        "svm-1": 32,
        "ssge-pta21-1": 7,
        "rvm-1": -29,
        "ssge-sffs-1": -56,
        "ols-cv-1": -121,
    }


PUBLISHED_ORDER = sorted(
    pub.BARRIO_ORDER, key=lambda m: -cb.published_net(list(pub.BARRIO_ORDER))[m]
)


def barrio_tasks(order: list[str], wins: int) -> list[TaskReport]:
    """12 tasks on which the methods' losses follow ``order`` (best first); on the first
    ``wins`` tasks every better method beats every worse one significantly."""
    out = []
    for k, ds in enumerate(pub.BARRIO_PROTOTASKS):
        means = {m: 0.1 * (1 + order.index(m)) for m in pub.BARRIO_ORDER}
        sig = {(a, b) for i, a in enumerate(order) for b in order[i + 1 :]} if k < wins else set()
        out.append(task(ds, 1024, means, sig))
    return out


def test_barrio_ranking_agrees_in_the_published_order_and_disagrees_reversed():
    ms = list(pub.BARRIO_ORDER)
    v, ov = view_of(barrio_tasks(PUBLISHED_ORDER, 3), ms)
    f = cb._barrio_rank(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    assert f.shown.startswith("by net significant wins: ABF +21, Oscil(5) +15, PTA(1,0) +9")
    assert "Kendall's tau-b 1.00" in f.shown
    v, ov = view_of(barrio_tasks(list(reversed(PUBLISHED_ORDER)), 3), ms)
    f = cb._barrio_rank(v, ov)
    assert f is not None and f.verdict == cl.DISAGREES and "tau-b -1.00" in f.shown
    # OLS last with significant losses: it never wins
    v, ov = view_of(barrio_tasks(PUBLISHED_ORDER, 3), ms)
    f = cb._ols_never(v, ov)
    assert (
        f is not None
        and f.verdict == cl.AGREES
        and f.shown.startswith("ols-cv-1 was significantly better than another method in 0 of 84")
    )
    f = cb._beat_ols(v, ov)
    assert f is not None and f.verdict == cl.AGREES and "ABF 3 of 12" in f.shown


def test_barrio_ranking_leaves_out_methods_still_running_and_names_them():
    ms = list(pub.BARRIO_ORDER)
    ts = barrio_tasks(PUBLISHED_ORDER, 3)
    for t in ts[6:]:
        t.cells["svm-1"] = cell("svm-1", None)
    v, ov = view_of(ts, ms)
    f = cb._barrio_rank(v, ov)
    assert f is not None and "SVM (" not in f.shown.split(";")[0]
    assert f.shown.endswith("(not yet complete: SVM)")


def test_model_size_claims_read_meta_json():
    ms = list(pub.BARRIO_ORDER)
    sizes = {
        "ssge-pta10-1": 80,
        "ssge-pta21-1": 60,
        "ssge-sffs-1": 20,
        "ssge-oscil5-1": 80,
        "rvm-1": 25,
        "svm-1": 700,
    }
    steps = {"ssge-pta10-1": 100, "ssge-pta21-1": 200, "ssge-sffs-1": 900, "ssge-oscil5-1": 300}
    info: dict[str, dict] = {m: {"n_basis": n} for m, n in sizes.items()}
    for m, k in steps.items():
        info[m].update(adds=k - 10, removes=10)
    info["rvm-1"]["iterations"] = 2000
    for m, ev in {"ssge-pta10-1": -50, "ssge-pta21-1": -40, "ssge-sffs-1": -20}.items():
        info[m]["log_evidence"] = ev
    info["ssge-oscil5-1"]["log_evidence"] = -20  # a tie counts for SFFS
    v, ov = view_of(barrio_tasks(PUBLISHED_ORDER, 3), ms, info)
    f = cb._sffs_smallest(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    assert f.shown == (
        "mean #BF at n = 1024: SFFS 31.0, RVM 38.8, PTA(2,1) 93.0, PTA(1,0) 124.0, "
        "Oscil(5) 124.0, SVM 1085.0"
    )
    f = cb._sffs_evidence(v, ov)
    assert f is not None and f.verdict == cl.AGREES and " on 48 of 48 instances" in f.shown
    f = cb._oscil_size(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    f = cb._most_steps(v, ov)
    assert (
        f is not None
        and f.verdict == cl.AGREES
        and "RVM 3100, SFFS 1395, Oscil(5) 465, PTA(2,1) 310, PTA(1,0) 155" in f.shown
        and f.shown.endswith("SFFS 1.00, RVM 1.00")
    )
    f = cb._oscil_best(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    # in the published ranking the sparsest (SFFS, RVM) rank low: bigger models win more
    f = cb._sparse_worse(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    info["ssge-sffs-1"]["n_basis"] = 90
    f = cb._sffs_smallest(v, ov)
    assert f is not None and f.verdict == cl.DISAGREES


# ---- the thesis' claims: a world in which every one of them holds ----------------------

THESIS_MAIN = [*THESIS_ORDER, "mars3.6-1"]
BASE = {
    "gp-mc-1": 0.30,
    "gp-mc-1@0.25": 0.30,  # converged by a quarter of the run
    "gp-mc-1@0.0625": 0.31,
    "gp-map-1": 0.31,
    "mlp-mc-1": 0.32,
    "mlp-mc-1@0.25": 0.35,  # still improving
    "mlp-mc-1@0.0625": 0.38,
    "mlp-ese-1": 0.40,
    "mars3.6-bag-1": 0.42,
    "mars3.6-1": 0.45,
    "lin-1": 0.60,
    "knn-cv-1": 0.70,
}
THESIS_PROTOS = [
    "kin-8fh",
    "kin-8fm",
    "kin-8nh",
    "kin-8nm",
    "kin-32fh",
    "pumadyn-8fh",
    "pumadyn-8fm",
    "pumadyn-8nh",
    "pumadyn-8nm",
    "pumadyn-32nh",
    "pumadyn-32nm",
]


def thesis_loss(m: str, ds: str, n: int) -> float:
    """Losses shaped by the thesis' chapter-5 findings."""
    kind = ds.split("-")[1]  # e.g. 8nm: inputs, linearity, noise
    family, inputs, lin, noise = ds.split("-")[0], kind[:-2], kind[-2], kind[-1]
    base = m.split("@")[0]
    y = BASE[m]
    if base == "mlp-ese-1":  # Figs. 5.14-5.16
        y *= (2.7 if lin == "n" else 1) * (2.4 if inputs == "32" else 1)
        y *= 1.3 if family == "pumadyn" else 1
    if base.startswith("mars") and family == "kin":  # Fig. 5.16
        y *= 2.6
    if m == "mars3.6-1":  # bagging helps most at small n (Fig. 5.2)
        y *= 1 + 0.5 * 64 / n
    if base == "lin-1":  # Fig. 5.15, and over-fitting at n = 64 with 32 inputs
        y *= 2.5 if lin == "n" else 1.0
        y *= 2.0 if inputs == "32" and lin == "f" and n == 64 else 1.0
    if base == "knn-cv-1":  # Fig. 5.17 and §5.4: worse at lower noise, on linear tasks
        y *= (1.5 if noise == "m" else 1) * (1.3 if lin == "f" else 1)
    if m == "gp-mc-1@0.0625":  # short runs: too few iterations for big n (Fig. 5.19)
        y *= 1 + n / 512
    if base == "mlp-mc-1" and n == 1024:  # ch. 6: mlp-mc-1 for large n
        y *= 0.9
    if ds == "pumadyn-32nm":  # Fig. 5.13: lin-1 and knn-cv-1 never catch on
        y = {"lin-1": 1.5, "knn-cv-1": 1.6, "mlp-ese-1": 1.7}.get(base, y)
    return y * (1 + (2.0 if ds == "kin-8nm" else 0.3) * 64 / n)


def thesis_world() -> list[TaskReport]:
    names = list(BASE)
    out = []
    for ds in THESIS_PROTOS:
        for n in SIZES:
            # gp-mc-1 is not run at n = 1024 (as in the thesis)
            means = {
                m: None if m.startswith("gp-mc-1") and n == 1024 else thesis_loss(m, ds, n)
                for m in names
            }
            sig = {(a, b) for a in names for b in names if a != b}
            t = task(ds, n, means, sig)
            if n == 64 and ds in ("kin-8nm", "pumadyn-32nm", "pumadyn-32nh"):
                c = t.cells["mlp-mc-1"]
                t.cells["mlp-mc-1"] = MethodCell(
                    method=c.method,
                    status="ok",
                    task_instances=4,
                    used=c.used,
                    summary=summary(c.mean, se=0.1),
                )
            out.append(t)
    for n in (32, 64, 128):
        # boston: lin-1 and knn-cv-1 the worst; only gp-map-1 vs mlp-ese-1 significant
        out.append(task("boston", n, {m: BASE[m] for m in names}, {("gp-map-1", "mlp-ese-1")}))
    return out


def test_every_thesis_claim_agrees_in_a_world_shaped_by_the_thesis():
    v, ov = view_of(thesis_world(), list(BASE), main=THESIS_MAIN)
    planned = {m: len(SIZES) * len(THESIS_PROTOS) + 3 for m in THESIS_MAIN}
    planned["gp-mc-1"] -= len(THESIS_PROTOS)  # not at n = 1024
    found = cl.evaluate(ct.CLAIMS, v, ov, planned)
    assert len(found) == 26
    verdicts = {e.claim.text: e.verdict for e in found}
    assert set(verdicts.values()) == {"agrees"}, verdicts


def test_thesis_claims_disagree_when_the_world_does():
    ts = thesis_world()
    for t in ts:  # knn-cv-1 becomes the best method everywhere, gp-map-1 the worst
        c = t.cells
        ys = [x.mean for x in c.values() if x.mean is not None]
        c["knn-cv-1"], c["gp-map-1"] = (
            cell("knn-cv-1", 0.5 * min(ys)),
            cell("gp-map-1", 2 * max(ys)),
        )
    v, ov = view_of(ts, list(BASE), main=THESIS_MAIN)
    f = ct._knn_rank(v, ov)
    assert f is not None and f.verdict == cl.DISAGREES and "place 1 of 7" in f.shown
    f = ct._recommend(v, ov)  # gp-mc-1 still best at n = 64, but gp-map-1 far behind later
    assert f is not None and f.verdict == cl.PARTLY
    f = ct._pumadyn32_ese(v, ov)
    assert f is not None and f.verdict == cl.PARTLY  # above gp-mc-1, below gp-map-1


def test_figure_claims_compare_a_method_with_the_fields_median_loss():
    """Figs. 5.14-5.17: on kin-8fh / kin-32fh at n = 128, mlp-ese-1's loss over the median
    of the six other methods is 2.4 times higher with 32 inputs in the thesis world (its
    rank moves too); halving it on the 32-input tasks turns the verdict round."""
    ts = thesis_world()
    v, ov = view_of(ts, list(BASE), main=THESIS_MAIN)
    f = ct._inputs(v, ov)
    assert f is not None and f.verdict == cl.AGREES
    assert "higher with 32 inputs on 15 of 15 matched pairs" in f.shown
    by = {(t.ref.dataset, t.ref.size): t for t in ts}
    a, b = by[("kin-32fh", 128)], by[("kin-8fh", 128)]
    ratio = ct._relative(a, v, "mlp-ese-1") / ct._relative(b, v, "mlp-ese-1")
    assert ratio == pytest.approx(2.4)
    for t in ts:
        if "-32" in t.ref.dataset:
            t.cells["mlp-ese-1"] = cell("mlp-ese-1", t.cells["mlp-ese-1"].mean / 5)
    v, ov = view_of(ts, list(BASE), main=THESIS_MAIN)
    f = ct._inputs(v, ov)
    assert f is not None and f.verdict == cl.DISAGREES
    assert "higher with 32 inputs on 0 of 15 matched pairs" in f.shown


HWANG_PUBLISHED = sorted(
    pub.HWANG_ORDER,
    key=lambda m: -cb.published_net(list(pub.HWANG_ORDER), pub.BARRIO_TABLE3, pub.HWANG_ORDER)[m],
)


def hwang_tasks(order: list[str]) -> list[TaskReport]:
    """The 10 Hwang tasks at n = 8192, every better method of ``order`` significantly
    beating every worse one, SFFS not run (the study stops it at 2048); and at n = 1024
    one instance each (too few for a test), whose cells the claims must not count."""
    from dataclasses import replace

    out = []
    for g in range(1, 6):
        for pt in ("clean", "noisy"):
            ms = [m for m in order if m != "ssge-sffs-1"]
            means = {m: 0.1 * (1 + ms.index(m)) for m in ms}
            sig = {(a, b) for i, a in enumerate(ms) for b in ms[i + 1 :]}
            t = task(f"hwang-g{g}", 8192, {**means, "ssge-sffs-1": None}, sig)
            out.append(replace(t, ref=TaskRef(f"hwang-g{g}", pt, 8192)))
            few = {
                m: MethodCell(method=m, status="too few", task_instances=8, used=(0,))
                for m in pub.HWANG_ORDER
            }
            out.append(replace(t, ref=TaskRef(f"hwang-g{g}", pt, 1024), cells=few, pairs={}))
    return out


def test_published_net_wins_are_table_3s():
    net = cb.published_net(list(pub.HWANG_ORDER), pub.BARRIO_TABLE3, pub.HWANG_ORDER)
    assert HWANG_PUBLISHED == [
        "ssge-oscil5-1",
        "svm-1",
        "ssge-sffs-1",
        "ssge-pta10-1",
        "ssge-pta21-1",
        "rvm-1",
    ]
    assert (net["ssge-oscil5-1"], net["svm-1"], net["rvm-1"]) == (15, 7, -19)


def test_hwang_claims_count_wins_at_8192_and_name_the_methods_without_results_there():
    from delve_bench.study.claims import barrio_hwang as ch

    ms = list(pub.HWANG_ORDER)
    v, ov = view_of(hwang_tasks(HWANG_PUBLISHED), ms)
    f = ch._hwang_rank(v, ov)
    # among the five with results Table 3's net wins tie PTA(1,0) and PTA(2,1), hence 0.95
    assert f is not None and f.verdict == cl.AGREES and "Kendall's tau-b 0.95" in f.shown
    assert "published (Table 3, the same methods): Oscil(5) +13, SVM +7, PTA(1,0) -2" in f.shown
    assert f.shown.startswith("by net significant wins: Oscil(5) +40, SVM +20, PTA(1,0) +0")
    assert f.shown.endswith("(no results at n = 8192: SFFS)")
    f = ch._oscil_svm(v, ov)
    assert f is not None and f.verdict == cl.AGREES and "Oscil(5) +40, SVM +20" in f.shown
    v, ov = view_of(hwang_tasks(list(reversed(HWANG_PUBLISHED))), ms)
    assert ch._hwang_rank(v, ov).verdict == cl.DISAGREES  # type: ignore[union-attr]
    assert ch._oscil_svm(v, ov).verdict == cl.DISAGREES  # type: ignore[union-attr]
    # the SVM second to last: one of the two is in the top two
    order = [m for m in HWANG_PUBLISHED if m != "svm-1"]
    order.insert(4, "svm-1")
    v, ov = view_of(hwang_tasks(order), ms)
    assert ch._oscil_svm(v, ov).verdict == cl.PARTLY  # type: ignore[union-attr]


def test_a_task_run_on_the_instances_its_study_plans_counts_as_finished():
    """barrio-hwang runs instance 0 at 1024: with the study's plan those cells are
    finished, so a claim is provisional only while results are truly to come."""
    from dataclasses import replace

    from delve_bench.study.claims import barrio_hwang as ch

    ms = list(pub.HWANG_ORDER)
    v, ov = view_of(hwang_tasks(HWANG_PUBLISHED), ms)
    planned = {m: 20 for m in ms if m != "ssge-sffs-1"} | {"ssge-sffs-1": 10}
    (e,) = cl.evaluate(ch.CLAIMS[1:], v, ov, planned)
    # without the plan, a task run on one of its instances is never finished
    assert e.verdict == "agrees (provisional: 50 of 110 task results)"
    v = replace(v, planned=lambda m, ref: {0} if ref.size == 1024 else None)
    (e,) = cl.evaluate(ch.CLAIMS[1:], v, ov, planned)
    assert e.verdict == "agrees" and e.done == e.planned == 110
