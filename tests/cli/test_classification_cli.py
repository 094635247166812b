"""Classification end to end through the real `delve` command: run, stats, compare, report."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from support import run_delve


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """logistic-1 and a scikit-learn classifier plugin on Ripley and banana/ida/std.400,
    run once for the module's tests."""
    root = tmp_path_factory.mktemp("class-study")
    (root / "methods").mkdir()
    (root / "methods" / "sk-knn.yaml").write_text(
        "plugin: sklearn.neighbors:KNeighborsClassifier\nparams: {n_neighbors: 15}\n"
    )
    r = run_delve(root, "run", "logistic-1", "sk-knn", "ripley/orig", "banana/ida/std.400")
    assert r.returncode == 0, r.stderr
    return root


@pytest.fixture
def delve(study):
    return lambda *args: run_delve(study, *args)


@pytest.mark.slow  # its module fixture runs `delve` in subprocesses
def test_run_writes_class_probabilities_and_zql_losses(study):
    d = study / "results" / "logistic-1" / "banana" / "ida" / "std.400" / "3"
    losses = pd.read_csv(d / "losses.csv")
    preds = pd.read_csv(d / "predictions.csv")
    assert list(losses.columns) == ["case", "Z", "Q", "L"] and len(losses) == 4900
    assert list(preds.columns) == ["case", "target", "p.-1", "p.1"]
    P = preds[["p.-1", "p.1"]].to_numpy()
    assert np.allclose(P.sum(1), 1.0)
    t = (preds["target"].to_numpy() == 1).astype(int)
    assert np.array_equal(losses["Z"], (P.argmax(1) != t).astype(float))
    assert np.allclose(losses["L"], -np.log(P[np.arange(len(t)), t]))
    assert json.loads((d / "meta.json").read_text())["losses_available"] == ["Z", "Q", "L"]
    from delve_bench import api

    table = api.loss_table("logistic-1", "banana/ida/std.400", root=study)
    assert list(table.columns) == ["method", "task", "instance", "case", "Z", "Q", "L"]
    mine = table[table["instance"] == 3]
    assert np.array_equal(mine["case"], losses["case"]) and np.array_equal(mine["Q"], losses["Q"])


def test_compare_uses_the_corrected_resampled_t_test(study, delve):
    r = delve("compare", "sk-knn", "logistic-1", "banana/ida/std.400", "-l", "Z")
    assert r.returncode == 0, r.stderr
    assert "Significance of difference (corrected resampled t-test), p =" in r.stdout
    assert "sign-flip permutation over instances" in r.stdout
    assert "10 published realisations (overlapping training sets)" in r.stdout
    (c,) = json.loads(
        delve("compare", "sk-knn", "logistic-1", "banana/ida/std.400", "-l", "Z", "--json").stdout
    )
    assert c["design"] == "resampled" and c["test"] == "corrected t"
    assert c["test_name"] == "corrected resampled t-test (Nadeau & Bengio 2003)"
    # recompute from the stored losses: realisation means, corrected SE, t with 9 d.o.f.
    res = study / "results"
    x = np.array(
        [
            pd.read_csv(res / m / "banana/ida/std.400" / str(i) / "losses.csv")["Z"].mean()
            for i in range(10)
            for m in ("sk-knn", "logistic-1")
        ]
    ).reshape(10, 2)
    d = x[:, 0] - x[:, 1]
    se = np.sqrt((1 / 10 + 4900 / 400) * d.var(ddof=1))
    assert c["se"] == pytest.approx(se)
    assert c["p"] == pytest.approx(2 * sps.t.sf(abs(d.mean() / se), 9))
    assert c["permutation"]["exact"] and c["permutation"]["patterns"] == 1024


def test_fixed_split_and_wrong_losses(study, delve):
    r = delve("stats", "logistic-1", "ripley")  # default loss on a classification task: Z
    assert r.returncode == 0, r.stderr
    assert "Loss: Z (Zero-one)" in r.stdout and "test-case variation only" in r.stdout
    r = delve("stats", "logistic-1", "ripley", "-l", "S")
    assert r.returncode == 2 and "classification task: its losses are Z, Q, L, not S" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = delve("run", "lin-1", "ripley/orig")
    assert r.returncode == 2 and "lin-1 is a regression method" in r.stderr


def test_report_has_the_error_rate_table(study, delve):
    r = delve("report", "--plot")
    assert r.returncode == 0, r.stderr
    tables = study / "results" / "tables"
    md = (tables / "banana-ida-error.md").read_text()
    assert "| method | std.400 error (%) | std.400 size |" in md
    assert (tables / "banana-ida-Z.md").is_file() and (tables / "ripley-orig-Z.md").is_file()
    z = (tables / "banana-ida-Z.md").read_text()
    assert "corrected resampled t-test (Nadeau & Bengio 2003)" in z and "sign-flip p = " in z
    assert "is anti-conservative, like an uncorrected t-test" in z
    # the rankings' legend names the tests the classification designs use
    legend = (tables / "tests-Z.md").read_text()
    assert "corrected resampled t-test (Nadeau & Bengio 2003), resampled" in legend
    assert "paired t-test over test cases, fixed split" in legend
    csv = pd.read_csv(tables / "banana-ida-error.csv")
    res = study / "results" / "logistic-1" / "banana/ida/std.400"
    err = [100 * pd.read_csv(res / str(i) / "losses.csv")["Z"].mean() for i in range(10)]
    row = csv[csv.method == "logistic-1"].iloc[0]
    assert row.error_rate_mean == pytest.approx(np.mean(err))
    assert row.error_rate_sd == pytest.approx(np.std(err, ddof=1))
    assert "banana-ida-error" in (study / "results" / "index.html").read_text()
