"""The committed form of a study's results: lean, compressed, readable with pandas.

A study runs into its working store ``results/<study>/runs/`` (the ordinary result layout:
predictions.csv, losses.csv, meta.json per instance; not committed). :func:`pack` turns it
into one pair of files per method and prototask, which is what is committed::

    results/<study>/losses/<method>/<dataset>-<prototask>.parquet  task,instance,case,S,A,L
    results/<study>/meta/<method>/<dataset>-<prototask>.jsonl.xz   one meta.json per line

``pandas.read_parquet(path)`` reads the losses (it needs pyarrow: ``pip install
'delve-bench[study]'``). The losses are stored in single precision (``float32``, byte-stream
split, zstd): about 11 bytes per test case against 24 for three doubles and 65 for the
CSV of full precision, which keeps both reference studies (about 5 million test-case rows)
under the 60 MB the repository allows. Every
statistic of a report is computed from these committed values, so reports regenerate
byte-identically anywhere. Each meta line keeps the sha256 of the full-precision
``losses.csv`` it came from, so a rerun can still be checked bit for bit
(:mod:`delve_bench.study.verify`). Failed instances keep their meta line (with the error)
and have no loss rows. A few bulky info fields no display reads are left out of the meta
lines (:data:`NOT_COMMITTED_INFO`).

Each meta line of an instance with loss rows also records ``packed_losses_sha256``: the
sha256 of the losses.csv that its committed (float32) rows make (:func:`packed_rows_sha`,
the very file :func:`unpack` writes), computed when the rows come from the working store
and never recomputed from the committed file (which would bless an edited value). ``delve study verify`` checks every committed
instance against it before anything else, so an edited committed value is found whether or
not the report was regenerated from it.

:func:`unpack` writes packed results back in the ordinary layout (losses.csv from the
packed values, meta.json with ``packed: true`` and the sha256 of that file; no
predictions), so every command (stats, compare, report, status) reads them.
"""

from __future__ import annotations

import io
import json
import lzma
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DelveError
from ..report.output import write_file
from ..run.store import csv_bytes, instance_state, read_meta, sha256_bytes
from ..tasks.names import TaskRef

LOSS_COLUMNS = ["task", "instance", "case", "S", "A", "L"]
#: the meta-line field holding the sha256 of an instance's committed loss rows
PACKED_SHA = "packed_losses_sha256"


def _xz(data: bytes) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9)


@dataclass
class Packed:
    """One method on one prototask: its metas and loss rows keyed by (size, instance)."""

    metas: dict[tuple[int, int], dict]
    losses: dict[tuple[int, int], pd.DataFrame]  # columns case, S, A, L


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


def read_packed(study_dir: Path, method: str, dataset: str, prototask: str) -> Packed:
    """The packed results (empty when there are none)."""
    lp, mp = packed_paths(study_dir, method, dataset, prototask)
    out = Packed({}, {})
    if not mp.is_file():
        return out
    for m in _meta_lines(mp):
        out.metas[(_size_of(m["task"]), m["instance"])] = m
    if lp.is_file():
        df = read_losses(lp)
        for (task, inst), g in df.groupby(["task", "instance"], sort=False):
            out.losses[(_size_of(task), int(inst))] = g[["case", "S", "A", "L"]].reset_index(
                drop=True
            )
    return out


def _float32(col: pd.Series) -> np.ndarray:
    return col.to_numpy(dtype=float).astype(np.float32)


def packed_csv(rows: pd.DataFrame) -> bytes:
    """The losses.csv of one instance's committed rows (columns case, S, A, L; the losses
    rounded to float32 as committed, written as the float64 holding them)."""
    frame = pd.DataFrame(
        {
            "case": rows["case"].to_numpy(dtype=np.int64),
            **{c: _float32(rows[c]).astype(np.float64) for c in ("S", "A", "L")},
        }
    )
    return csv_bytes(frame)


