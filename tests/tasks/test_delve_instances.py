"""The regression prototasks against DELVE's own Prototask.spec, and DELVE's instances.

The table below holds the facts of DELVE's ``Prototask.spec`` files (DELVE 1.1, from its
distributed archives) for every regression prototask the package ships, in the numbering of
the shipped data file. comp-activ and census-house ship DELVE's ``Prototask.data`` (the
prototask's columns only, already in DELVE's random order), so their inputs are renumbered
1..k and their order is the file's; the DELVE numbering is in the comment.
"""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.data import dataset_spec
from delve_bench.tasks.instances import generate, task_layout
from delve_bench.tasks.spec import prototask_names, prototask_spec
from delve_bench.workspace import WorkspaceDirs

H, C = "hierarchical", "common"
S5 = (64, 128, 256, 512, 1024)

#: dataset/prototask -> (inputs, target, test-set size, training-set sizes, selection)
#: (1-based columns of the shipped file; every one has Maximum-Number-Of-Instances 8)
DELVE = {
    **{
        f"{fam}-{d}{v}/{proto}": (tuple(range(1, d + 1)), d + 1, 4096, S5, H)
        for fam, proto in (("kin", "dist"), ("pumadyn", "accel"), ("bank", "rej"))
        for d in (8, 32)
        for v in ("fh", "fm", "nh", "nm")
    },
    "abalone/rings": (tuple(range(1, 9)), 9, 2129, (64, 128, 256, 512), C),
    "boston/price": (tuple(range(1, 14)), 14, 250, (32, 64, 128), C),
    # DELVE: inputs 2-20 22 23, target 24 of comp-activ's Dataset.data
    "comp-activ-cpu/cpu": (tuple(range(1, 22)), 22, 4096, S5, H),
    # DELVE: inputs 2-10 20 22 23, target 24
    "comp-activ-cpuSmall/cpuSmall": (tuple(range(1, 13)), 13, 4096, S5, H),
    # DELVE: census-house attributes (e.g. 8L: 5 15 20 36 45 68 96 138), target 112
    **{
        f"house-price-{v}/price": (tuple(range(1, k + 1)), k + 1, 14592, (*S5, 2048), H)
        for v, k in (("8L", 8), ("8H", 8), ("16L", 16), ("16H", 16))
    },
}
#: Order: Random-order in DELVE, with DELVE's Random-order file shipped (sha256 pinned)
RANDOM_ORDER = {"boston/price"}


def _regression_prototasks(ws: WorkspaceDirs) -> set[str]:
    from delve_bench.data.spec import dataset_names

    out = set()
    for ds in dataset_names(ws):
        spec = dataset_spec(ws, ds)
        if spec.generated:
            continue
        for name in prototask_names(ws, ds):
            if not prototask_spec(ws, ds, name).categorical:
                out.add(f"{ds}/{name}")
    return out


def test_every_shipped_regression_prototask_is_delves(ws):
    assert _regression_prototasks(ws) == set(DELVE)


@pytest.mark.parametrize("name", sorted(DELVE))
def test_prototask_matches_delve_spec(ws, name):
    ds, proto_name = name.split("/")
    p = prototask_spec(ws, ds, proto_name)
    inputs, target, T, sizes, sel = DELVE[name]
    assert tuple(c + 1 for c in p.inputs) == inputs
    assert tuple(c + 1 for c in p.targets) == (target,)
    assert p.cases == "all"
    assert p.test_set_size == T
    assert p.training_set_sizes == sizes
    assert p.test_set_selection == sel
    assert p.max_instances == 8
    assert p.delve_instances and p.instance_origin == "DELVE's own"
    assert p.order == ("Random-order" if name in RANDOM_ORDER else "retain")
    assert p.seed is None


