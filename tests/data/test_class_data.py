"""The two-class benchmark data: shipped, verified, and encoded with class codes."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.data import dataset_spec, load_dataset
from delve_bench.data.encoding import fit_coding
from delve_bench.data.load import find_file
from delve_bench.workspace import builtin_root

SETS = {  # cases, inputs, cases of class +1 (the data files' own counts)
    "ripley": (1250, 2, 625),
    "banana": (5300, 2, 2376),
    "breast_cancer": (277, 9, 81),
    "german": (1000, 20, 300),
    "titanic": (2201, 3, 711),
    "waveform": (5000, 21, 1647),
    "thyroid": (215, 5, 65),
    "heart": (270, 13, 120),
    "flare_solar": (1066, 9, 589),
}


@pytest.mark.parametrize("name", sorted(SETS))
def test_shipped_data_loads_and_verifies(ws, name, monkeypatch):
    monkeypatch.setenv("DELVE_DATA_PATH", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(ws.root / "no-cache"))
    spec = dataset_spec(ws, name)
    assert find_file(spec).parent == builtin_root() / "data"  # no network, no DELVE_DATA_PATH
    ds = load_dataset(ws, name)
    cases, m, pos = SETS[name]
    assert ds.values.shape == (cases, m + 1)
    target = spec.attributes[-1]
    assert (target.kind, target.values) == ("binary", ("-1", "1"))
    assert int(np.sum(ds.values[:, -1] == 1)) == pos  # code 1 is the label 1


def test_categorical_target_coding(ws):
    ds = load_dataset(ws, "ripley")
    spec = ds.spec
    x, y = ds.values[:250, :2], ds.values[:250, 2]
    c = fit_coding(x, y, spec.attributes[:2], spec.attributes[2])
    assert c.categorical and c.classes == ("-1", "1")
    assert c.class_counts.tolist() == [125, 125]
    t = c.target(ds.values[250:260, 2])
    assert t.dtype.kind == "i" and set(t.tolist()) <= {0, 1}
    # inputs are still nm-abs encoded from the training set
    assert np.median(c.inputs(x), axis=0) == pytest.approx([0, 0], abs=1e-12)
