"""Property-based tests: random and mutated bytes fed to every loader and parser of user
files never let a traceback escape. Each either succeeds or raises a DelveError (which the
command line prints as one line with exit code 2)."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from delve_bench.data import load as load_mod
from delve_bench.data.load import decompress, load_dataset
from delve_bench.data.spec import _parse as parse_dataset
from delve_bench.errors import DelveError
from delve_bench.methods.registry import _parse_file as parse_method
from delve_bench.run.store import instance_state, read_instance
from delve_bench.specfile import read_yaml
from delve_bench.study.spec import load_study
from delve_bench.tasks import instances as instances_mod
from delve_bench.tasks.names import parse_instances
from delve_bench.tasks.spec import _parse_file as parse_prototask
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import WorkspaceDirs, builtin_root

#: examples per property: the profile tests/conftest.py loads (150, or 25 in the fast loop)
FUZZ = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
#: fragments that tend to break parsers: YAML syntax and tags, numbers at the edges
TOKENS = [
    b"\n",
    b" ",
    b"\t",
    b":",
    b"- ",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"'",
    b'"',
    b"#",
    b"&a",
    b"*a",
    b"!!python/object:os.system",
    b"!!binary",
    b"~",
    b"null",
    b"true",
    b"yes",
    b"0",
    b"-1",
    b"1e999",
    b".nan",
    b"nan",
    b"inf",
    b"?",
    b"abc",
    b"1-",
    b"-",
    b"99999999999999999999",
    b"2001-13-45",
    b"\x00",
    b"\xff\xfe",
    b"\\",
    b"@",
    b"0x1f",
    b"1.5",
    b"3-1",
    b"\r\n",
]


#: the strategies each edit draws from, made once: building them anew for every draw was about a
#: tenth of this module's time
EDITS = st.integers(1, 6)
EDIT_KINDS = st.sampled_from(["cut", "insert", "token", "byte", "dup"])
INSERTED = st.binary(max_size=12)
A_TOKEN = st.sampled_from(TOKENS)
A_BYTE = st.integers(0, 255)


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """``original`` after a few random edits: cut, duplicate, replace, insert bytes or tokens."""
    data = bytearray(original)
    for _ in range(draw(EDITS)):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 40)))
        what = draw(EDIT_KINDS)
        if what == "cut":
            del data[i:j]
        elif what == "insert":
            data[i:i] = draw(INSERTED)
        elif what == "token":
            data[i:j] = draw(A_TOKEN)
        elif what == "byte" and i < len(data):
            data[i] = draw(A_BYTE)
        else:
            data[i:i] = data[i:j]
    return bytes(data)


def hostile(original: bytes):
    """Random bytes, or (mostly) mutations of a valid file."""
    return st.one_of(st.binary(max_size=300), mutated(original), mutated(original))


def _never_a_traceback(fn, *args):
    try:
        return fn(*args)
    except DelveError:
        return None


@pytest.fixture(scope="module")
def ws():
    """A workspace with copies of real specs and task files (so they can be overwritten)."""
    root = Path(tempfile.mkdtemp(prefix="delve-fuzz-"))
    src = builtin_root()
    for rel in ("datasets/kin-8nm.yaml", "datasets/boston.yaml", "tasks/kin-8nm/dist.yaml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / rel, root / rel)
    shutil.copytree(src / "tasks/boston", root / "tasks/boston")
    (root / "methods").mkdir()
    yield WorkspaceDirs(root)
    shutil.rmtree(root)


def _specs():
    root = builtin_root()
    return {
        "dataset": (root / "datasets/abalone.yaml").read_bytes(),
        "generated": (root / "datasets/hwang-g1.yaml").read_bytes(),
        "prototask": (root / "tasks/kin-8nm/dist.yaml").read_bytes(),
        "method": (root / "methods/mlp-ese-1.yaml").read_bytes(),
        "budget": b"plugin: delve_bench.methods.lin:Lin1\nbudget: {cpu_per_case: 2, work: 3}\n",
    }


SPECS = _specs()


@FUZZ
@given(content=st.one_of(hostile(SPECS["dataset"]), hostile(SPECS["generated"])))
def test_dataset_specs(ws, content):
    path = ws.root / "datasets" / "kin-8nm.yaml"
    path.write_bytes(content)
    _never_a_traceback(parse_dataset, path)


@FUZZ
@given(content=hostile(SPECS["prototask"]))
def test_prototask_specs(ws, content):
    shutil.copy(builtin_root() / "datasets/kin-8nm.yaml", ws.root / "datasets/kin-8nm.yaml")
    path = ws.root / "tasks" / "kin-8nm" / "dist.yaml"
    path.write_bytes(content)
    _never_a_traceback(parse_prototask, ws, "kin-8nm", path)


@FUZZ
@given(content=st.one_of(hostile(SPECS["method"]), hostile(SPECS["budget"])))
def test_method_specs(ws, content):
    path = ws.root / "methods" / "mlp-ese-1.yaml"
    path.write_bytes(content)
    spec = _never_a_traceback(parse_method, path)
    if spec is not None:  # a parsed budget always gives a budget
        _never_a_traceback(spec.make_budget, 64, "cpu", 0.05)
        _never_a_traceback(spec.make_budget, 64, "work")


STUDY = b"""description: fuzz
defaults: {budget_mode: work, time_scale: 0.05}
methods:
  lin-1: {cpu_estimate: {64: 0.01}, skip_sizes: [1024]}
  mlp-mc-1: {budget_mode: cpu, time_scale: 0.005, snapshots: [0.0625, 0.25], hard_limit: 3600}
