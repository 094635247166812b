"""The user cache's entries (delve_bench.usercache, which the parsed data, the simulated
powers and the checked marks share): a payload is read back as written; every input, the
code and the libraries are part of the name; a damaged, cut or renamed file, or one an
earlier version laid out otherwise, reads as missing; a cache that cannot be written
costs time only."""

from __future__ import annotations

import hashlib

import pytest

from delve_bench import usercache
from delve_bench.usercache import Shelf

SHELF = Shelf("test", ("usercache.py",), ("numpy",))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "delve-bench" / "test"


def test_a_payload_is_read_back_as_written(folder):
    name = SHELF.name("a", "b")
    assert SHELF.read(name) is None
    SHELF.write(name, b"payload\0\n")
    assert SHELF.read(name) == b"payload\0\n"
    assert [p.name for p in folder.iterdir()] == [name]  # no temporary file left
    SHELF.write(name, b"")
    assert SHELF.read(name) == b""  # an empty payload is not a missing one


def test_every_input_and_the_code_are_part_of_the_name():
    names = {
        SHELF.name("a", "b"),
        SHELF.name("ab"),
        SHELF.name("a", "bc"),
        SHELF.name("ab", "c"),
        Shelf("test", ("usercache.py",), ()).name("a", "b"),
        Shelf("test", ("workspace.py",), ("numpy",)).name("a", "b"),
        Shelf("test").name("a", "b"),
    }
    assert len(names) == 7
    assert SHELF.name("a", "b") == Shelf("other", ("usercache.py",), ("numpy",)).name("a", "b")


def test_a_damaged_renamed_or_old_file_reads_as_missing(folder):
    name, other = SHELF.name("x"), SHELF.name("y")
    SHELF.write(name, b"0123456789")
    good = SHELF.path(name).read_bytes()
    for damaged in (good[:-1] + b"8", good[:-1], b"x" + good, good[:31], b""):
        SHELF.path(name).write_bytes(damaged)
        assert SHELF.read(name) is None, damaged
    # an intact file under another name is not that name's
    SHELF.path(other).write_bytes(good)
    assert SHELF.read(other) is None
    # the layouts before this module: a hex digest and a newline, or an empty mark
    SHELF.path(name).write_bytes(hashlib.sha256(b"{}").hexdigest().encode() + b"\n{}")
    assert SHELF.read(name) is None
    SHELF.path(name).write_bytes(b"")
    assert SHELF.read(name) is None


def test_a_cache_that_cannot_be_written_costs_time_only(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    SHELF.write(SHELF.name("x"), b"payload")  # no error
    assert SHELF.read(SHELF.name("x")) is None


def test_the_code_digest_reads_each_source(monkeypatch):
    usercache.code_digest.cache_clear()
    with pytest.raises(OSError):
        usercache.code_digest(("no-such-module.py",), ())
    assert usercache.code_digest(("usercache.py",), ()) != usercache.code_digest((), ())