@pytest.mark.parametrize("name", sorted(DELVE))
def test_index_files_are_delves_layout(ws, name):
    """The committed index files are DELVE's splitPrototask layout: the test pool is the
    first T cases of the order, training set i the i-th block after it, hierarchical test
    set i the i-th of K equal consecutive parts of the pool."""
    ds, proto_name = name.split("/")
    p = prototask_spec(ws, ds, proto_name)
    generate(ws, p, check_only=True)  # Random-order (sha256) and every index file as derived
    n = dataset_spec(ws, ds).cases
    if name in RANDOM_ORDER:
        order = np.loadtxt(p.dir / "Random-order", dtype=np.int64) - 1
    else:
        order = np.arange(n)
    T = p.test_set_size
    for size in p.training_set_sizes:
        lay = task_layout(ws, p, size)
        K = min((n - T) // size, 8)
        assert len(lay.instances) == K
        for i, inst in enumerate(lay.instances):
            np.testing.assert_array_equal(inst.train, order[T + i * size : T + (i + 1) * size])
            if p.test_set_selection == H:
                m = T // K
                np.testing.assert_array_equal(inst.test, order[i * m : (i + 1) * m])
            else:
                np.testing.assert_array_equal(inst.test, order[:T])


def test_delve_layout_examples_on_real_data(ws):
    """Two layouts spelled out (0-based case numbers of the data file)."""
    kin = task_layout(ws, prototask_spec(ws, "kin-8nm", "dist"), 64).instances[0]
    np.testing.assert_array_equal(kin.train, np.arange(4096, 4160))
    np.testing.assert_array_equal(kin.test, np.arange(0, 512))
    boston = task_layout(ws, prototask_spec(ws, "boston", "price"), 32).instances[0]
    order = (prototask_spec(ws, "boston", "price").dir / "Random-order").read_text().split()
    # DELVE's Random-order positions 251-282 (1-based), i.e. its case numbers there, minus 1
    np.testing.assert_array_equal(boston.train, np.array(order[250:282], dtype=np.int64) - 1)
    assert boston.train[0] == 89  # DELVE's Random-order line 251 is case 90
    assert len(boston.test) == 250 and boston.test[0] == 491  # line 1 is case 492


def test_pumadyn_32nm_is_delves_file(ws):
    """The shipped pumadyn-32nm is DELVE's pumadyn-32nm Dataset.data (the file shipped
    before 2026-11 under the name pumadyn-32nh); pumadyn-32nh is DELVE's own, another file."""
    nm, nh = dataset_spec(ws, "pumadyn-32nm"), dataset_spec(ws, "pumadyn-32nh")
    assert nm.sha256 == "34072eabc8c8ec240982a5c185c98f4115e954595cbbd83a11396df7420cfc0a"
    assert nh.sha256 == "1bd1c7a28307e3c45e35645f6bfd2ee3ff8bcc34e7e15a63302768cb545ff9e2"


def _broken(ws, name: str, change) -> str:
    """check_invariants' error for ``name``'s std.64 after ``change`` edits its list of
    [train, test] pairs (copies), or "" if the layout passes."""
    import dataclasses

    from delve_bench.errors import DelveError
    from delve_bench.tasks.instances import check_invariants

    lay = task_layout(ws, prototask_spec(ws, *name.split("/")), 64)
    sets = [[i.train.copy(), i.test.copy()] for i in lay.instances]
    change(sets)
    inst = tuple(
        dataclasses.replace(i, train=tr, test=te)
        for i, (tr, te) in zip(lay.instances, sets, strict=True)
    )
    try:
        check_invariants(dataclasses.replace(lay, instances=inst))
    except DelveError as e:
        return str(e)
    return ""


def _put(sets, k: int, part: int, case) -> None:
    """Make ``case`` the last case of instance ``k``'s training (0) or test (1) set."""
    sets[k][part][-1] = case


@pytest.mark.parametrize(
    "name, change, error",
    [
        ("kin-8nm/dist", lambda s: None, ""),
        ("boston/price", lambda s: None, ""),
        ("kin-8nm/dist", lambda s: _put(s, 0, 0, s[0][0][0]), "instance 0 repeats a case"),
        ("kin-8nm/dist", lambda s: _put(s, 3, 1, s[3][1][0]), "instance 3 repeats a case"),
        ("kin-8nm/dist", lambda s: _put(s, 2, 0, s[2][1][5]), "instance 2 has a test case among"),
        ("kin-8nm/dist", lambda s: _put(s, 1, 0, s[0][0][0]), "training sets are not disjoint"),
        ("kin-8nm/dist", lambda s: _put(s, 1, 1, s[0][1][0]), "test sets overlap"),
        ("kin-8nm/dist", lambda s: _put(s, 1, 0, s[0][1][0]), "a test case is also a training"),
        ("boston/price", lambda s: _put(s, 1, 1, s[0][0][0]), "needs one common test set"),
    ],
)
def test_a_broken_layout_is_one_error_naming_what_is_wrong(ws, name, change, error):
    """Each invariant of a layout broken once is refused with its own message; the real
    layouts of both designs pass."""
    got = _broken(ws, name, change)
    assert (got == "") == (error == "") and error in got, got
