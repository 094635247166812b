"""The reading side of a study's committed (packed) results: the file layout, the meta
lines and the Parquet losses, checked where they are read. Written by
:mod:`delve_bench.study.pack`; read by it and, in place, by the analyses
(:mod:`.sources`, ``--with STUDY``)::

    <study>/losses/<method>/<dataset>-<prototask>.parquet  task,instance,case,S[,A,L]
    <study>/meta/<method>/<dataset>-<prototask>.jsonl.xz   one meta.json per line
"""

from __future__ import annotations

import functools
import hashlib
import json
import lzma
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..defaults import REGRESSION_LOSSES
from ..errors import DelveError, TamperedResults

if TYPE_CHECKING:  # pandas only for read_losses: the analyses read numpy columns
    import pandas as pd

#: one instance's committed rows: column name (``case``, ``S``, ``A``, ``L``) -> values
Rows = dict[str, np.ndarray]

#: the loss columns a packed file may hold, in this order (a study commits those it
#: reports); a classification task's Z, Q, L are kept in them, in that order
LOSSES = REGRESSION_LOSSES
LOSS_COLUMNS = ["task", "instance", "case", *LOSSES]
#: the meta-line field holding the sha256 of an instance's committed loss rows
PACKED_SHA = "packed_losses_sha256"


def _float32(col) -> np.ndarray:
    return np.asarray(col, dtype=float).astype(np.float32)


def packed_csv(rows: Rows | pd.DataFrame, kept: tuple[str, ...] = LOSSES) -> bytes:
    """The losses.csv of one instance's committed rows (columns case and the committed
    losses ``kept``, rounded to float32 as committed, written as the float64 holding
    them): the bytes :func:`~delve_bench.run.store.csv_bytes` writes for that table
    (shortest round-trip floats, empty cells for NaN), formatted here with ``repr``,
    which is twice as fast as pandas' writer: every read of a committed instance hashes
    these bytes."""
    cells = [[str(c) for c in np.asarray(rows["case"], dtype=np.int64).tolist()]]
    for c in kept:
        values = _float32(rows[c]).astype(np.float64).tolist()
        cells.append(["" if v != v else repr(v) for v in values])  # v != v: NaN
    lines = [",".join(("case", *kept)), *map(",".join, zip(*cells, strict=True))]
    return ("\n".join(lines) + "\n").encode()


def packed_rows_sha(rows: Rows | pd.DataFrame, kept: tuple[str, ...] = LOSSES) -> str:
    """sha256 of :func:`packed_csv` of ``rows``: what a meta line records as
    :data:`PACKED_SHA`, and what readers and ``study verify`` recompute from the
    committed Parquet file."""
    return hashlib.sha256(packed_csv(rows, kept)).hexdigest()


@dataclass
class Packed:
    """One method on one prototask: its metas and loss rows keyed by (size, instance).

    Read from committed files (:func:`read_packed`), ``source`` names the losses file and
    ``kept`` its loss columns; :meth:`rows` checks an instance's rows against its
    recorded hash before they are used."""

    metas: dict[tuple[int, int], dict]
    losses: dict[tuple[int, int], Rows]  # columns case, S, A, L
    source: Path | None = None
    kept: tuple[str, ...] = LOSSES
    #: sha256 of what the checks read (:func:`read_packed`): the name under which a file
    #: whose every instance passed is remembered (:mod:`.checked`)
    content: str | None = None
    _checked: set[tuple[int, int]] = field(default_factory=set, repr=False)

    def rows(self, key: tuple[int, int]) -> Rows:
        """The loss rows of instance ``key`` (size, instance), checked (once) against the
        sha256 its meta line records (:data:`PACKED_SHA`): an edited committed value is
        one error naming the file and the instance, never a silently different analysis.
        A meta line without the hash (packed by an older delve-bench) is not checked;
        ``delve study verify`` lists those. When every instance of the file has passed,
        the pass is remembered by :attr:`content` (:mod:`.checked`)."""
        df = self.losses[key]
        if key in self._checked or self.source is None:
            return df
        recorded = self.metas.get(key, {}).get(PACKED_SHA)
        if recorded is not None and packed_rows_sha(df, self.kept) != recorded:
            task = self.metas[key].get("task", f"std.{key[0]}")
            raise TamperedResults(
                f"{self.source}: {task} #{key[1]}: its loss rows do not match the sha256 its "
                "meta line records (edited or damaged; restore it from git)"
            )
        self._checked.add(key)
        if self.content is not None and len(self._checked) == len(self.losses):
            from .checked import remember_pass

            remember_pass(self.content)
        return df