def packed_rows_sha(rows: pd.DataFrame) -> str:
    """sha256 of :func:`packed_csv` of ``rows``: what a meta line records as
    :data:`PACKED_SHA` and what verify recomputes from the committed Parquet file."""
    return sha256_bytes(packed_csv(rows))


def _encode(p: Packed, dataset: str, prototask: str) -> tuple[bytes, bytes]:
    keys = sorted(p.metas)
    # the hash is what pack() recorded when the rows came from the working store; rows kept
    # from the committed file keep theirs (recomputing it would bless an edited value)
    lines = [
        json.dumps(
            p.metas[k]
            if k in p.losses
            else {m: v for m, v in p.metas[k].items() if m != PACKED_SHA},
            sort_keys=True,
        )
        for k in keys
    ]
    frames = []
    for k in keys:
        if k not in p.losses:
            continue
        df = p.losses[k]
        frames.append(
            pd.DataFrame(
                {
                    "task": f"{dataset}/{prototask}/std.{k[0]}",
                    "instance": k[1],
                    "case": df["case"].to_numpy(),
                    "S": _float32(df["S"]),
                    "A": _float32(df["A"]),
                    "L": _float32(df["L"]),
                }
            )
        )
    table = pd.concat(frames) if frames else pd.DataFrame(columns=LOSS_COLUMNS)
    return _parquet(table), _xz(("\n".join(lines) + "\n").encode())


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


def _parquet(table: pd.DataFrame) -> bytes:
    pa, pq = _pyarrow()
    t = pa.table(
        {
            "task": pa.array(table["task"].astype(str), pa.string()),
            "instance": pa.array(table["instance"].to_numpy(np.int16)),
            "case": pa.array(table["case"].to_numpy(np.int32)),
            **{c: pa.array(table[c].to_numpy(np.float32)) for c in ("S", "A", "L")},
        }
    )
    buf = io.BytesIO()
    pq.write_table(
        t,
        buf,
        compression="zstd",
        compression_level=22,
        use_dictionary=["task"],
        use_byte_stream_split=["S", "A", "L"],
        write_statistics=False,
        store_schema=False,
    )
    return buf.getvalue()


#: info fields left out of the committed meta lines; the working store's meta.json keeps
#: them. gp-mc-1's sampled hyperparameters (``theta_used``) take about 6 KB per instance,
#: no display reads them, and with them the thesis study would come near the 60 MB the
#: repository allows (its mean length scales, ``length_scales_mean_used``, are kept).
NOT_COMMITTED_INFO = ("theta_used",)


def committed_meta(meta: dict) -> dict:
    """``meta`` without the info fields of :data:`NOT_COMMITTED_INFO`."""
    info = meta.get("info")
    if not isinstance(info, dict) or not any(k in info for k in NOT_COMMITTED_INFO):
        return meta
    return {**meta, "info": {k: v for k, v in info.items() if k not in NOT_COMMITTED_INFO}}


def _runs_entries(runs: Path, method: str, dataset: str, prototask: str) -> Packed:
    """Finished or failed instances of the working store (corrupt or partial ones skipped)."""
    out = Packed({}, {})
    base = runs / method / dataset / prototask
    for d in sorted(base.glob("std.*/*")):
        if not d.is_dir() or not d.name.isdigit():
            continue
        state = instance_state(d)
        meta = read_meta(d)
        if meta is None or meta.get("packed") or state not in ("ok", "failed"):
            continue
        key = (_size_of(d.parent.name), int(d.name))
        out.metas[key] = committed_meta(meta)
        if state == "ok":
            out.losses[key] = pd.read_csv(d / "losses.csv")
    return out


