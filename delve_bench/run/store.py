"""The result store: ``results/<method>/<dataset>/<prototask>/std.<n>/<i>/``.

Each instance directory holds ``predictions.csv``, ``losses.csv`` (``case,S,A,L``, or
``case,Z,Q,L`` on a classification task) and ``meta.json``. Files are written to a temporary name and renamed; ``meta.json`` is
written last and records the sha256 of ``losses.csv``, so an instance is complete exactly
when its meta.json says ``ok`` and the checksum holds. A lock file per instance keeps two
``delve run`` processes from doing the same job.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DelveError
from ..tasks.names import TaskRef
from ..workspace import Workspace


def result_dir(ws: Workspace, method: str, ref: TaskRef, instance: int) -> Path:
    return ws.results / method / ref.dataset / ref.prototask / ref.name / str(instance)


_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one.

    Temporary file + rename survives a killed process. There is no fsync (it costs ~0.1 s a
    file on some disks); after a machine crash a torn losses.csv is caught by the checksum
    that meta.json records."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def csv_bytes(df: pd.DataFrame) -> bytes:
    """Deterministic CSV: shortest round-trip floats, empty cells for missing values."""
    buf = io.StringIO()
    df.to_csv(buf, index=False, na_rep="", lineterminator="\n", float_format=None)
    return buf.getvalue().encode()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_meta(d: Path) -> dict | None:
    """meta.json as a mapping; None when it is absent, unreadable, not JSON or not a JSON
    object (instance_state tells these apart: absent is missing, the rest corrupt)."""
    try:
        meta = json.loads((d / "meta.json").read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return meta if isinstance(meta, dict) else None


def instance_state(d: Path) -> str:
    """``ok``, ``failed``, ``corrupt`` (meta.json unreadable or not an object, an unknown
    status, predictions.csv or losses.csv missing, or the losses checksum wrong) or
    ``missing``. An instance unpacked from a study's committed files (meta.json has
    ``packed: true``, see :mod:`delve_bench.study.pack`) has losses but no predictions."""
    meta = read_meta(d)
    if meta is None:
        return "corrupt" if (d / "meta.json").exists() else "missing"
    status = meta.get("status")
    if status == "failed":
        return "failed"
    if status != "ok" or not (meta.get("packed") or (d / "predictions.csv").is_file()):
        return "corrupt"
    try:
        data = (d / "losses.csv").read_bytes()
    except OSError:
        return "corrupt"
    return "ok" if sha256_bytes(data) == meta.get("losses_sha256") else "corrupt"


def _proc_start(pid: int) -> str | None:
    """Start time of a live, non-zombie process (Linux /proc), '' where /proc is absent,
    None when the process is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        if not Path("/proc/self/stat").exists():  # no /proc: fall back to kill(pid, 0)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return None
            except PermissionError:
                pass
            return ""
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else fields[19]


class InstanceLock:
    """An exclusive lock file for one instance. It names the holder (host, pid, process start
    time); a lock whose holder is dead, a zombie, or a reused pid is taken over."""

    def __init__(self, d: Path):
        self.path = d / ".lock"
        self.held = False

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        pid = os.getpid()
        me = f"{socket.gethostname()} {pid} {_proc_start(pid) or '-'}"
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if self._stale():
                    try:
                        os.unlink(self.path)
                    except FileNotFoundError:
                        pass
                    continue
                return False
            with os.fdopen(fd, "w") as f:
                f.write(me)
            self.held = True
            return True
        return False

    def _stale(self) -> bool:
        try:
            host, pid, start = self.path.read_text().split()
        except FileNotFoundError:
            return True
        except (OSError, ValueError):  # being written right now, or its writer died mid-write
            try:
                return time.time() - self.path.stat().st_mtime > 10
            except FileNotFoundError:
                return True
        if host != socket.gethostname():
            return False
        now = _proc_start(int(pid))
        return now is None or (start != "-" and now != "" and now != start)

    def release(self) -> None:
        if self.held:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            self.held = False


@dataclass(frozen=True)
class InstanceResult:
    """The per-case losses of one finished instance (cases in test-set order)."""

    instance: int
    cases: np.ndarray
    losses: dict[str, np.ndarray | None]
    meta: dict


def read_instance(
    d: Path, test_cases: np.ndarray, losses: tuple[str, ...] = ("S", "A", "L")
) -> InstanceResult:
    """Read and check one complete instance; errors name the file and what is wrong.
    ``losses`` are the task's (S, A, L for regression, Z, Q, L for classification)."""
    meta = read_meta(d) or {}
    path = d / "losses.csv"
    try:
        df = pd.read_csv(path, dtype={"case": np.int64} | dict.fromkeys(losses, float))
    except (ValueError, TypeError, OverflowError, UnicodeDecodeError, pd.errors.ParserError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise DelveError(f"{path}: malformed ({msg})") from None
    if list(df.columns) != ["case", *losses]:
        raise DelveError(f"{path}: header must be case,{','.join(losses)}")
    cases = df["case"].to_numpy()
    if len(cases) != len(test_cases) or not np.array_equal(np.sort(cases), np.sort(test_cases)):
        raise DelveError(
            f"{path}: its cases are not the test set of this instance "
            "(the task's splits changed? rerun with --force)"
        )
    pos = pd.Series(np.arange(len(cases)), index=cases).loc[test_cases].to_numpy()
    out: dict[str, np.ndarray | None] = {}
    for loss in losses:
        col = df[loss].to_numpy(dtype=float)[pos]
        out[loss] = None if np.isnan(col).all() else col
    return InstanceResult(int(d.name), np.asarray(test_cases), out, meta)


def read_task_results(
    ws: Workspace, method: str, ref: TaskRef, layout
) -> tuple[list[InstanceResult], dict]:
    """All complete instances of ``method`` on a task, and a count of the others by state."""
    results, states = [], {"missing": [], "failed": [], "corrupt": []}
    for inst in layout.instances:
        d = result_dir(ws, method, ref, inst.index)
        state = instance_state(d)
        if state == "ok":
            results.append(read_instance(d, inst.test, layout.proto.losses))
        else:
            states[state].append(inst.index)
    return results, states