tasks: [kin-8nm, boston/price]
losses: {default: [S], boston/price: [S, A, L]}
displays: [diagrams, {scaling: [kin-8nm]}]
claims: [thesis]
"""


@FUZZ
@given(content=hostile(STUDY))
def test_study_files(ws, content):
    shutil.copy(builtin_root() / "tasks/kin-8nm/dist.yaml", ws.root / "tasks/kin-8nm/dist.yaml")
    (ws.root / "studies").mkdir(exist_ok=True)
    (ws.root / "studies" / "fuzz.yaml").write_bytes(content)
    _never_a_traceback(load_study, ws, "fuzz")


@FUZZ
@given(content=hostile(b"a: 1\nb: [1, 2]\nc: {d: e}\n"))
def test_yaml_reader(ws, content):
    path = ws.root / "any.yaml"
    path.write_bytes(content)
    raw = _never_a_traceback(read_yaml, path)
    assert raw is None or isinstance(raw, dict)


BOSTON = gzip.decompress((builtin_root() / "data/boston.data.gz").read_bytes())


@FUZZ
@given(content=st.one_of(hostile(BOSTON[:2000]), hostile(gzip.compress(BOSTON[:600]))))
def test_data_files(ws, content, monkeypatch, tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    (data / "boston.data").write_bytes(content)
    spec = ws.root / "datasets" / "boston.yaml"
    text = (builtin_root() / "datasets/boston.yaml").read_text()
    spec.write_text(text.replace("cases: 506", "cases: 13").replace("sha256: ", "sha256: null #"))
    monkeypatch.setenv("DELVE_DATA_PATH", str(data))
    monkeypatch.setattr(load_mod, "_LOADED", {})
    monkeypatch.setattr("delve_bench.data.spec._CACHE", {})
    ds = _never_a_traceback(load_dataset, ws, "boston")
    if ds is not None:
        assert ds.values.shape == (13, 14) and np.isfinite(ds.values).all()
    _never_a_traceback(decompress, content, "x")


ORDER = (builtin_root() / "tasks/boston/price/Random-order").read_bytes()


@FUZZ
@given(content=hostile(ORDER[:400]) | st.just(ORDER.replace(b"\n1\n", b"\n2\n", 1)))
def test_index_files(ws, content, monkeypatch):
    shutil.copy(builtin_root() / "datasets/boston.yaml", ws.root / "datasets/boston.yaml")
    monkeypatch.setattr("delve_bench.data.spec._CACHE", {})
    (ws.root / "tasks/boston/price/Random-order").write_bytes(content)
    instances_mod._ordered_cases.cache_clear()
    proto = prototask_spec(ws, "boston", "price")
    layout = _never_a_traceback(instances_mod.task_layout, ws, proto, 32)
    if layout is not None:  # whatever was accepted is a valid DELVE layout
        instances_mod.check_invariants(layout)
    (ws.root / "tasks/boston/price/Random-order").write_bytes(ORDER)
    instances_mod._ordered_cases.cache_clear()


SPLITS = gzip.decompress((builtin_root() / "data/ripley.splits.gz").read_bytes())


@FUZZ
@given(content=hostile(SPLITS[:1500]) | hostile(b"train: 0 1 2 | test: 3 4\n"))
def test_published_splits_files(ws, content, monkeypatch, tmp_path_factory):
    data = tmp_path_factory.mktemp("splits")
    (data / "ripley.splits").write_bytes(content)
    monkeypatch.setenv("DELVE_DATA_PATH", str(data))
    instances_mod.read_splits.cache_clear()
    proto = prototask_spec(WorkspaceDirs(builtin_root()), "ripley", "orig")
    proto = dataclasses.replace(proto, splits="ripley.splits", splits_sha256=None)
    got = _never_a_traceback(instances_mod.read_splits, ws, proto)
    if got is not None:
        assert all(tr.dtype == np.int64 and te.dtype == np.int64 for tr, te in got)
    instances_mod.read_splits.cache_clear()


META = json.dumps({"status": "ok", "losses_sha256": "0" * 64, "cpu_seconds": 1.5}).encode()
LOSSES = b"case,S,A,L\n3,0.5,0.7,1.2\n1,0.25,0.5,-0.4\n2,1e-3,0.03,0.9\n"


@FUZZ
@given(meta=hostile(META), losses=hostile(LOSSES), predictions=st.booleans())
def test_result_files(tmp_path_factory, meta, losses, predictions):
    d = tmp_path_factory.mktemp("result") / "0"
    d.mkdir()
    (d / "meta.json").write_bytes(meta)
    (d / "losses.csv").write_bytes(losses)
    if predictions:
        (d / "predictions.csv").write_bytes(b"case\n")
    assert instance_state(d) in ("ok", "failed", "corrupt", "missing")
    r = _never_a_traceback(read_instance, d, np.array([1, 2, 3]))
    if r is not None:
        assert sorted(r.losses) == ["A", "L", "S"]


@FUZZ
@given(text=st.one_of(st.text(max_size=20), st.text(alphabet="0123456789-, ", max_size=12)))
def test_instance_ranges(text):
    got = _never_a_traceback(parse_instances, text)
    assert got is None or all(isinstance(i, int) and i >= 0 for i in got)
