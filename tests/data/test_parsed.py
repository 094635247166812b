"""A data file's parsed values are remembered by its content: a later load of the same
content reads them back instead of parsing, to the same floats; another content or a
damaged entry is parsed afresh, and a cache that cannot be written costs time only."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
import yaml
from support import DATA

from delve_bench.data import dataset_spec, load_dataset, parsed
from delve_bench.data import load as load_mod
from delve_bench.errors import DelveError


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty user cache, and no dataset loaded in this process yet."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(load_mod, "_LOADED", {})
    return tmp_path / "cache" / "delve-bench" / "parsed"


def _parses(monkeypatch) -> list[str]:
    """The data files parsed from now on (by name of the file)."""
    seen: list[str] = []
    real = load_mod.parse_cases

    def counting(text, spec, filename):
        seen.append(filename)
        return real(text, spec, filename)

    monkeypatch.setattr(load_mod, "parse_cases", counting)
    return seen


def _reload(ws, name):
    load_mod._LOADED.clear()  # as a new command would
    return load_dataset(ws, name)


def test_the_same_content_is_read_back_to_the_same_floats_without_parsing(ws, fresh, monkeypatch):
    seen = _parses(monkeypatch)
    first = load_dataset(ws, "kin-8nm")
    assert len(seen) == 1 and len(list(fresh.iterdir())) == 1
    again = _reload(ws, "kin-8nm")
    assert len(seen) == 1  # read back, not parsed
    assert again.values.shape == (8192, 9)
    assert again.values.tobytes() == first.values.tobytes()


def test_another_content_or_spec_is_another_entry(ws, fresh, monkeypatch, tmp_path):
    seen = _parses(monkeypatch)
    load_dataset(ws, "boston")
    # the same file read by a workspace spec that declares no checksum: another spec
    (ws.root / "datasets").mkdir()
    spec = yaml.safe_load(dataset_spec(ws, "boston").path.read_text())
    spec["sha256"] = None
    (ws.root / "datasets" / "boston.yaml").write_text(yaml.safe_dump(spec))
    own = _reload(ws, "boston")
    assert len(seen) == 2 and len(list(fresh.iterdir())) == 2
    # one value edited: another content, parsed afresh, and its own value read
    text = gzip.decompress((DATA / "boston.data.gz").read_bytes()).decode()
    assert text.count("24.00") >= 1
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "boston.data").write_text(text.replace("24.00", "24.01", 1))
    monkeypatch.setenv("DELVE_DATA_PATH", str(tmp_path / "data"))
    edited = _reload(ws, "boston")
    assert len(seen) == 3 and len(list(fresh.iterdir())) == 3
    changed = np.argwhere(edited.values != own.values)
    assert changed.tolist() == [[0, 13]] and edited.values[0, 13] == 24.01


def test_a_damaged_entry_is_parsed_afresh_and_written_again(ws, fresh, monkeypatch):
    seen = _parses(monkeypatch)
    first = load_dataset(ws, "boston")
    (entry,) = fresh.iterdir()
    good = entry.read_bytes()
    flipped = bytearray(good)
    flipped[-1] ^= 1  # one bit of the last value
    entry.write_bytes(bytes(flipped))
    assert _reload(ws, "boston").values.tobytes() == first.values.tobytes()
    assert len(seen) == 2 and entry.read_bytes() == good
    # an intact entry of another shape (as another spec's would be) is not used either
    name = entry.name
    parsed.remember(name, first.values[:10])
    assert parsed.recall(name, first.values.shape) is None
    assert _reload(ws, "boston").values.tobytes() == first.values.tobytes()
    assert len(seen) == 3


def test_a_cache_that_cannot_be_written_costs_time_only(ws, tmp_path, monkeypatch):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # the cache folder cannot be made under a file
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(load_mod, "_LOADED", {})
    seen = _parses(monkeypatch)
    first = load_dataset(ws, "boston")
    assert _reload(ws, "boston").values.tobytes() == first.values.tobytes()
    assert len(seen) == 2


def _decompressions(monkeypatch) -> list[str]:
    """The data files decompressed from now on (by where they are)."""
    seen: list[str] = []
    real = load_mod.decompress

    def counting(raw, where):
        if raw[:2] == b"\x1f\x8b":
            seen.append(where)
        return real(raw, where)

    monkeypatch.setattr(load_mod, "decompress", counting)
    return seen


def test_a_gzip_file_is_checked_by_its_remembered_digest_without_decompressing(
    ws, fresh, monkeypatch
):
    inflated = fresh.parent / "inflated"
    unzipped = _decompressions(monkeypatch)
    first = load_dataset(ws, "boston")
    assert first.source.endswith(".gz") and len(unzipped) == 1
    assert len(list(inflated.iterdir())) == 1
    again = _reload(ws, "boston")
    assert len(unzipped) == 1  # the digest and the values both remembered
    assert again.values.tobytes() == first.values.tobytes()
    # the values forgotten: the content is decompressed to parse, and checked again
    for entry in fresh.iterdir():
        entry.unlink()
    assert _reload(ws, "boston").values.tobytes() == first.values.tobytes()
    assert len(unzipped) == 2
    # a damaged digest entry is not used: the file is decompressed and checked
    (entry,) = inflated.iterdir()
    entry.write_bytes(entry.read_bytes()[:-1] + b"0")
    assert _reload(ws, "boston").values.tobytes() == first.values.tobytes()
    assert len(unzipped) == 3


def test_a_remembered_digest_still_fails_a_spec_of_another_sha256(ws, fresh, monkeypatch):
    load_dataset(ws, "boston")
    (ws.root / "datasets").mkdir()
    spec = yaml.safe_load(dataset_spec(ws, "boston").path.read_text())
    right, spec["sha256"] = spec["sha256"], "0" * 64
    (ws.root / "datasets" / "boston.yaml").write_text(yaml.safe_dump(spec))
    with pytest.raises(DelveError, match=f"expected sha256 {'0' * 64}, got {right}"):
        _reload(ws, "boston")