def packed_paths(study_dir: Path, method: str, dataset: str, prototask: str) -> tuple[Path, Path]:
    stem = f"{dataset}-{prototask}"
    return (
        study_dir / "losses" / method / f"{stem}.parquet",
        study_dir / "meta" / method / f"{stem}.jsonl.xz",
    )


def _size_of(task: str) -> int:
    return int(task.rsplit("std.", 1)[1])


#: the most a packed meta file may inflate to (the largest committed one is about 0.2 MB):
#: a few hundred KB of .xz can otherwise inflate to gigabytes
MAX_META_BYTES = 64 * 2**20
#: the most a packed losses file may hold, uncompressed (the largest committed file holds
#: about 14 MB) and in rows
MAX_LOSS_BYTES = 2 * 2**30
MAX_LOSS_ROWS = 100_000_000


def _inflate(path: Path) -> bytes:
    """The bytes a .xz file holds, refusing more than :data:`MAX_META_BYTES`."""
    if not path.is_file():
        raise DelveError(f"{path}: not a regular file")
    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    out = d.decompress(path.read_bytes(), max_length=MAX_META_BYTES + 1)
    if len(out) > MAX_META_BYTES or not d.eof:
        if len(out) > MAX_META_BYTES:
            raise DelveError(
                f"{path}: inflates to more than {MAX_META_BYTES // 2**20} MB; not a meta file "
                "delve wrote (restore it from git)"
            )
        raise EOFError("compressed data ended before the end-of-stream marker")
    return out


def _meta_lines(path: Path) -> list[dict]:
    """The meta lines of a packed file; a damaged file is one error naming it (and the
    line), as every committed file is checked where it is read."""
    try:
        text = _inflate(path).decode()
    except (OSError, lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
        raise DelveError(
            f"{path}: not a readable .jsonl.xz file ({e}); restore it from git"
        ) from None
    out = []
    for k, line in enumerate(text.splitlines(), 1):
        try:
            m = json.loads(line)
            ok = (
                isinstance(m, dict)
                and isinstance(m.get("task"), str)
                and isinstance(m.get("instance"), int)
                and m["task"].rsplit("std.", 1)[-1].isdigit()
            )
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            raise DelveError(
                f"{path}, line {k}: not a meta.json object with task (…/std.N) and instance"
            )
        out.append(m)
    return out


def packed_metas(
    study_dir: Path,
    method: str,
    dataset: str,
    prototask: str,
    lines: Iterable[dict] | None = None,
) -> dict[tuple[int, int], dict]:
    """The packed meta lines of one method on one prototask by (size, instance), without
    its losses (what progress and provenance need); empty when there are none.
    ``lines``: the file's :func:`_meta_lines`, where the caller has read them already."""
    mp = packed_paths(study_dir, method, dataset, prototask)[1]
    if lines is None:
        if not mp.is_file():
            return {}
        lines = _meta_lines(mp)
    return {(_size_of(m["task"]), m["instance"]): m for m in lines}


def read_packed(
    study_dir: Path,
    method: str,
    dataset: str,
    prototask: str,
    lines: Iterable[dict] | None = None,
) -> Packed:
    """The packed results (empty when there are none); ``lines`` as for
    :func:`packed_metas`."""
    lp = packed_paths(study_dir, method, dataset, prototask)[0]
    out = Packed(packed_metas(study_dir, method, dataset, prototask, lines), {}, source=lp)
    if not out.metas:
        return out
    if lp.is_file():
        cols = _loss_columns(lp)
        out.kept = cols.kept
        # each instance's rows in the order of first appearance (as pandas' groupby gives
        # them), as views of columns sorted stably by instance: one pass over the file
        pair = _pair_keys(cols.task, cols.instance)
        _, first, inverse = np.unique(
            pair, axis=0 if pair.ndim == 2 else None, return_index=True, return_inverse=True
        )
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        group = rank[inverse.ravel()]
        order = np.argsort(group, kind="stable")
        columns = {"case": cols.case[order], **{c: v[order] for c, v in cols.losses.items()}}
        starts = [0, *(np.flatnonzero(np.diff(group[order])) + 1).tolist()] if len(order) else []
        bounds = [*starts, len(order)]
        task, inst = cols.task[order], cols.instance[order]
        keys = [(_size_of(cols.tasks[task[a]]), int(inst[a])) for a in bounds[:-1]]
        for key, a, b in zip(keys, bounds[:-1], bounds[1:], strict=True):
            out.losses[key] = {c: v[a:b] for c, v in columns.items()}
        out.content = _content(out, keys, columns, bounds)
        if out.content is not None:
            from .checked import passed_before

            if passed_before(out.content):
                out._checked.update(out.losses)
    return out


def _pair_keys(task: np.ndarray, instance: np.ndarray) -> np.ndarray:
    """One key per row that orders as its (task, instance) pair: a number where they fit
    in int64 (numpy's unique of a 1-D array is several times faster than of rows), else
    the (n, 2) pairs themselves."""
    task, instance = task.astype(np.int64), instance.astype(np.int64)
    if not len(task):
        return np.stack([task, instance], axis=1)
    low, span = int(instance.min()), int(instance.max()) - int(instance.min()) + 1
    if (int(task.max()) + 1) * span >= 2**62:
        return np.stack([task, instance], axis=1)
    return task * span + (instance - low)


@functools.cache
def _code() -> bytes | None:
    """sha256 of this module's source, which formats and checks the rows (None where it
    cannot be read: then nothing is remembered)."""
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).digest()
    except OSError:
        return None


