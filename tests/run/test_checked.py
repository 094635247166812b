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
