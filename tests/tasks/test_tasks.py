"""Prototasks, tasks and instances: the thesis layouts, invariants, committed index files,
and task-name resolution."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.errors import DelveError
from delve_bench.tasks import prototask_spec, resolve_tasks, task_layout
from delve_bench.tasks.instances import generate, make_order, read_order


def test_kin_layout_matches_the_thesis(ws):
    proto = prototask_spec(ws, "kin-8nm", "dist")
    for n, (k, j) in {
        64: (8, 512),
        128: (8, 512),
        256: (8, 512),
        512: (8, 512),
        1024: (4, 1024),
    }.items():
        lay = task_layout(ws, proto, n)
        assert lay.design == "hierarchical"
        assert len(lay.instances) == k and all(len(i.test) == j for i in lay.instances)
        assert all(len(i.train) == n for i in lay.instances)


def test_boston_is_a_two_way_design_with_one_common_test_set(ws):
    proto = prototask_spec(ws, "boston", "price")
    for n, k in {32: 8, 64: 4, 128: 2}.items():
        lay = task_layout(ws, proto, n)
        assert lay.design == "2-way" and len(lay.instances) == k
        assert all(np.array_equal(i.test, lay.instances[0].test) for i in lay.instances)
        assert len(lay.instances[0].test) == 250
        trains = np.concatenate([i.train for i in lay.instances])
        assert (
            len(np.unique(trains)) == 256 and not np.intersect1d(trains, lay.instances[0].test).size
        )


def test_bank_layout(ws):
    lay = task_layout(ws, prototask_spec(ws, "bank-8fm", "rej"), 1024)
    assert len(lay.instances) == 4 and len(lay.instances[0].test) == 1024


def test_instances_are_disjoint_and_nested_across_sizes(ws):
    proto = prototask_spec(ws, "pumadyn-8nm", "accel")
    small, big = task_layout(ws, proto, 64), task_layout(ws, proto, 256)
    tests = np.concatenate([i.test for i in small.instances])
    trains = np.concatenate([i.train for i in small.instances])
    assert len(np.unique(tests)) == len(tests) == 4096
    assert len(np.unique(trains)) == len(trains) and not np.intersect1d(trains, tests).size
    for i in small.instances:  # instance i of size n lies inside instance floor(i n / m) of size m
        assert set(i.train) <= set(big.instances[i.index * 64 // 256].train)


def test_committed_random_order_is_reproduced_byte_for_byte(ws):
    for ds, pt in (
        ("kin-8nm", "dist"),
        ("boston", "price"),
        ("hwang-g1", "noisy"),
        ("abalone", "age"),
    ):
        proto = prototask_spec(ws, ds, pt)
        assert np.array_equal(read_order(proto), make_order(ws, proto))
        generate(ws, proto, check_only=True)  # index files equal what Random-order implies


def test_committed_index_files_are_zero_based_case_numbers(ws):
    proto = prototask_spec(ws, "kin-8nm", "dist")
    lay = task_layout(ws, proto, 64)
    d = proto.dir / "std.64"
    assert sorted(p.name for p in d.iterdir()) == sorted(
        [f"train.{i}" for i in range(8)] + [f"test.{i}" for i in range(8)]
    )
    assert np.array_equal(np.loadtxt(d / "train.3", dtype=int), lay.instances[3].train)
    assert np.loadtxt(d / "test.0", dtype=int).min() >= 0


def test_tampered_random_order_is_detected(tmp_path, ws):
    import shutil

    from delve_bench.workspace import Workspace

    src = prototask_spec(ws, "boston", "price")
    (tmp_path / "tasks" / "boston").mkdir(parents=True)
    shutil.copy(src.path, tmp_path / "tasks" / "boston" / "price.yaml")
    shutil.copytree(src.dir, tmp_path / "tasks" / "boston" / "price")
    order = tmp_path / "tasks" / "boston" / "price" / "Random-order"
    lines = order.read_text().splitlines()
    lines[0], lines[1] = lines[1], lines[0]
    order.write_text("\n".join(lines) + "\n")
    w = Workspace(tmp_path)
    with pytest.raises(DelveError, match="differs from the order made from seed"):
        generate(w, prototask_spec(w, "boston", "price"))


def test_task_names_resolve_with_shorthands_and_globs(ws):
    assert [r.full_name for r in resolve_tasks(ws, ["kin-8nm/std.256"])] == ["kin-8nm/dist/std.256"]
    assert len(resolve_tasks(ws, ["kin-8nm"])) == 5
    assert len(resolve_tasks(ws, ["boston/price"])) == 3
    assert {r.dataset for r in resolve_tasks(ws, ["kin-8*/std.64"])} == {
        "kin-8fh",
        "kin-8fm",
        "kin-8nh",
        "kin-8nm",
    }


@pytest.mark.parametrize(
    "name,needle",
    [
        ("kin-8nm/std.77", "no task std.77"),
        ("nosuchdata/std.64", "unknown dataset"),
        ("kin-8mn/std.64", "did you mean kin-8nm"),
        ("hwang-g1/std.64", "several prototasks"),
        ("boston/prize/std.32", "did you mean price"),
    ],
)
def test_bad_task_names_give_one_line_errors(ws, name, needle):
    with pytest.raises(DelveError, match=needle) as e:
        resolve_tasks(ws, [name])
    assert "\n" not in str(e.value)


def test_a_task_with_no_instances_is_a_clear_error(tmp_path):
    from delve_bench.workspace import Workspace

    (tmp_path / "tasks" / "boston").mkdir(parents=True)
    (tmp_path / "tasks" / "boston" / "big.yaml").write_text(
        "inputs: 1-13\ntargets: [14]\norder: retain\ntest-set-size: 250\ntraining-set-sizes: [32, 300]\n"
        "maximum-number-of-instances: 8\ntest-set-selection: common\n"
    )
    w = Workspace(tmp_path)
    with pytest.raises(DelveError, match="std.300 has no instances"):
        task_layout(w, prototask_spec(w, "boston", "big"), 300)
    assert len(task_layout(w, prototask_spec(w, "boston", "big"), 32).instances) == 8
