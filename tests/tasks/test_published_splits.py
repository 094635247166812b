"""Published realisations (resampled, fixed) and the DELVE-style classification prototasks."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pytest

from delve_bench.errors import DelveError
from delve_bench.tasks import prototask_spec, task_layout
from delve_bench.tasks.instances import generate, read_splits
from delve_bench.workspace import WorkspaceDirs

IDA = {  # Hong, Chen et al. (2014) Table 1: inputs, training and test cases
    "banana": (2, 400, 4900),
    "breast_cancer": (9, 200, 77),
    "german": (20, 700, 300),
    "heart": (13, 170, 100),
    "titanic": (3, 150, 2051),
    "waveform": (21, 400, 4600),
}


@pytest.mark.parametrize("name", sorted(IDA))
def test_ida_realisations_are_the_instances_in_order(ws, name):
    m, n1, n2 = IDA[name]
    proto = prototask_spec(ws, name, "ida")
    assert proto.design == "resampled" and proto.categorical and proto.losses == ("Z", "Q", "L")
    assert len(proto.inputs) == m
    lay = task_layout(ws, proto, n1)
    assert len(lay.instances) == 10 and lay.test_size == n2
    real = read_splits(ws, proto)
    for k, inst in enumerate(lay.instances):
        assert inst.index == k
        assert np.array_equal(inst.train, real[k][0]) and np.array_equal(inst.test, real[k][1])
        assert len(inst.train) == n1 and len(inst.test) == n2
        assert not np.intersect1d(inst.train, inst.test).size
    # realisation 1 is the data file's first n1 rows, then its test rows (the file's order)
    assert np.array_equal(lay.instances[0].train, np.arange(n1))
    assert np.array_equal(lay.instances[0].test, np.arange(n1, n1 + n2))
    # overlapping training sets: why the design is resampled, not hierarchical
    assert np.intersect1d(lay.instances[0].train, lay.instances[1].train).size > 0


def test_ripley_is_one_fixed_split(ws):
    lay = task_layout(ws, prototask_spec(ws, "ripley", "orig"), 250)
    assert lay.design == "fixed" and len(lay.instances) == 1
    assert np.array_equal(lay.instances[0].train, np.arange(250))
    assert np.array_equal(lay.instances[0].test, np.arange(250, 1250))


@pytest.mark.parametrize(
    "name, design, sizes",
    [
        ("banana", "hierarchical", {100: 8, 200: 8, 400: 8}),
        ("waveform", "hierarchical", {100: 8, 200: 8, 400: 8}),
        ("titanic", "hierarchical", {50: 8, 150: 8}),
        ("german", "hierarchical", {50: 8, 100: 6}),
        ("flare_solar", "hierarchical", {50: 8, 100: 6}),
        ("thyroid", "2-way", {35: 4, 70: 2}),
        ("heart", "2-way", {20: 8, 40: 4, 80: 2}),
        ("breast_cancer", "2-way", {20: 8, 40: 4, 80: 2}),
    ],
)
def test_delve_style_class_prototasks(ws, name, design, sizes):
    proto = prototask_spec(ws, name, "class")
    assert proto.design == design and proto.categorical
    for n, k in sizes.items():
        lay = task_layout(ws, proto, n)  # checks disjoint training sets and test sets
        assert len(lay.instances) == k
    generate(ws, proto, check_only=True)  # committed Random-order and index files reproduce


def test_committed_index_files_of_published_splits(ws):
    proto = prototask_spec(ws, "titanic", "ida")
    generate(ws, proto, check_only=True)
    lay = task_layout(ws, proto, 150)
    text = (proto.dir / "std.150" / "test.3").read_text()
    assert text == "".join(f"{c}\n" for c in lay.instances[3].test.tolist())


def _copy_prototask(tmp_path, name="heart"):
    from delve_bench.workspace import builtin_root

    root = builtin_root()
    for sub in ("datasets", "tasks", "data"):
        (tmp_path / sub).mkdir(exist_ok=True)
    shutil.copy(root / "datasets" / f"{name}.yaml", tmp_path / "datasets")
    shutil.copy(root / "tasks" / name / "ida.yaml", tmp_path / "tasks" / "ida.yaml")
    (tmp_path / "tasks" / name).mkdir()
    shutil.move(tmp_path / "tasks" / "ida.yaml", tmp_path / "tasks" / name / "ida.yaml")
    return WorkspaceDirs(tmp_path)


def test_tampered_splits_file_is_detected(tmp_path, monkeypatch):
    from delve_bench.workspace import builtin_root

    ws = _copy_prototask(tmp_path)
    text = gzip.decompress((builtin_root() / "data" / "heart.splits.gz").read_bytes())
    (tmp_path / "data" / "heart.splits.gz").write_bytes(
        gzip.compress(text.replace(b" 5 ", b" 6 ", 1))
    )
    monkeypatch.setenv("DELVE_DATA_PATH", str(tmp_path / "data"))
    read_splits.cache_clear()
    with pytest.raises(DelveError, match="checksum mismatch"):
        task_layout(ws, prototask_spec(ws, "heart", "ida"), 170)
    read_splits.cache_clear()


def test_malformed_splits_line_names_the_line(tmp_path, monkeypatch):
    ws = _copy_prototask(tmp_path)
    y = tmp_path / "tasks" / "heart" / "ida.yaml"
    y.write_text("\n".join(line for line in y.read_text().splitlines() if "sha256" not in line))
    (tmp_path / "data" / "heart.splits").write_text("train: 0 1 | test: 2 3\ntrain 0 1 2\n")
    monkeypatch.setenv("DELVE_DATA_PATH", str(tmp_path / "data"))
    read_splits.cache_clear()
    with pytest.raises(DelveError, match=r"heart.splits, line 2: malformed"):
        task_layout(ws, prototask_spec(ws, "heart", "ida"), 170)
    read_splits.cache_clear()
