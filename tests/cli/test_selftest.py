"""`delve selftest --quick` (part of the suite, well under 30 s): it passes, the
hierarchical t-test keeps its level with 8 instances, the quasi-F spikes at p near 0 with
2 instances (thesis Fig. 2.5), and the golden numbers are recomputed."""

from __future__ import annotations

import json
import time

import numpy as np


def test_selftest_quick(delve, tmp_path):
    t0 = time.perf_counter()
    r = delve("selftest", "--quick", "--json", "--out", str(tmp_path / "plots"))
    elapsed = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr
    assert elapsed < 30
    doc = json.loads(r.stdout)
    assert doc["passed"] and not doc["failures"]
    golden = {g["name"]: g for g in doc["golden"]}
    assert (
        golden["Fig. 2.2 p (t-test)"]["computed"] == np.round(0.0399300, 7)
        or abs(golden["Fig. 2.2 p (t-test)"]["computed"] - 0.03993) < 5e-7
    )
    assert abs(golden["mstats example p (t-test)"]["computed"] - 0.052988021) < 5e-9
    assert abs(golden["Fig. 2.3 posterior mass beyond 0"]["computed"] - 0.023) < 5e-4
    rate = {
        (s["design"], s["instances"], x["test"], x["alpha"]): x["rate"]
        for s in doc["settings"]
        for x in s["rates"]
    }
    assert 0.04 <= rate[("hierarchical", 8, "t", 0.05)] <= 0.06
    assert 0.005 <= rate[("hierarchical", 8, "t", 0.01)] <= 0.015
    # the spike: with 2 instances the quasi-F claims p < 0.01 several times too often
    assert rate[("2-way", 2, "quasi-F", 0.01)] > 0.04
    assert rate[("2-way", 2, "quasi-F", 0.05)] > 0.08
    # with 4 instances it has more or less vanished
    assert rate[("2-way", 4, "quasi-F", 0.01)] < rate[("2-way", 2, "quasi-F", 0.01)] / 2
    # DELVE's rule: with 2 instances nothing below p < 0.05 is ever claimed
    assert rate[("2-way", 2, "quasi-F reported", 0.01)] == 0.0
    pngs = sorted(p.name for p in (tmp_path / "plots").glob("*.png"))
    assert "selftest-quasi-f-2-instances.png" in pngs
    assert (tmp_path / "plots" / pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_selftest_text_names_rates_and_passes(delve, tmp_path):
    from delve_bench import api
    from delve_bench.report.commands import format_selftest

    r = delve("selftest", "--quick", "--no-plots")
    assert r.returncode == 0, r.stderr
    assert "Golden numbers" in r.stdout and "passed" in r.stdout
    assert "quasi-F" in r.stdout and "sign-flip" in r.stdout and "corrected t" in r.stdout
    # the command prints the API's result (the same seed gives the same rates)
    res = api.run_selftest(quick=True, plots=False, root=tmp_path)
    assert format_selftest(res) == r.stdout and res.plots == ()
    assert repr(res) == (
        "SelftestResult(quick, seed 0: 26 rates in 3 settings, 7 golden numbers; passed)"
    )
