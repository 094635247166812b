"""A committed file whose every instance passed its check is remembered by the sha256 of
what the check read: a later read of the same content skips the check, and any other
content (one value edited) is checked afresh and refused."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from support import REPO

from delve_bench.errors import TamperedResults
from delve_bench.run import packed
from delve_bench.study.pack import _parquet, read_losses

SMOKE = REPO / "results" / "smoke"


@pytest.fixture
def study(tmp_path, monkeypatch):
    """A copy of the smoke study's committed lin-1 files and an empty user cache."""
    pytest.importorskip("pyarrow")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for kind in ("losses", "meta"):
        shutil.copytree(SMOKE / kind / "lin-1", tmp_path / "s" / kind / "lin-1")
    return tmp_path / "s"


def _read_all(study) -> packed.Packed:
    p = packed.read_packed(study, "lin-1", "kin-8nm", "dist")
    for key in p.losses:
        p.rows(key)
    return p


def test_a_file_that_passed_is_not_checked_again(study, monkeypatch):
    first = _read_all(study)
    assert first.content is not None and len(first.losses) == 16

    def recomputed(*args):
        raise AssertionError("checked again")

    monkeypatch.setattr(packed, "packed_rows_sha", recomputed)
    again = _read_all(study)
    assert again.content == first.content
    for key, rows in first.losses.items():
        assert all(np.array_equal(again.rows(key)[c], v, equal_nan=True) for c, v in rows.items())


def test_an_edited_value_is_checked_and_refused_though_the_file_passed_before(study):
    _read_all(study)
    lp = study / "losses" / "lin-1" / "kin-8nm-dist.parquet"
    df = read_losses(lp)
    df.loc[np.flatnonzero(df["instance"].to_numpy() == 3)[0], "S"] *= 100
    lp.write_bytes(_parquet(df, ("S",)))
    with pytest.raises(TamperedResults, match=r"kin-8nm/dist/std.64 #3: its loss rows do not"):
        _read_all(study)


def test_a_cache_that_cannot_be_written_costs_time_only(study, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert len(_read_all(study).losses) == 16
    assert len(_read_all(study).losses) == 16


def test_columns_are_converted_as_arrow_casts_them(tmp_path):
    """A losses file's columns are converted by numpy from arrow's buffers (pyarrow's own
    cast imports pyarrow.compute): to int64 and float64, a null loss as NaN, the task
    names as one dictionary over every row group, and a value its column cannot hold
    exactly (a case number 1.5) an error naming the file, as arrow's safe cast made it."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from delve_bench.errors import DelveError

    path = tmp_path / "kin-8nm-dist.parquet"
    names = ["kin-8nm/dist/std.64", "kin-8nm/dist/std.128", "kin-8nm/dist/std.64"]

    def write(task, case) -> None:
        instance = pa.array([0, 1, 1], pa.int16())
        S = pa.array([1.5, None, 2.0], pa.float32())
        table = pa.table({"task": task, "instance": instance, "case": case, "S": S})
        pq.write_table(table, path, row_group_size=1)  # a dictionary per row group

    write(pa.array(names), pa.array([3, 1, 2], pa.int32()))
    cols = packed._loss_columns(path)
    assert [cols.tasks[i] for i in cols.task] == names and len(cols.tasks) == 2
    assert cols.case.dtype == np.int64 and cols.case.tolist() == [3, 1, 2]
    assert cols.instance.tolist() == [0, 1, 1] and cols.kept == ("S",)
    S = cols.losses["S"]
    assert S.dtype == np.float64 and S[[0, 2]].tolist() == [1.5, 2.0] and np.isnan(S[1])
    assert np.isnan(cols.losses["A"]).all() and np.isnan(cols.losses["L"]).all()
    write(pa.array(names), pa.array([3.0, 1.5, 2.0]))
    with pytest.raises(DelveError) as e:
        packed._loss_columns(path)
    assert str(e.value) == (
        f"{path}: not a readable Parquet file (double value 1.5 does not convert exactly "
        "to int64); restore it from git"
    )
    write(pa.array([1, 2, 3]), pa.array([3, 1, 2], pa.int32()))  # names that are not text
    with pytest.raises(DelveError, match="a task name does not end in std.N"):
        packed._loss_columns(path)


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_the_pair_keys_group_rows_as_the_pairs_do(n):
    """read_packed groups a file's rows by one number per (task, instance) pair: the same
    groups, in the same order, as the pairs themselves; pairs too wide for a number are
    grouped as pairs."""
    rng = np.random.default_rng(n)
    task, instance = rng.integers(0, 7, n), rng.integers(-3, 40, n)
    pairs = np.stack([task, instance], axis=1)
    _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
    keys = packed._pair_keys(task, instance)
    assert keys.ndim == (1 if n else 2)
    _, k_first, k_inverse = np.unique(
        keys, axis=0 if keys.ndim == 2 else None, return_index=True, return_inverse=True
    )
    assert np.array_equal(first, k_first) and np.array_equal(inverse.ravel(), k_inverse.ravel())
    wide = packed._pair_keys(np.array([0, 5]), np.array([-(2**62), 2**62]))
    assert wide.tolist() == [[0, -(2**62)], [5, 2**62]]
