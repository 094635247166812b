"""The `delve` command end to end, as a user runs it (real processes, real data)."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from support import unshipped_dataset


def _one_line_error(r, needle):
    out = (r.stderr + r.stdout).strip()
    assert r.returncode == 2, out
    assert "Traceback" not in out and len(out.splitlines()) == 1 and needle in out, out


def test_datasets_lists_names_sizes_and_presence(delve, tmp_path):
    unshipped_dataset(tmp_path)
    r = delve("datasets", check=True)
    for name in ("kin-8nm", "pumadyn-8nm", "boston", "bank-8fm", "hwang-g1", "abalone"):
        assert name in r.stdout
    assert "generated" in r.stdout and "delve fetch kin-32xx" in r.stdout


def test_run_writes_losses_skips_finished_and_force_redoes(delve, tmp_path):
    r = delve("run", "lin-1", "knn-cv-1", "kin-8nm/std.64", "--budget-mode", "work", check=True)
    assert "ran 16" in r.stderr
    d = tmp_path / "results" / "lin-1" / "kin-8nm" / "dist" / "std.64"
    assert sorted(p.name for p in d.iterdir()) == [str(i) for i in range(8)]
    losses = pd.read_csv(d / "3" / "losses.csv")
    assert list(losses.columns) == ["case", "S", "A", "L"] and len(losses) == 512
    assert (losses["S"] >= 0).all() and losses["L"].notna().all()
    meta = json.loads((d / "3" / "meta.json").read_text())
    assert meta["status"] == "ok" and meta["n_train"] == 64 and meta["budget"]["mode"] == "work"
    assert {
        "cpu_seconds",
        "wall_seconds",
        "seed",
        "package_version",
        "platform",
        "losses_sha256",
    } <= set(meta)
    before = (d / "3" / "losses.csv").read_bytes()
    r = delve("run", "lin-1", "kin-8nm/std.64", "--budget-mode", "work", check=True)
    assert "ran 0, skipped 8" in r.stderr
    r = delve(
        "run",
        "lin-1",
        "kin-8nm/std.64",
        "--budget-mode",
        "work",
        "--force",
        "--instances",
        "3",
        check=True,
    )
    assert "ran 1" in r.stderr and (d / "3" / "losses.csv").read_bytes() == before


def test_stats_and_compare_json_and_mstats_text(delve):
    delve(
        "run",
        "lin-1",
        "knn-cv-1",
        "kin-8nm/std.64",
        "boston/price/std.32",
        "--budget-mode",
        "work",
        "-q",
        check=True,
    )
    (s,) = json.loads(delve("stats", "lin-1", "kin-8nm/std.64", "--json", check=True).stdout)
    for key in (
        "task",
        "loss",
        "design",
        "instances",
        "train_size",
        "test_size",
        "mean",
        "se",
        "sd_train",
        "sd_test",
        "standardized",
    ):
        assert key in s
    assert s["task"] == "kin-8nm/dist/std.64" and s["instances"] == 8 and s["test_size"] == 512
    assert 0.5 < s["standardized"]["mean"] < 0.9
    (c,) = json.loads(
        delve("compare", "knn-cv-1", "lin-1", "boston/price/std.32", "--json", check=True).stdout
    )
    assert c["test"] == "F" and c["design"] == "2-way" and c["method_a"] == "knn-cv-1"
    assert c["difference"] == pytest.approx(c["mean_a"] - c["mean_b"])
    text = delve("compare", "knn-cv-1", "lin-1", "kin-8nm/std.64", "-l", "A", check=True).stdout
    assert (
        "Loss: A (Absolute error)" in text
        and "(t-test), p =" in text
        and "disjoint training sets" in text
    )
    assert "Estimated expected loss for /lin-1:" in text
    both = json.loads(delve("compare", "knn-cv-1", "lin-1", "--json", check=True).stdout)
    assert sorted(x["task"] for x in both) == [
        "boston/price/std.32",
        "kin-8nm/dist/std.64",
    ]
    text = delve("stats", "knn-cv-1", "boston/price/std.32", "-l", "L", check=True).stdout
    assert "SD from test cases:" in text and "1 common test set containing 250 cases" in text


@pytest.mark.parametrize(
    "args,needle",
    [
        (("run", "no-such-method-1", "kin-8nm/std.64"), "unknown method"),
        (("run", "lin1", "kin-8nm/std.64"), "did you mean lin-1"),
        (("run", "lin-1", "kin-8nm/std.77"), "no task std.77"),
        (("stats", "lin-1", "nosuchdata/std.64"), "unknown dataset"),
        (("stats", "lin-1", "kin-8nm/std.64"), "delve run lin-1"),
        (("run", "lin-1", "kin-8nm/std.64", "--instances", "9"), "no instance 9"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(delve, tmp_path, args, needle):
    _one_line_error(delve(*args), needle)
    assert not (tmp_path / "results").exists()


def test_missing_data_points_at_fetch(delve, tmp_path):
    unshipped_dataset(tmp_path)
    env = {"DELVE_DATA_PATH": str(tmp_path / "none"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    _one_line_error(
        delve("run", "lin-1", "kin-32xx/std.64", "--budget-mode", "work", env=env),
        "delve fetch kin-32xx",
    )
    assert not (tmp_path / "results").exists()


def test_compare_and_report_pair_instances_by_the_same_rule(delve, tmp_path):
    """Both use the instances both methods have, and say which were left out."""
    delve(
        "run",
        "lin-1",
        "kin-8nm/std.64",
        "--budget-mode",
        "work",
        "--instances",
        "0-3",
        "-q",
        check=True,
    )
    delve("run", "knn-cv-1", "kin-8nm/std.64", "--budget-mode", "work", "-q", check=True)
    r = delve("compare", "knn-cv-1", "lin-1", "kin-8nm/std.64", check=True)
    assert "knn-cv-1 also has 4, 5, 6, 7 (not used here)" in r.stdout
    (c,) = json.loads(delve("compare", "knn-cv-1", "lin-1", "kin-8nm/std.64", "--json").stdout)
    assert c["instances_used"] == [0, 1, 2, 3]
    assert c["instances_unpaired"] == {"knn-cv-1": [4, 5, 6, 7], "lin-1": []}
    delve("report", "kin-8nm", check=True)
    rows = (tmp_path / "results/tables/kin-8nm-dist-S.csv").read_text().splitlines()
    head = rows[0].split(",")
    knn = next(r.split(",") for r in rows if ",knn-cv-1," in r)
    # the report's pair test is the compare's: same standardised difference, same p
    assert float(knn[head.index("diff_vs_lin-1")]) == pytest.approx(c["standardized"]["mean"])
    assert knn[head.index("p_vs_lin-1")] == c["p_text"]
    r = delve("stats", "lin-1", "kin-8nm/std.64", check=True)
    assert "4 of 8 instances have no complete result" in r.stdout


def test_a_failing_method_is_recorded_and_the_others_go_on(delve, tmp_path):
    pytest.importorskip("sklearn")
    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "broken-1.yaml").write_text(
        "plugin: delve_bench.methods.sklearn:SklearnRegressor\n"
        "params: {estimator: 'sklearn.linear_model:Ridge', alpha: not-a-number}\n"
    )
    (tmp_path / "methods" / "ridge-sk-1.yaml").write_text(
        "plugin: sklearn.linear_model:Ridge\nparams: {alpha: 1.0}\n"
    )
    r = delve("run", "broken-1", "ridge-sk-1", "boston/price/std.64", "--budget-mode", "work")
    assert r.returncode == 1 and "failed: broken-1 boston/price/std.64 #0" in r.stderr
    meta = json.loads((tmp_path / "results/broken-1/boston/price/std.64/0/meta.json").read_text())
    assert meta["status"] == "failed" and "alpha" in meta["error"]
    assert not (tmp_path / "results/broken-1/boston/price/std.64/0/losses.csv").exists()
    (s,) = json.loads(
        delve("stats", "ridge-sk-1", "boston/price/std.64", "--json", check=True).stdout
    )
    assert s["instances"] == 4
    # skipping what failed earlier is reported, but is not a failure of this run (exit 0)
    r = delve("run", "broken-1", "boston/price/std.64", "--budget-mode", "work")
    assert r.returncode == 0 and "--retry-failed" in r.stderr and "failed earlier" in r.stderr
    r = delve("run", "broken-1", "boston/price/std.64", "--budget-mode", "work", "--retry-failed")
    assert r.returncode == 1
    _one_line_error(delve("stats", "ridge-sk-1", "boston/price/std.64", "-l", "L"), "no L loss")


def test_parallel_jobs_give_byte_identical_losses(delve, tmp_path):
    delve(
        "run", "lin-1", "knn-cv-1", "boston/price/std.32", "--budget-mode", "work", "-q", check=True
    )
    seq = {
        p.relative_to(tmp_path): p.read_bytes() for p in (tmp_path / "results").rglob("losses.csv")
    }
    other = tmp_path / "other"
    other.mkdir()
    delve(
        "run",
        "lin-1",
        "knn-cv-1",
        "boston/price/std.32",
        "--budget-mode",
        "work",
        "-q",
        "--jobs",
        "2",
        root=other,
        check=True,
    )
    par = {p.relative_to(other): p.read_bytes() for p in (other / "results").rglob("losses.csv")}
    assert len(seq) == 16 and seq == par


def test_demo_runs_offline_on_generated_data(delve, tmp_path):
    r = delve("demo", env={"DELVE_DATA_PATH": str(tmp_path / "nothing")}, check=True)
    assert "Estimated expected difference" in r.stdout and "hwang-g5/noisy/std.256" in r.stdout
    assert "Posterior mass" in r.stdout