def pack(study_dir: Path, methods: Iterable[str], refs: Iterable[TaskRef]) -> list[Path]:
    """Pack the working store's results of ``methods`` on the prototasks of ``refs`` into
    the committed files (merging with what is packed already; the working store wins).
    Returns the files written (unchanged files are not rewritten)."""
    runs = study_dir / "runs"
    written = []
    protos = sorted({(r.dataset, r.prototask) for r in refs})
    for m in methods:
        for ds, pt in protos:
            fresh = _runs_entries(runs, m, ds, pt)
            if not fresh.metas:
                continue
            old = read_packed(study_dir, m, ds, pt)
            for k, meta in fresh.metas.items():
                packed = {f: v for f, v in old.metas.get(k, {}).items() if f != PACKED_SHA}
                if packed == meta and k in old.losses:
                    continue  # packed already; keep its rows
                old.metas[k] = meta
                old.losses.pop(k, None)
                if k in fresh.losses:
                    old.losses[k] = fresh.losses[k]
                    old.metas[k] = {**meta, PACKED_SHA: packed_rows_sha(fresh.losses[k])}
            lb, mb = _encode(old, ds, pt)
            for path, data in zip(packed_paths(study_dir, m, ds, pt), (lb, mb), strict=True):
                if not path.is_file() or path.read_bytes() != data:
                    write_file(path, data)
                    written.append(path)
    return written


def packed_methods(study_dir: Path) -> list[str]:
    base = study_dir / "meta"
    return sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def unpack(
    study_dir: Path, dest: Path, methods: Iterable[str], refs: Iterable[TaskRef], only_missing=False
) -> int:
    """Write the packed results as an ordinary result store under ``dest`` (losses.csv and
    meta.json per instance). ``only_missing``: leave instances ``dest`` has alone.
    Returns the number of instances written."""
    n = 0
    for m in methods:
        for ds, pt in sorted({(r.dataset, r.prototask) for r in refs}):
            p = read_packed(study_dir, m, ds, pt)
            for (size, inst), meta in sorted(p.metas.items()):
                d = dest / m / ds / pt / f"std.{size}" / str(inst)
                if only_missing and (d / "meta.json").exists():
                    continue
                meta = dict(meta)
                if (size, inst) in p.losses:
                    data = packed_csv(p.losses[(size, inst)])
                    meta["losses_sha256_full_precision"] = meta.get("losses_sha256")
                    meta["losses_sha256"] = sha256_bytes(data)
                    write_file(d / "losses.csv", data)
                meta["packed"] = True
                write_file(
                    d / "meta.json", (json.dumps(meta, indent=2, sort_keys=True) + "\n").encode()
                )
                n += 1
    return n


def read_losses(path: str | Path) -> pd.DataFrame:
    """A packed losses file as a DataFrame (``task, instance, case, S, A, L``; the losses
    as float64 holding the committed float32 values)."""
    pa, pq = _pyarrow()
    if not Path(path).is_file():
        raise DelveError(f"{path}: not a regular file")
    try:
        md = pq.ParquetFile(path).metadata
        size = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))
        if md.num_rows > MAX_LOSS_ROWS or size > MAX_LOSS_BYTES:
            raise DelveError(
                f"{path}: holds {md.num_rows} rows, {size // 2**20} MB uncompressed; more than "
                "a losses file delve writes (restore it from git)"
            )
        df = pq.read_table(path).to_pandas()
    except (OSError, pa.ArrowException) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DelveError(
            f"{path}: not a readable Parquet file ({msg}); restore it from git"
        ) from None
    if list(df.columns) != LOSS_COLUMNS or not all(
        pd.api.types.is_numeric_dtype(df[c]) for c in LOSS_COLUMNS[1:]
    ):
        raise DelveError(f"{path}: its columns must be {', '.join(LOSS_COLUMNS)} (numbers)")
    if not df["task"].astype(str).str.fullmatch(r".*std\.\d+").all():
        raise DelveError(f"{path}: a task name does not end in std.N")
    for c in ("S", "A", "L"):
        df[c] = df[c].astype(np.float64)
    return df
