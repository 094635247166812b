"""Reading a result's losses.csv: what the writer guarantees is checked on every read, so a
garbled or hand-edited file is one error naming its line, never a number in a table."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from delve_bench.errors import DelveError
from delve_bench.run.store import instance_result, read_instance

GOOD = "case,S,A,L\n3,0.5,0.7,1.2\n1,0.25,0.5,-0.4\n2,1e-3,0.03,0.9\n"


def _read(tmp_path, text: str, losses=("S", "A", "L")):
    d = tmp_path / "0"
    d.mkdir(exist_ok=True)
    (d / "losses.csv").write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may escape either
        return read_instance(d, np.array([1, 2, 3]), losses)


def test_a_good_file_reads_in_test_set_order(tmp_path):
    r = _read(tmp_path, GOOD)
    assert r.losses["S"].tolist() == [0.25, 1e-3, 0.5]
    assert r.losses["L"].tolist() == [-0.4, 0.9, 1.2]  # L may be negative
    r = _read(tmp_path, "case,S,A,L\n3,0.5,0.7,\n1,0.25,0.5,\n2,1e-3,0.03,\n")
    assert r.losses["L"] is None  # a method without L leaves the column empty


@pytest.mark.parametrize(
    "last, message",
    [
        ("1e30,1e-3,0.03,0.9", "line 4: '1e30' is not a case number"),
        ("inf,1e-3,0.03,0.9", "line 4: 'inf' is not a case number"),
        ("2.0,1e-3,0.03,0.9", "line 4: '2.0' is not a case number"),
        ("-2,1e-3,0.03,0.9", "line 4: '-2' is not a case number"),
        (",1e-3,0.03,0.9", "line 4: an empty (or NaN) cell is not a case number"),
        ("2,-1,0.03,0.9", "line 4: S is -1; a loss is a finite non-negative number"),
        ("2,inf,0.03,0.9", "line 4: S is inf"),
        ("2,1e400,0.03,0.9", "line 4: S is inf"),
        ("2,nan,0.03,0.9", "line 4: S is missing"),
        ("2,1e-3,-0.03,0.9", "line 4: A is -0.03"),
        ("2,1e-3,0.03,", "line 4: L is missing; a loss is a finite number on every line"),
    ],
)
def test_garbage_in_losses_is_one_error_naming_the_line(tmp_path, last, message):
    text = GOOD.rsplit("\n", 2)[0] + "\n" + last + "\n"
    with pytest.raises(DelveError) as e:
        _read(tmp_path, text)
    assert message in str(e.value) and "losses.csv" in str(e.value)


def _packed(cases: np.ndarray):
    columns = {"S": np.array([0.5, 0.25, 1e-3])}
    return instance_result("study s: m on t #0", 0, cases, columns, np.array([1, 2, 3]), ("S",), {})


@pytest.mark.parametrize(
    "cases, message",
    [
        (np.array([3, 1, -2]), "line 4: '-2' is not a case number"),
        (np.array([3, 1, 10**18]), f"line 4: '{10**18}' is not a case number"),
        (np.array([3.0, 1.0, 2.0]), "line 2: '3.0' is not a case number"),
    ],
)
def test_the_case_numbers_of_a_packed_file_are_checked_as_their_text_is(cases, message):
    """A packed file's cases are numbers: those whose text passes are taken without making
    the text, any other is named as the text of a losses.csv would be."""
    with pytest.raises(DelveError, match=message):
        _packed(cases)
    numbers, text = _packed(np.array([3, 1, 2])), _packed(np.array(["3", "1", "2"]))
    assert numbers.losses["S"].tolist() == text.losses["S"].tolist() == [0.25, 1e-3, 0.5]


def test_classification_losses_are_checked_too(tmp_path):
    text = "case,Z,Q,L\n1,0,0.1,0.2\n2,1,1.5,3\n3,-1,0.2,0.1\n"
    with pytest.raises(DelveError, match="line 4: Z is -1"):
        _read(tmp_path, text, ("Z", "Q", "L"))
    r = _read(tmp_path, text.replace("-1,", "0.5,"), ("Z", "Q", "L"))
    assert r.losses["Z"].tolist() == [0, 1, 0.5]
