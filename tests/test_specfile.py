"""Every field of every YAML spec is typed and checked: one error naming file and field."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.data import dataset_spec, load_dataset
from delve_bench.data import load as load_mod
from delve_bench.errors import DelveError
from delve_bench.methods.registry import checked_method, method_names, method_spec
from delve_bench.tasks.instances import task_layout
from delve_bench.tasks.spec import prototask_spec
from delve_bench.workspace import WorkspaceDirs

TINY = """name: tiny
cases: 40
file: tiny.data
attributes:
- {name: a, kind: real}
- {name: b, kind: integer}
- {name: c, kind: binary, values: ['no', 'yes']}
- {name: y, kind: real}
"""
PROTO = """inputs: 1-3
targets: [4]
test-set-size: 20
training-set-sizes: [5, 10]
maximum-number-of-instances: 2
test-set-selection: hierarchical
seed: 7
"""
METHOD = """name: mine-1
plugin: delve_bench.methods.lin:Lin1
params: {}
budget: {cpu_per_case: 1.0, work: 10}
description: ordinary least squares
"""


def _rows(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return [
        f"{rng.normal():.6g} {rng.integers(0, 9)} {'yes' if rng.random() < 0.5 else 'no'} "
        f"{rng.normal():.6g}"
        for _ in range(n)
    ]


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A workspace with its own small dataset, prototask and method, and a writer for them."""
    data = tmp_path / "data-dir"
    for d in (data, tmp_path / "datasets", tmp_path / "tasks" / "tiny", tmp_path / "methods"):
        d.mkdir(parents=True)
    monkeypatch.setenv("DELVE_DATA_PATH", str(data))
    monkeypatch.setattr(load_mod, "_LOADED", {})

    def write(dataset=TINY, proto=PROTO, method=METHOD, rows=None, method_file="mine-1.yaml"):
        (tmp_path / "datasets" / "tiny.yaml").write_text(dataset)
        (tmp_path / "tasks" / "tiny" / "p.yaml").write_text(proto)
        (tmp_path / "methods" / method_file).write_text(method)
        (data / "tiny.data").write_text("\n".join(rows or _rows()) + "\n")
        return WorkspaceDirs(tmp_path)

    return write


def test_the_tiny_specs_are_valid(tiny):
    ws = tiny()
    assert load_dataset(ws, "tiny").values.shape == (40, 4)
    proto = prototask_spec(ws, "tiny", "p")
    assert proto.inputs == (0, 1, 2) and proto.targets == (3,)
    assert method_spec(ws, "mine-1").budget == {"cpu_per_case": 1.0, "work": 10}


@pytest.mark.parametrize(
    "old,new,needle",
    [
        ("cases: 40", "cases: forty", "tiny.yaml: cases: expected a whole number, got 'forty'"),
        ("cases: 40", "cases: 0", "tiny.yaml: cases: must be at least 1"),
        ("cases: 40", "cases: 1e999", "tiny.yaml: cases: expected a whole number"),
        ("name: tiny", "name: small", "tiny.yaml: name: 'small' differs from the file name"),
        ("kind: integer", "kind: int", "attributes[1].kind: 'int' is not one of real"),
        ("values: ['no', 'yes']", "values: ['yes']", "attributes[2].values: a binary attribute"),
        ("values: ['no', 'yes']", "values: [no, yes]", "values: value 1 reads as False in YAML"),
        ("{name: y, kind: real}", "{name: a, kind: real}", "attributes[3].name: 'a' is used"),
        ("{name: y, kind: real}", "{name: y, kind: real, colour: red}", "attributes[3].colour"),
        ("file: tiny.data", "file: ../tiny.data", "file: '../tiny.data' must be a file name"),
        ("file: tiny.data", "file: [tiny.data]", "file: expected text"),
        ("cases: 40", "cases: 40\nsha256: abc", "sha256: expected 64 lowercase hex digits"),
        ("cases: 40", "cases: 40\nsorces: []", "sorces: unknown key (did you mean sources?)"),
        ("cases: 40", "cases: 40\nmissing: [1]", "missing: expected words"),
        ("cases: 40", "cases: 40\nprovenance: {origin: []}", "provenance.conversion: missing"),
        ("cases: 40", "cases: 40\nprovenance: here", "provenance: expected a mapping"),
        (TINY[TINY.index("attributes:") :], "attributes: 3\n", "attributes: expected a list"),
        (TINY[TINY.index("attributes:") :], "attributes: []\n", "attributes: the list is empty"),
        ("name: tiny", "- just a list", "not valid YAML"),
    ],
)
def test_bad_dataset_fields_are_named(tiny, old, new, needle):
    ws = tiny(dataset=TINY.replace(old, new))
    with pytest.raises(DelveError) as e:
        dataset_spec(ws, "tiny")
    assert needle in str(e.value) and "tiny.yaml" in str(e.value)


