"""`delve check --with STUDY` at the precision the study committed: its losses are float32,
so a rerun that differs from them by less than that rounding is unchanged (not "changed
+0.00%"), and a check that ran no test says so plainly (not "over the 0 tests"). The
current results are study smoke's committed lin-1 results themselves, unpacked (exactly
what an untouched rerun rounds to) and then scaled."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from delve_bench import api
from delve_bench.analysis.gate import same_losses
from delve_bench.report.commands import format_check
from delve_bench.run.store import csv_bytes, sha256_bytes
from delve_bench.study.pack import unpack
from delve_bench.tasks.names import TaskRef

SMOKE = Path(__file__).resolve().parents[2] / "results" / "smoke"


@pytest.fixture
def current(tmp_path) -> Path:
    """A workspace holding smoke's lin-1 results on kin-8nm/dist (std.64 and std.128, 8
    instances each)."""
    assert unpack(SMOKE, tmp_path / "results", ["lin-1"], [TaskRef("kin-8nm", "dist", 64)])
    return tmp_path


def scale(root: Path, factor: float) -> None:
    """Write every S loss (smoke commits only S on kin-8nm) times ``factor`` in full
    precision, as a rerun writes them (meta.json's checksum updated, so the results stay
    valid)."""
    for inst in (root / "results" / "lin-1" / "kin-8nm" / "dist" / "std.64").iterdir():
        df = pd.read_csv(inst / "losses.csv")
        df["S"] *= factor
        data = csv_bytes(df)
        (inst / "losses.csv").write_bytes(data)
        meta = json.loads((inst / "meta.json").read_text())
        meta["losses_sha256"] = sha256_bytes(data)
        (inst / "meta.json").write_text(json.dumps(meta))


def check(root: Path, task: str = "kin-8nm/std.64"):
    return api.check_results(None, ["lin-1", task], with_study="smoke", root=root)


def test_a_rerun_within_float32_rounding_is_unchanged(current):
    # 1e-8 relative is under half a float32 ulp (2**-25 relative at least): the rerun's
    # losses round to the committed ones
    scale(current, 1 + 1e-8)
    res = check(current)
    assert [(r.loss, r.status, r.change, r.p) for r in res.rows] == [("S", "unchanged", 0.0, None)]
    assert res.rows[0].current == res.rows[0].baseline == 0.6550043408297352
    text = format_check(res)
    assert text.splitlines()[1] == (
        "current - baseline per method, task and loss. No test was needed: no compared loss "
        "differs from the baseline's. Losses standardised."
    )
    assert "over the 0 tests" not in text and text.splitlines()[-1] == "ok: 1 unchanged"


def test_a_change_beyond_the_rounding_is_tested(current):
    scale(current, 1 + 1e-6)
    res = check(current)
    assert [(r.loss, r.status, f"{r.change:.6g}") for r in res.rows] == [("S", "changed", "1e-06")]
    text = format_check(res)
    assert "with Holm-adjusted p < 0.05 over 1 test. Losses standardised." in text
    assert text.splitlines()[-1] == "ok: 1 changed"


def test_nothing_compared_is_said_plainly(current):
    shutil.rmtree(current / "results" / "lin-1" / "kin-8nm" / "dist" / "std.128")
    res = check(current, "kin-8nm/std.128")
    assert [r.status for r in res.rows] == ["missing"] and res.failed
    assert format_check(res).splitlines()[1] == (
        "current - baseline per method, task and loss. No test was run: nothing could be "
        "compared. Losses standardised."
    )


def test_float32_rounding_counts_only_against_a_float32_baseline():
    third = np.array([[1 / 3, 2 / 3]])
    packed = third.astype(np.float32).astype(np.float64)  # 0.3333333432674408, ...
    assert same_losses(third, packed)  # a study's committed values: equal when rounded
    assert not same_losses(packed, third)  # a full-precision baseline: compared exactly
    assert not same_losses(third * (1 + 1e-6), packed)
    assert same_losses(np.array([[np.nan, 0.5]]), np.array([[np.nan, 0.5]]))
