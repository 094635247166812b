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
    # seeded orders (DELVE's own prototasks: tests/tasks/test_delve_instances.py)
    for ds, pt in (("hwang-g1", "noisy"), ("hwang-g5", "clean")):
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

    from delve_bench.workspace import WorkspaceDirs

    for ds, pt, message in (
        ("hwang-g1", "noisy", "differs from the order made from seed"),
        ("boston", "price", "is not DELVE's Random-order"),  # pinned by its sha256
    ):
        src = prototask_spec(ws, ds, pt)
        (tmp_path / "tasks" / ds).mkdir(parents=True)
        shutil.copy(src.path, tmp_path / "tasks" / ds / f"{pt}.yaml")
        shutil.copytree(src.dir, tmp_path / "tasks" / ds / pt)
        order = tmp_path / "tasks" / ds / pt / "Random-order"
        lines = order.read_text().splitlines()
        lines[0], lines[1] = lines[1], lines[0]
        order.write_text("\n".join(lines) + "\n")
        w = WorkspaceDirs(tmp_path)
        for check_only in (True, False):
            with pytest.raises(DelveError, match=message):
                generate(w, prototask_spec(w, ds, pt), check_only=check_only)


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
    from delve_bench.workspace import WorkspaceDirs

    (tmp_path / "tasks" / "boston").mkdir(parents=True)
    (tmp_path / "tasks" / "boston" / "big.yaml").write_text(
        "inputs: 1-13\ntargets: [14]\norder: retain\ntest-set-size: 250\ntraining-set-sizes: [32, 300]\n"
        "maximum-number-of-instances: 8\ntest-set-selection: common\n"
    )
    w = WorkspaceDirs(tmp_path)
    with pytest.raises(DelveError, match="std.300 has no instances"):
        task_layout(w, prototask_spec(w, "boston", "big"), 300)
    with pytest.raises(DelveError, match=r"std.32/train.0 is missing; run `delve gen boston/big`"):
        task_layout(w, prototask_spec(w, "boston", "big"), 32)
    generate(w, prototask_spec(w, "boston", "big"))
    assert len(task_layout(w, prototask_spec(w, "boston", "big"), 32).instances) == 8


# -- the committed index files are the contract ------------------------------------------


def _copy_prototask(tmp_path, ws, dataset, prototask):
    import shutil

    from delve_bench.workspace import WorkspaceDirs

    src = prototask_spec(ws, dataset, prototask)
    (tmp_path / "tasks" / dataset).mkdir(parents=True)
    shutil.copy(src.path, tmp_path / "tasks" / dataset / f"{prototask}.yaml")
    shutil.copytree(src.dir, tmp_path / "tasks" / dataset / prototask)
    w = WorkspaceDirs(tmp_path)
    return w, prototask_spec(w, dataset, prototask)


def _lines(p):
    return p.read_text().split()


def _write(p, lines):
    p.write_text("".join(f"{v}\n" for v in lines))


def _first(name, value):
    return lambda d: _write(d / name, [value(d)] + _lines(d / name)[1:])


@pytest.mark.parametrize(
    "edit,needle",
    [
        (_first("train.0", lambda d: _lines(d / "test.0")[0]), "test.0: case .* also in train.0"),
        (_first("train.1", lambda d: _lines(d / "train.0")[0]), "train.1: case .* also in train.0"),
        (_first("test.3", lambda d: "8192"), r"test.3, line 1: case 8192 is out of range 0..8191"),
        (_first("train.2", lambda d: _lines(d / "train.2")[1]), "train.2: case .* listed 2 times"),
        (lambda d: _write(d / "train.4", _lines(d / "train.4")[:-1]), "train.4: 63 cases, but"),
        (lambda d: (d / "test.7").unlink(), r"test.7 is missing; run `delve gen kin-8nm/dist`"),
        (lambda d: (d / "train.5").write_text("12\nabc\n"), r"train.5, line 2: 'abc' is not a"),
        (_first("train.6", lambda d: "-3"), r"train.6, line 1: '-3' is not a case number"),
        (_first("test.6", lambda d: "9" * 20), r"test.6, line 1: case 9{20} is out of range"),
        (lambda d: _write(d / "test.1", _lines(d / "test.0")), "test.1: case .* also in test.0"),
    ],
)
def test_a_tampered_index_file_is_one_error_naming_it(tmp_path, ws, edit, needle):
    w, proto = _copy_prototask(tmp_path, ws, "kin-8nm", "dist")
    task_layout(w, proto, 64)  # intact
    edit(proto.dir / "std.64")
    with pytest.raises(DelveError, match=needle) as e:
        task_layout(w, proto, 64)
    assert "\n" not in str(e.value)