@pytest.mark.parametrize(
    "old,new,needle",
    [
        (
            "[5, 10]",
            "[8, abc]",
            "p.yaml: training-set-sizes[1]: expected a whole number, got 'abc'",
        ),
        ("[5, 10]", "[5, 5]", "training-set-sizes: lists a size twice"),
        ("[5, 10]", "[]", "training-set-sizes: the list is empty"),
        ("[5, 10]", "[5, 0]", "training-set-sizes[1]: must be at least 1"),
        ("[5, 10]", "5", "training-set-sizes: expected a list"),
        ("targets: [4]", "targets: [3]", "p.yaml: targets: attribute c is also an input"),
        ("targets: [4]", "targets: [y, y]", "targets: lists attribute y twice"),
        ("targets: [4]", "targets: [9]", "targets: tiny: attribute number 9 out of range 1..4"),
        ("targets: [4]", "targets: [true]", "targets: True is not an attribute"),
        ("inputs: 1-3", "inputs: 3-1", "inputs: range 3-1 is not within 1-4"),
        ("inputs: 1-3", "inputs: 1-99999999999", "inputs: range 1-99999999999 is not within"),
        ("inputs: 1-3", "inputs: [a, bb]", "inputs: tiny: no attribute 'bb'"),
        ("inputs: 1-3\n", "", "p.yaml: inputs: missing (required)"),
        ("test-set-size: 20", "test-set-size: 20.5", "test-set-size: expected a whole number"),
        ("test-set-size: 20", "test-set-size: 4000", "test-set-size: must be at most 40"),
        ("hierarchical", "hierarchic", "test-set-selection: 'hierarchic' is not one of"),
        ("seed: 7", "seed: -1", "seed: must be at least 0"),
        ("seed: 7", "seed: 7\norder: random", "order: 'random' is not one of"),
        ("seed: 7", "seed: 7\ncases: some", "cases: 'some' is not one of all, no missing"),
        ("seed: 7", "seed: 7\ntraining-set-size: 4", "training-set-size: unknown key"),
    ],
)
def test_bad_prototask_fields_are_named(tiny, old, new, needle):
    ws = tiny(proto=PROTO.replace(old, new))
    with pytest.raises(DelveError) as e:
        prototask_spec(ws, "tiny", "p")
    assert needle in str(e.value)


@pytest.mark.parametrize(
    "old,new,needle",
    [
        (
            "cpu_per_case: 1.0",
            "cpu_per_case: lots",
            "budget.cpu_per_case: expected a number, got 'lots'",
        ),
        ("cpu_per_case: 1.0", "cpu_per_case: -1", "budget.cpu_per_case: must be at least 0"),
        (
            "cpu_per_case: 1.0",
            "cpu_per_case: .nan",
            "budget.cpu_per_case: expected a finite number",
        ),
        ("work: 10", "work: 1.5", "budget.work: expected a whole number"),
        ("work: 10", "hard_limit: 0", "budget.hard_limit: must be greater than 0"),
        ("work: 10", "wrok: 10", "budget.wrok: unknown key (did you mean work?)"),
        (
            "name: mine-1",
            "name: yours-1",
            "mine-1.yaml: name: 'yours-1' differs from the file name",
        ),
        ("plugin: delve_bench.methods.lin:Lin1", "plugin: 7", "plugin: expected text"),
        (
            "plugin: delve_bench.methods.lin:Lin1",
            "plugin: lin.Lin1",
            "plugin: 'lin.Lin1' is not module:Class",
        ),
        ("plugin: delve_bench.methods.lin:Lin1\n", "", "plugin: missing (required)"),
        ("params: {}", "params: [1]", "params: expected a mapping"),
        ("params: {}", "params: {1: 2}", "params: key 1 is not a name"),
        ("budget: {cpu_per_case: 1.0, work: 10}", "budget: 5", "budget: expected a mapping"),
        ("description: ordinary least squares", "description: [a]", "description: expected text"),
    ],
)
def test_bad_method_fields_are_named(tiny, old, new, needle):
    ws = tiny(method=METHOD.replace(old, new))
    with pytest.raises(DelveError) as e:
        method_spec(ws, "mine-1")
    assert needle in str(e.value)


def test_a_broken_method_yaml_only_breaks_that_method(tiny):
    ws = tiny(method="name: broken-1\nplugin: [", method_file="broken-1.yaml")
    assert "broken-1" in method_names(ws) and "lin-1" in method_names(ws)
    assert method_spec(ws, "lin-1").plugin == "delve_bench.methods.lin:Lin"
    with pytest.raises(DelveError, match="broken-1.yaml: not valid YAML"):
        method_spec(ws, "broken-1")


@pytest.mark.parametrize(
    "plugin,params,needle",
    [
        (
            "nosuchmodule:Thing",
            "{}",
            "cannot import plugin 'nosuchmodule:Thing' (ModuleNotFoundError",
        ),
        (
            "delve_bench.methods.lin:Nope",
            "{}",
            "cannot import plugin 'delve_bench.methods.lin:Nope'",
        ),
        (
            "delve_bench.methods.lin:Lin1",
            "{colour: red}",
            "Lin1 with params {'colour': 'red'} fails",
        ),
        ("delve_bench.errors:suggest", "{}", "neither a delve-bench Method nor a regressor"),
    ],
)
def test_plugins_are_imported_and_checked(tiny, plugin, params, needle):
    ws = tiny(method=f"plugin: {plugin}\nparams: {params}\n")
    with pytest.raises(DelveError) as e:
        checked_method(ws, "mine-1")
    assert needle in str(e.value)


