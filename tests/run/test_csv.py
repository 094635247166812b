"""The result tables' CSV, written with numpy alone, is byte for byte what pandas writes
(``to_csv(index=False, na_rep="", lineterminator="\\n")``), which every result written so
far was: its sha256 is in each meta.json."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

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
