"""One significance rule (``stats.results.is_significant``): a bounded ``p < 0.05`` (the
quasi-F on fewer than 4 instances) is never counted significant -- not by the report's
stars, its wins tables, the thesis claims, the JSON's ``significant_5pc`` or ``delve
compare``. On the thesis' committed results for boston/price: at n = 128 every method has
2 instances, so five pairs of the field say only ``< 0.05``; at n = 64 (4 instances) the
quasi-F's p is reported and counts as usual."""

from __future__ import annotations

import pytest

from delve_bench import api
from delve_bench.analysis.collect import collect
from delve_bench.analysis.overview import overview
from delve_bench.cli._group import record
from delve_bench.report.tables import BOUNDED_NOTE, prototask_table, ranks_table, wins_table
from delve_bench.report.verdicts import comparison_table
from delve_bench.stats.results import is_significant
from delve_bench.study.claims import thesis as ct
from delve_bench.study.displays import StudyView
from delve_bench.tasks.names import TaskRef

#: the thesis' methods that have results on boston/price at 64 and 128
FIELD = ["lin-1", "knn-cv-1", "mars3.6-bag-1", "mlp-ese-1", "gp-map-1"]
BOSTON = [TaskRef("boston", "price", 64), TaskRef("boston", "price", 128)]
KIN = TaskRef("kin-8nm", "dist", 64)


@pytest.fixture(scope="module")
def thesis(tmp_path_factory) -> api.Workspace:
    return api.Workspace(tmp_path_factory.mktemp("ws")).with_study("thesis")


@pytest.fixture(scope="module")
def reports(thesis):
    """Per-prototask reports (loss S) of boston/price at 64 and 128 and kin-8nm/dist at 64."""
    return collect(thesis.core, [*BOSTON, KIN], FIELD, "S")


def _boston(reports):
    return next(r for r in reports if r.name == "boston/price")


def test_the_rule():
    assert is_significant(0.049, bounded=False) and not is_significant(0.05, bounded=False)
    assert not is_significant(0.001, bounded=True) and not is_significant(None, bounded=False)
    assert is_significant(0.02, False, threshold=0.042) and not is_significant(0.045, False, 0.042)


def test_the_bounded_pairs_are_shown_but_not_significant(reports):
    t128 = _boston(reports).tasks[1]
    assert t128.ref.size == 128
    bounded = sorted(k for k, p in t128.pairs.items() if p.bounded)
    assert bounded == [
        ("lin-1", "mars3.6-bag-1"),
        ("lin-1", "mlp-ese-1"),
        ("mars3.6-bag-1", "mlp-ese-1"),
    ]
    for k in bounded:
        c = t128.pairs[k].comparison
        assert c.p_text == "< 0.05" and c.p < 0.05
        assert not c.significant and c.significant_5pc is False
    assert not any(p.significant for p in t128.pairs.values())


def test_the_report_draws_no_star_for_a_bound_and_says_why(reports):
    tbl = prototask_table(_boston(reports))
    rows = {(r[0], r[1]): r for r in tbl.rows}
    vs = {m: 6 + i for i, m in enumerate(FIELD)}  # the "vs <method>" columns
    lin128 = rows[("std.128", "lin-1")]
    assert lin128[vs["mars3.6-bag-1"]] == "+0.133, p < 0.05"  # was "+0.133, p < 0.05 *"
    assert lin128[vs["mlp-ese-1"]] == "+0.0644, p < 0.05"
    # at 64 (4 instances) the p is reported and starred as before
    assert rows[("std.64", "lin-1")][vs["mars3.6-bag-1"]] == "+0.124, p = 0.00084 *"
    assert BOUNDED_NOTE in tbl.notes
    stars = sum(cell.endswith("*") for r in tbl.rows for cell in r[6:-1])
    assert stars == 6  # the three significant pairs at n = 64, each drawn twice


def test_wins_count_no_bound(reports):
    ov = overview([_boston(reports)], FIELD, "S")
    # (loser, winner): only the three n = 64 results; the three bounded ones at 128 are gone
    assert {k: v for k, v in ov.wins.items() if v} == {
        ("lin-1", "mars3.6-bag-1"): 1,
        ("lin-1", "mlp-ese-1"): 1,
        ("knn-cv-1", "mars3.6-bag-1"): 1,
    }
    assert ov.compared[("lin-1", "mars3.6-bag-1")] == 2
    assert [r[4:] for r in ranks_table(ov).rows] == [
        ("0", "2", "-2"),
        ("0", "1", "-1"),
        ("2", "0", "+2"),
        ("1", "0", "+1"),
        ("0", "0", "+0"),
    ]
    assert BOUNDED_NOTE in ranks_table(ov).notes and BOUNDED_NOTE in wins_table(ov).notes


def test_a_claim_counts_no_bound(thesis, reports):
    """§5.3's few significant differences on boston: with the bounded pairs counted, 6 of
    20 boston pairs (30 %) against 2 of 10 (20 %) on kin-8nm, "disagrees"; without them
    3 of 20 (15 %), "partly"."""
    view = StudyView(ws=thesis.core, reports=reports, methods=FIELD)
    f = ct._boston(view, overview(reports, FIELD, "S"))
    assert f.shown == (
        "on boston 3 of 20 method pairs differ significantly (15 %); on kin/pumadyn 2 of 10 (20 %)"
    )
    assert f.verdict == "partly"


def test_json_and_compare_count_no_bound(thesis):
    rs = api.comparisons("lin-1", "mars3.6-1", "boston/price", root=thesis)
    c = next(c for c in rs if c.task == "boston/price/std.128")
    doc = record("comparison", c)
    assert doc["p_text"] == "< 0.05" and doc["p"] < 0.05
    assert doc["significant_5pc"] is False and doc["critical_p"] == 0.05
    assert c.verdict.endswith(
        "p < 0.05, not counted significant (a bound only; Lindman's quasi-F test, 2 instances)"
    )
    row = next(x for x in comparison_table(rs).splitlines() if x.startswith("boston/price/std.128"))
    assert row.split()[1:] == ["2", "0.2812", "0.2169", "+0.0643", "0.0295", "<", "0.05"] + [
        "mars3.6-1"
    ]