@pytest.mark.parametrize(
    "row,needle",
    [
        ("0.5 3 yes nan", "tiny.data, line 4, column 4 (y): 'nan' is not a finite number"),
        ("0.5 3 yes inf", "line 4, column 4 (y): 'inf' is not a finite number"),
        ("0.5 3 yes 1e999", "line 4, column 4 (y): '1e999' is not a finite number"),
        ("0.5 3 yes ?", "line 4, column 4 (y): '?' is not a number; if it marks a missing value"),
        ("0.5 x yes 1", "line 4, column 2 (b): 'x' is not a number"),
        ("0.5 3.5 yes 1", "line 4, column 2 (b): '3.5' is not a whole number"),
        ("0.5 3 maybe 1", "line 4, column 3 (c): 'maybe' is not one of no, yes"),
        ("0.5 3 yes", "line 4: 3 values, expected 4"),
        ("0.5 3 yes 1 2", "line 4: 5 values, expected 4"),
    ],
)
def test_bad_data_values_are_named_by_file_line_and_column(tiny, row, needle):
    rows = _rows()
    rows[3] = row
    ws = tiny(rows=rows)
    with pytest.raises(DelveError) as e:
        load_dataset(ws, "tiny")
    assert needle in str(e.value)


NUMBERS = TINY.replace("{name: c, kind: binary, values: ['no', 'yes']}", "{name: c, kind: real}")


@pytest.mark.parametrize(
    "row,needle",
    [
        ("0.5 3 1 nan", "tiny.data, line 4, column 4 (y): 'nan' is not a finite number"),
        ("0.5 3 1 1e999", "line 4, column 4 (y): '1e999' is not a finite number"),
        ("0.5 x 1 1", "line 4, column 2 (b): 'x' is not a number"),
        ("0.5 3.5 1 1", "line 4, column 2 (b): '3.5' is not a whole number"),
        ("0.5 1_000 1 1", "line 4, column 2 (b): '1_000' is not a number (ASCII digits only"),
        ("0.5 3 1 \uff11", "line 4, column 4 (y): '\uff11' is not a number (ASCII digits only"),
        ("0.5 3 1", "line 4: 3 values, expected 4"),
        ("0.5 3 1 1 1", "line 4: 5 values, expected 4"),
    ],
)
def test_a_file_of_plain_numbers_is_read_in_one_pass_to_the_same_values(tiny, row, needle):
    """Every attribute a number: the file is converted in one pass, to the floats the
    column-by-column reader gives, and a bad value is named by line and column as there."""
    rows = [r.replace(" yes ", " 1 ").replace(" no ", " 0 ") for r in _rows()]
    ws = tiny(dataset=NUMBERS, rows=rows)
    spec = dataset_spec(ws, "tiny")
    assert load_mod._plain_numbers("\n".join(rows) + "\n", spec) is not None
    careful = load_mod._token_values(np.array([r.split() for r in rows]), spec, str)
    assert np.array_equal(load_dataset(ws, "tiny").values, careful)
    rows[3] = row
    with pytest.raises(DelveError) as e:
        load_dataset(tiny(dataset=NUMBERS, rows=rows), "tiny")
    assert needle in str(e.value)


def test_a_line_short_by_one_and_one_long_by_one_is_not_silently_realigned(tiny):
    rows = _rows()
    rows[3], rows[4] = "0.5 3 yes", "0.5 3 yes 1 1"
    with pytest.raises(DelveError, match="line 4: 3 values"):
        load_dataset(tiny(rows=rows), "tiny")


def test_declared_missing_values_load_as_missing(tiny):
    rows = _rows()
    rows[3], rows[5] = "? 3 yes 1", "0.5 NA yes 1"
    ws = tiny(dataset=TINY.replace("cases: 40", "cases: 40\nmissing: ['?', NA]"), rows=rows)
    values = load_dataset(ws, "tiny").values
    assert np.isnan(values[3, 0]) and np.isnan(values[5, 1])
    assert np.isfinite(np.delete(values, [3, 5], axis=0)).all()
    proto = prototask_spec(ws, "tiny", "p")
    assert proto.cases == "all"
    ws2 = tiny(
        dataset=TINY.replace("cases: 40", "cases: 40\nmissing: ['?', NA]"),
        proto=PROTO.replace("seed: 7", "seed: 7\ncases: no missing").replace("20", "18"),
        rows=rows,
    )
    from delve_bench.tasks.instances import generate

    proto = prototask_spec(ws2, "tiny", "p")
    generate(ws2, proto)
    cases = np.concatenate([np.r_[i.train, i.test] for i in task_layout(ws2, proto, 5).instances])
    assert not {3, 5} & set(cases.tolist())
