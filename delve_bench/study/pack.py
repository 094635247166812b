"""The committed form of a study's results: lean, compressed, readable with pandas.

A study runs into its working store ``results/<study>/runs/`` (the ordinary result layout:
predictions.csv, losses.csv, meta.json per instance; not committed). :func:`pack` turns it
into one pair of files per method and prototask, which is what is committed::

    results/<study>/losses/<method>/<dataset>-<prototask>.parquet  task,instance,case,S[,A,L]
    results/<study>/meta/<method>/<dataset>-<prototask>.jsonl.xz   one meta.json per line

``pandas.read_parquet(path)`` reads the losses (it needs pyarrow: ``pip install
'delve-bench[study]'``). Only the losses the study reports on a prototask are committed
(its ``losses:``; e.g. S on kin and pumadyn, S, A and L on boston): a loss no table shows
would be a third of the bytes each. They are stored in single precision (``float32``,
byte-stream split, zstd): about 4 bytes per test case and loss, and under half a byte for
the case number, against 8 for a double and 65 for the CSV row of full precision. Seven
significant digits are far below any standard error a study reports (the SE of a mean
loss over 512 test cases and 8 training sets is at least 1e-3 of it), and every statistic
of a report is computed from these committed values, so reports regenerate
byte-identically anywhere. Every
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
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from ..run.output import write_file
from ..run.packed import (
    LOSS_COLUMNS,
    LOSSES,
    PACKED_SHA,
    Packed,
    _float32,
    _meta_lines,
    _pyarrow,
    _size_of,
    packed_csv,
    packed_metas,
    packed_methods,
    packed_paths,
    packed_rows_sha,
    read_losses,
    read_packed,
)
from ..run.store import instance_state, read_meta, read_regular, sha256_bytes
from ..tasks.names import TaskRef

__all__ = [
    "LOSSES",
    "LOSS_COLUMNS",
    "PACKED_SHA",
    "Packed",
    "_meta_lines",
    "pack",
    "packed_csv",
    "packed_metas",
    "packed_methods",
    "packed_paths",
    "packed_rows_sha",
    "read_losses",
    "read_packed",
    "unpack",
]


def _xz(data: bytes) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9)


def _encode(
    p: Packed, dataset: str, prototask: str, kept: tuple[str, ...] = LOSSES
) -> tuple[bytes, bytes]:
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
                    "case": np.asarray(df["case"]),
                    **{c: _float32(df[c]) for c in kept},
                }
            )
        )
    columns = [*LOSS_COLUMNS[:3], *kept]
    table = pd.concat(frames) if frames else pd.DataFrame(columns=columns)
    return _parquet(table, kept), _xz(("\n".join(lines) + "\n").encode())


def _parquet(table: pd.DataFrame, kept: tuple[str, ...] = LOSSES) -> bytes:
    pa, pq = _pyarrow()
    t = pa.table(
        {
            "task": pa.array(table["task"].astype(str), pa.string()),
            "instance": pa.array(table["instance"].to_numpy(np.int16)),
            "case": pa.array(table["case"].to_numpy(np.int32)),
            **{c: pa.array(table[c].to_numpy(np.float32)) for c in kept},
        }
    )
    buf = io.BytesIO()
    pq.write_table(
        t,
        buf,
        compression="zstd",
        compression_level=22,
        use_dictionary=["task"],
        use_byte_stream_split=list(kept),
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
        if state == "ok":
            # read through the one safe reader, and only the bytes whose sha256 meta.json
            # records (the file could have been replaced since its state was read)
            try:
                data = read_regular(d / "losses.csv")
            except OSError:
                continue
            if sha256_bytes(data) != meta.get("losses_sha256"):
                continue
            frame = pd.read_csv(io.BytesIO(data))
            out.losses[key] = {c: frame[c].to_numpy() for c in frame.columns}
        out.metas[key] = committed_meta(meta)
    return out


def committed_losses(
    losses_for: Callable[[str], tuple[str, ...]], dataset: str, prototask: str
) -> tuple[str, ...]:
    """The losses a study commits on a prototask, in the packed files' order."""
    wanted = losses_for(f"{dataset}/{prototask}")
    return tuple(c for c in LOSSES if c in wanted)


def pack(
    study_dir: Path,
    methods: Iterable[str],
    refs: Iterable[TaskRef],
    losses_for: Callable[[str], tuple[str, ...]] = lambda prototask: LOSSES,
) -> list[Path]:
    """Pack the working store's results of ``methods`` on the prototasks of ``refs`` into
    the committed files (merging with what is packed already; the working store wins),
    keeping the losses ``losses_for("dataset/prototask")`` names (the study's ``losses``).
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
            kept = committed_losses(losses_for, ds, pt)
            for k, meta in fresh.metas.items():
                packed = {f: v for f, v in old.metas.get(k, {}).items() if f != PACKED_SHA}
                if packed == meta and k in old.losses:
                    continue  # packed already; keep its rows
                old.metas[k] = meta
                old.losses.pop(k, None)
                if k in fresh.losses:
                    old.losses[k] = fresh.losses[k]
                    old.metas[k] = {**meta, PACKED_SHA: packed_rows_sha(fresh.losses[k], kept)}
            lb, mb = _encode(old, ds, pt, kept)
            for path, data in zip(packed_paths(study_dir, m, ds, pt), (lb, mb), strict=True):
                if not path.is_file() or path.read_bytes() != data:
                    write_file(path, data)
                    written.append(path)
    return written


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