def _content(p: Packed, keys: list[tuple[int, int]], rows: Rows, bounds: list[int]) -> str | None:
    """sha256 of everything :meth:`Packed.rows` reads to check ``p``: the code, the
    losses kept, each instance's key, recorded hash and number of rows, and the values
    of the rows (``rows``: the rows of the instances ``keys``, cut at ``bounds``)."""
    code = _code()
    if code is None:
        return None
    h = hashlib.sha256(code)
    h.update(repr(p.kept).encode())
    for key, a, b in zip(keys, bounds[:-1], bounds[1:], strict=True):
        h.update(repr((key, p.metas.get(key, {}).get(PACKED_SHA), b - a)).encode())
    h.update(np.ascontiguousarray(rows["case"], dtype=np.int64).tobytes())
    for c in p.kept:
        h.update(np.ascontiguousarray(rows[c], dtype=np.float64).tobytes())
    return h.hexdigest()


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DelveError(
            "study results are stored as Parquet, which needs pyarrow: "
            "pip install 'delve-bench[study]'"
        ) from None
    return pa, pq


def packed_methods(study_dir: Path) -> list[str]:
    base = study_dir / "meta"
    return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


@dataclass(frozen=True)
class _LossColumns:
    """A packed losses file, checked, as numpy columns: each row's task (an index into
    ``tasks``), instance and case, and the losses S, A, L as float64 holding the committed
    float32 values (NaN for a loss not committed); ``kept``: the committed losses."""

    task: np.ndarray
    tasks: list[str]
    instance: np.ndarray
    case: np.ndarray
    losses: dict[str, np.ndarray]
    kept: tuple[str, ...]


