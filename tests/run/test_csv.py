"""The result tables' CSV, written with numpy alone, is byte for byte what pandas writes
(``to_csv(index=False, na_rep="", lineterminator="\\n")``), which every result written so
far was: its sha256 is in each meta.json. Read back, a table takes a fast path when it is
as the writer makes it, and the fast path reads what the general reader reads."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from delve_bench.run.store import csv_bytes


def _pandas(table: dict) -> bytes:
    buf = io.StringIO()
    pd.DataFrame(table).to_csv(buf, index=False, na_rep="", lineterminator="\n", float_format=None)
    return buf.getvalue().encode()


def _floats(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-310, 308, n)
    x[rng.random(n) < 0.1] = np.nan
    x[:8] = [0.0, -0.0, np.inf, -np.inf, 1e16, 1e-5, 0.1 + 0.2, 5e-324]
    return x


@pytest.mark.parametrize("seed", range(5))
def test_regression_tables_match_pandas_byte_for_byte(seed):
    rng = np.random.default_rng(seed)
    n = 500
    table = {
        "case": rng.permutation(8192)[:n].astype(np.int64),
        "target": _floats(rng, n),
        "mean": rng.random(n),
        "median": np.round(rng.random(n), 3),
        "var": np.full(n, np.nan),
        "log_density": -rng.exponential(size=n),
    }
    assert csv_bytes(table) == _pandas(table)


def test_class_labels_and_column_names_are_quoted_as_pandas_quotes_them():
    labels = np.array(["no", "yes", 'say "hi"', "a,b", "two\nlines", " spaced ", "ünï", ""])
    rng = np.random.default_rng(1)
    t = rng.integers(0, len(labels), 300)
    table = {"case": np.arange(300), "target": labels[t]}
    for label in labels:
        table[f"p.{label}"] = rng.random(300)
    assert csv_bytes(table) == _pandas(table)


def test_an_empty_table_and_a_dataframe_itself():
    assert csv_bytes({"case": np.array([], dtype=np.int64), "S": np.array([])}) == b"case,S\n"
    df = pd.DataFrame({"case": [3, 1], "S": [0.5, np.nan], "label": ["x", None]})
    assert csv_bytes(df) == _pandas(df.to_dict("series"))


# -- reading them back --------------------------------------------------------------------

LOSSES = ("S", "A", "L")


def _read(path, plain: bool):
    """(case numbers, loss columns) or the error's text, read by the reader with or
    without its fast path."""
    from unittest import mock

    from delve_bench.errors import DelveError
    from delve_bench.run import store

    fast = store._plain_table if plain else (lambda data, losses: None)
    with mock.patch.object(store, "_plain_table", fast):
        try:
            cases, columns = store._losses_table(path, LOSSES)
            return store._checked_losses(path, cases, columns).tolist(), columns
        except DelveError as e:
            return str(e)


def test_what_the_writer_writes_is_read_back_exactly_on_the_fast_path(tmp_path):
    from delve_bench.run.store import _plain_table

    rng = np.random.default_rng(0)
    x = _floats(rng, 300)
    x[~np.isfinite(x)] = 0.5  # losses are finite (or the column empty)
    table = {"case": rng.permutation(4096)[:300], "S": np.abs(x), "A": np.full(300, np.nan), "L": x}
    data = csv_bytes(table)
    assert _plain_table(data, LOSSES) is not None
    path = tmp_path / "losses.csv"
    path.write_bytes(data)
    cases, columns = _read(path, plain=True)
    assert cases == table["case"].tolist()
    np.testing.assert_array_equal(columns["L"], x)
    assert np.isnan(columns["A"]).all()


#: fields of the writer's bytes: numbers as it spells them, empty cells, and fragments no
#: writer makes (a negative S or A is refused too)
_FIELD = st.one_of(
    st.floats(0, 1e300).map(lambda x: str(np.float64(x))),
    st.integers(0, 10**20).map(str),
    st.sampled_from(["", ".", "-", "+", "e", "1.", ".5", "+1", "1e5", "007", "-0.5", "1-2", "--1"]),
)
#: rows as the writer writes them (case, S, A, L) ...
_CLEAN = st.tuples(
    st.integers(0, 10**18 - 1),
    st.floats(0, 1e300),
    st.floats(0, 1e300),
    st.floats(-1e300, 1e300),
).map(lambda r: ",".join([str(r[0]), *(str(np.float64(x)) for x in r[1:])]))
#: ... and rows of any four fields, and now and then three or five
_ROW = st.one_of(
    st.lists(_FIELD, min_size=4, max_size=4), st.lists(_FIELD, min_size=3, max_size=5)
).map(",".join)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    clean=st.lists(_CLEAN, max_size=6),
    other=st.lists(_ROW, max_size=2),
    at=st.integers(0, 6),
    end=st.sampled_from(["\n", "", "\n\n"]),
)
def test_the_fast_path_reads_what_the_general_reader_reads(tmp_path, clean, other, at, end):
    """On rows of the writer's bytes, well or badly formed, the fast path gives the same
    cases and losses, or the same one-line error, as the general reader."""
    path = tmp_path / "losses.csv"
    rows = [*clean[:at], *other, *clean[at:]]
    path.write_bytes(("case,S,A,L\n" + "\n".join(rows) + end).encode())
    fast, general = _read(path, plain=True), _read(path, plain=False)
    if isinstance(general, str):
        assert fast == general
    else:
        assert fast[0] == general[0] and fast[1].keys() == general[1].keys()
        for loss in LOSSES:
            np.testing.assert_array_equal(fast[1][loss], general[1][loss])
