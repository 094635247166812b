"""`delve power` and the hint and posterior plot of `delve compare`, on real runs of lin-1
and knn-cv-1 (work budget), checked against numbers recomputed here from the loss files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from support import one_line_error, run_delve

TASKS = ("kin-8nm/std.64", "kin-8nm/std.256", "boston/price/std.64", "boston/price/std.128")


run = run_delve


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("power")
    r = run(root, "run", "lin-1", "knn-cv-1", *TASKS, "--budget-mode", "work", "-q")
    assert r.returncode == 0, r.stderr
    return root


def losses(root: Path, method: str, task: str, loss: str = "S") -> np.ndarray:
    d = root / "results" / method / task
    rows = []
    for inst in sorted(d.iterdir(), key=lambda p: int(p.name)):
        df = pd.read_csv(inst / "losses.csv").sort_values("case")
        rows.append(df[loss].to_numpy(float))
    return np.array(rows)


def pooled_variance(root: Path, task: str, a: str = "lin-1") -> float:
    """Variance (N-1) of the pooled test targets, from predictions.csv."""
    d = root / "results" / a / task
    t = [pd.read_csv(p / "predictions.csv")["target"].to_numpy(float) for p in d.iterdir()]
    if task.startswith("boston"):
        return float(np.var(t[0], ddof=1))
    return float(np.var(np.concatenate(t), ddof=1))


def test_power_of_the_hierarchical_design_is_the_noncentral_t(ws):
    r = run(ws, "power", "knn-cv-1", "lin-1", "kin-8nm/std.64", "--delta", "0.05", "--json")
    assert r.returncode == 0, r.stderr
    pa = json.loads(r.stdout)
    y = losses(ws, "knn-cv-1", "kin-8nm/dist/std.64") - losses(ws, "lin-1", "kin-8nm/dist/std.64")
    I, J = y.shape
    var = pooled_variance(ws, "kin-8nm/dist/std.64")
    yi = y.mean(1)
    ms_a = J * ((yi - y.mean()) ** 2).sum() / (I - 1)
    ms_e = ((y - yi[:, None]) ** 2).sum() / (I * (J - 1))
    var_a = max((ms_a - ms_e) / J, 0.0)
    sd_mean = np.sqrt(var_a / I + ms_e / (I * J)) / var  # standardised
    nc = 0.05 / sd_mean
    tc = sps.t.isf(0.025, I - 1)
    want = sps.nct.sf(tc, I - 1, nc) + sps.nct.cdf(-tc, I - 1, nc)
    assert (pa["instances"], pa["test_cases"], pa["design"]) == (8, 512, "hierarchical")
    assert pa["power"] == pytest.approx(want, rel=1e-6)
    assert pa["delta"] == 0.05 and pa["delta_source"] == "given"
    assert pa["pool_cases"] == 8192 and pa["test_pool"] == 4096 and pa["max_instances"] == 64
    for key in ("more_instances", "more_test_cases", "cheapest"):
        d = pa[key]
        if d is not None:
            assert d["power"] >= 0.8
            assert d["cases"] == d["instances"] * (64 + d["test_cases"])


def test_power_text_says_when_the_data_set_is_too_small(ws):
    r = run(ws, "power", "knn-cv-1", "lin-1", "boston/price/std.64", "--delta", "0.01")
    assert r.returncode == 0, r.stderr
    assert "not possible with this data set" in r.stdout
    assert "Lindman's quasi-F" in r.stdout and "506 cases" in r.stdout
    # a large difference is detectable within boston's 506 cases
    r = run(ws, "power", "knn-cv-1", "lin-1", "boston/price/std.64", "--delta", "2", "--json")
    pa = json.loads(r.stdout)
    assert pa["power"] > 0.8 and pa["cheapest"]["fits"]
    assert pa["cheapest"]["instances"] >= 4  # the 2-way advice never goes below 4


def test_relative_delta_and_bad_input(ws):
    r = run(ws, "power", "knn-cv-1", "lin-1", "kin-8nm/std.256", "--delta", "10%", "--json")
    pa = json.loads(r.stdout)
    lin = losses(ws, "lin-1", "kin-8nm/dist/std.256").mean()
    var = pooled_variance(ws, "kin-8nm/dist/std.256")
    assert pa["delta"] == pytest.approx(0.1 * lin / var, rel=1e-9)
    assert pa["delta_source"] == "relative"
    for bad in ("abc", "-1", "0"):
        r = run(ws, "power", "knn-cv-1", "lin-1", "kin-8nm/std.256", "--delta", bad)
        one_line_error(r, "--delta")
    r = run(ws, "power", "knn-cv-1", "lin-1", "kin-8nm")
    one_line_error(r, "name one")


def test_compare_hints_at_low_power_only_when_not_significant(ws):
    cs = json.loads(run(ws, "compare", "knn-cv-1", "lin-1", *TASKS, "--json").stdout)
    text = run(ws, "compare", "knn-cv-1", "lin-1", *TASKS, "--detail").stdout
    blocks = ["/knn-cv-1/" + b for b in text.split("/knn-cv-1/")[1:]]
    assert len(blocks) == len(cs) == len(TASKS)
    hinted = []
    for c, block in zip(cs, blocks, strict=True):
        assert block.startswith(f"/knn-cv-1/{c['task']}")
        if c["p"] is None or c["p_text"].startswith("<") or c["p"] <= 0.05:
            assert "hint:" not in block, c["task"]
        elif "hint:" in block:
            hinted.append(c["task"])
    assert "kin-8nm/dist/std.64" in hinted  # knn-cv-1 vs lin-1: p ~ 0.4
    table = run(ws, "compare", "knn-cv-1", "lin-1", *TASKS).stdout  # one row per task
    assert (
        f"low power: not significant with under 50 % power at the observed difference on {', '.join(hinted)} "
        in table
    )
    pa = json.loads(run(ws, "power", "knn-cv-1", "lin-1", hinted[0], "--json").stdout)
    assert pa["power"] < 0.5


def test_compare_bayes_plot_for_both_designs(ws):
    r = run(
        ws,
        "compare",
        "knn-cv-1",
        "lin-1",
        "kin-8nm/std.64",
        "boston/price/std.64",
        "--bayes",
        "--plot",
        "--json",
    )
    assert r.returncode == 0, r.stderr
    for c in json.loads(r.stdout):
        assert c["posterior_prob_negative"] + c["posterior_prob_positive"] == pytest.approx(1.0)
        opposite = (
            c["posterior_prob_positive"] if c["difference"] < 0 else c["posterior_prob_negative"]
        )
        assert c["posterior_opposite_sign"] == pytest.approx(opposite)
        pngs = [p for p in c["posterior_plot"] if p.endswith(".png")]
        assert pngs and Path(pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if c["design"] == "hierarchical":
            # eq. 2.16 with I - 1 = 7 d.o.f. is close to half the two-sided t p-value
            assert opposite == pytest.approx(c["p"] / 2, abs=0.02)
        else:
            assert "mixture" in c["posterior_method"]