def _loss_columns(path: str | Path) -> _LossColumns:
    """Read and check a packed losses file (pyarrow to numpy: no DataFrame)."""
    pa, pq = _pyarrow()
    if not Path(path).is_file():
        raise DelveError(f"{path}: not a regular file")
    try:
        # the task names as a dictionary (as they are stored), read so: dictionary_encode
        # imports pyarrow.compute, 0.1 s of a compare
        pf = pq.ParquetFile(path, read_dictionary=["task"])
        md = pf.metadata
        size = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))
        if md.num_rows > MAX_LOSS_ROWS or size > MAX_LOSS_BYTES:
            raise DelveError(
                f"{path}: holds {md.num_rows} rows, {size // 2**20} MB uncompressed; more than "
                "a losses file delve writes (restore it from git)"
            )
        table = pf.read()  # pq.read_table goes through pyarrow.dataset, which loads pandas
        cols = list(table.column_names)
        losses = cols[3:]
        if (
            cols[:3] != LOSS_COLUMNS[:3]
            or not losses
            or losses != [c for c in LOSSES if c in losses]
            or not all(_numbers(table.schema.field(c).type, pa) for c in cols[1:])
            or any(table.column(c).null_count for c in cols[1:3])
        ):
            raise DelveError(
                f"{path}: its columns must be task, instance, case and one or more of S, A, L "
                "(numbers)"
            )
        task = table.column("task").combine_chunks()  # one dictionary for all row groups
        named = pa.types.is_dictionary(task.type)  # not so where the names are not text
        tasks = [str(t) for t in task.dictionary.to_pylist()] if named else []
        if not named or task.null_count or not all(re.fullmatch(r".*std\.\d+", t) for t in tasks):
            raise DelveError(f"{path}: a task name does not end in std.N")
        n = table.num_rows
        return _LossColumns(
            task=_to_numpy(task.indices, pa, np.int64),
            tasks=tasks,
            instance=_to_numpy(table.column("instance"), pa, np.int64),
            case=_to_numpy(table.column("case"), pa, np.int64),
            losses={
                c: _to_numpy(table.column(c), pa, np.float64) if c in losses else np.full(n, np.nan)
                for c in LOSSES
            },
            kept=tuple(losses),  # the committed losses, which their hashes cover
        )
    except (OSError, pa.ArrowException) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DelveError(
            f"{path}: not a readable Parquet file ({msg}); restore it from git"
        ) from None


def _to_numpy(column, pa, dtype) -> np.ndarray:
    """A numeric arrow column as a numpy array of ``dtype`` (a null as NaN), read from its
    buffers and converted by numpy: pyarrow's own ``to_numpy`` imports pandas (half a
    second), and its ``cast`` and ``fill_null`` import pyarrow.compute (0.1 s). As
    arrow's safe cast, a value that ``dtype`` cannot hold exactly (1.5 as an integer, an
    integer beyond 2**53 as a float) is an error (``pa.ArrowInvalid``)."""
    arr = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    n, at = len(arr), arr.offset

    def bitmap(buf) -> np.ndarray:  # one bit per value, least significant first
        bits = np.unpackbits(np.frombuffer(buf, np.uint8), count=at + n, bitorder="little")
        return bits[at:].astype(bool)

    if pa.types.is_boolean(arr.type):
        raw = bitmap(arr.buffers()[1])
    else:
        own = np.dtype(arr.type.to_pandas_dtype())
        raw = np.frombuffer(arr.buffers()[1], dtype=own, count=n, offset=at * own.itemsize)
    valid = bitmap(arr.buffers()[0]) if arr.null_count else np.ones(n, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        values = raw.astype(dtype)
        inexact = valid & (values.astype(raw.dtype) != raw)
    if raw.dtype.kind != "f" or np.dtype(dtype).kind != "f":  # float to float is exact
        if inexact.any():
            v = raw[np.argmax(inexact)]
            raise pa.ArrowInvalid(
                f"{arr.type} value {v} does not convert exactly to {np.dtype(dtype)}"
            )
    return values if valid.all() else np.where(valid, values, np.nan)


def _numbers(t, pa) -> bool:
    """Whether arrow type ``t`` holds numbers (integers, floats or booleans)."""
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)


def read_losses(path: str | Path) -> pd.DataFrame:
    """A packed losses file as a DataFrame (``task, instance, case, S, A, L``; the losses
    as float64 holding the committed float32 values, NaN for a loss not committed;
    ``attrs["kept"]``: the committed losses)."""
    import pandas as pd

    cols = _loss_columns(path)
    df = pd.DataFrame(
        {
            "task": np.asarray(cols.tasks, dtype=object)[cols.task],
            "instance": cols.instance,
            "case": cols.case,
            **cols.losses,
        }
    )
    df.attrs["kept"] = cols.kept
    return df