def test_a_two_way_task_needs_one_common_test_set(tmp_path, ws):
    w, proto = _copy_prototask(tmp_path, ws, "boston", "price")
    d = proto.dir / "std.32"
    t = _lines(d / "test.2")
    _write(d / "test.2", t[1:] + t[:1])
    with pytest.raises(DelveError, match="test.2 differs from test.0: the 2-way design"):
        task_layout(w, proto, 32)


def test_runs_use_the_index_files_not_random_order(tmp_path, ws):
    """Swapping a training and a test case consistently in the index files changes the
    instance a run sees; Random-order no longer matters to a run."""
    from delve_bench.run import load_instance

    w, proto = _copy_prototask(tmp_path, ws, "kin-8nm", "dist")
    d = proto.dir / "std.64"
    tr, te = _lines(d / "train.0"), _lines(d / "test.0")
    tr[0], te[0] = te[0], tr[0]
    _write(d / "train.0", tr)
    _write(d / "test.0", te)
    e = load_instance(w, "kin-8nm/dist/std.64", 0)
    assert e.instance.train[0] == int(tr[0]) and e.instance.test[0] == int(te[0])
    with pytest.raises(DelveError, match="differs from Random-order"):
        generate(w, proto, check_only=True)


def _without_pinned_order(spec: str) -> str:
    """A prototask spec turned into one with a hand-made Random-order: no seed, nothing
    pinned (boston's spec pins DELVE's own order)."""
    drop = ("seed:", "random-order-sha256:", "instances:")
    return "\n".join(li for li in spec.splitlines() if not li.startswith(drop)) + "\n"


def test_a_hand_made_random_order_without_seed_runs_but_cannot_be_regenerated(tmp_path, ws):
    w, proto = _copy_prototask(tmp_path, ws, "boston", "price")
    y = proto.path.read_text()
    proto.path.write_text(_without_pinned_order(y))
    order = proto.dir / "Random-order"
    lines = order.read_text().split()
    lines[0], lines[-1] = lines[-1], lines[0]  # the user's own permutation
    order.write_text("\n".join(lines) + "\n")
    p = prototask_spec(w, "boston", "price")
    assert p.seed is None
    with pytest.raises(DelveError, match="differs from Random-order"):
        generate(w, p, check_only=True)  # the committed index files no longer follow it
    done = generate(w, p)
    assert "cannot be regenerated" in done.note and done.written
    assert "cannot be regenerated" in generate(w, p, check_only=True).note
    assert task_layout(w, p, 32).instances[0].test[0] == int(lines[0]) - 1
    order.unlink()
    with pytest.raises(DelveError, match="has no seed"):
        generate(w, p)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "Random-order: empty; it must list the case numbers 1..N"),
        ("\n \n", "Random-order: empty"),
        ("1\n2\n3.5\n", "Random-order, line 3: '3.5' is not a case number"),
        ("1\n-2\n", "Random-order, line 2: '-2' is not a case number"),
        ("1\n\n2\n", "Random-order, line 2: '' is not a case number"),
        ("1 2\n", "Random-order, line 1: '1 2' is not a case number"),
        ("1\n2\n3\n", "not a permutation of 1..506; a hand-made order (no seed) must list"),
    ],
)
def test_a_broken_hand_made_random_order_is_one_line_not_an_empty_task_list(
    tmp_path, ws, text, message
):
    """`delve gen` and `--check` on a seedless prototask whose Random-order is empty or not
    numbers: one error naming the file (and line), no numpy warning, never "ok ()"."""
    import warnings

    w, proto = _copy_prototask(tmp_path, ws, "boston", "price")
    y = proto.path.read_text()
    proto.path.write_text(_without_pinned_order(y))
    (proto.dir / "Random-order").write_text(text)
    p = prototask_spec(w, "boston", "price")
    for check_only in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(DelveError) as e:
                generate(w, p, check_only=check_only)
        assert message in str(e.value) and "\n" not in str(e.value)
