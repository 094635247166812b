"""The result store: ``results/<method>/<dataset>/<prototask>/std.<n>/<i>/``.

Each instance directory holds ``predictions.csv``, ``losses.csv`` (``case,S,A,L``, or
``case,Z,Q,L`` on a classification task) and ``meta.json``; ``meta.json`` records the
sha256 of ``losses.csv``, so an instance is complete exactly when its meta.json says
``ok`` and the checksum holds (and ``predictions.csv`` is there).

A job writes its files into a staging directory ``.<i>.new`` beside the instance
directory ``<i>``, meta.json last, and then commits it: renamed into place when there is
no result yet, or swapped with the old directory in one atomic ``renameat2`` exchange
(Linux; elsewhere two renames, undone by :func:`recover` if a kill falls between them). So
an earlier result, stale or forced, stays readable until the new one is complete. A lock
file ``.<i>.lock`` beside the instance keeps two ``delve run`` processes from doing the
same job.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..defaults import REGRESSION_LOSSES
from ..errors import DelveError
from ..tasks.names import TaskRef
from ..workspace import WorkspaceDirs


def task_dir(ws: WorkspaceDirs, method: str, ref: TaskRef) -> Path:
    """The folder of the instance directories of ``method`` on task ``ref``."""
    return ws.results / method / ref.dataset / ref.prototask / ref.name


def result_dir(ws: WorkspaceDirs, method: str, ref: TaskRef, instance: int) -> Path:
    return task_dir(ws, method, ref) / str(instance)


def staging_dir(d: Path) -> Path:
    """Where a job writes the files of instance directory ``d`` before they are committed."""
    return d.parent / f".{d.name}.new"


def _old_dir(d: Path) -> Path:
    return d.parent / f".{d.name}.old"


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux renameat2); False where unsupported."""
    try:
        import ctypes

        f = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    f.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return f(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0


class StorageError(OSError):
    """The result store could not be written or read (a full disk, a read-only or vanished
    directory): a failure of the machine, not of the method, never recorded as one."""


class storage:  # noqa: N801 - a context manager used as ``with storage():``
    """Turn an OSError of the store's own file operations into a :class:`StorageError`."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, e, tb) -> None:
        if isinstance(e, OSError) and not isinstance(e, StorageError):
            raise StorageError(e.errno, e.strerror or str(e), e.filename) from e


def remove_tree(p: Path) -> None:
    """Remove directory ``p``; a symbolic link in its place is unlinked, never followed
    (a link would make rmtree fail and so wedge every later run of the instance)."""
    import shutil

    if p.is_symlink():
        p.unlink()
    elif p.exists():
        shutil.rmtree(p)


def commit(stage: Path, d: Path) -> None:
    """Make the complete staging directory ``stage`` the instance directory ``d``,
    replacing an earlier result in one step. An instance directory that is a symbolic link
    is replaced by the real directory (the link's target is left alone)."""
    with storage():
        if not d.exists() and not d.is_symlink():
            os.rename(stage, d)
        elif _exchange(stage, d):
            remove_tree(stage)  # now holds the earlier result (or the link)
        else:  # two renames; recover() undoes the first if a kill falls between them
            old = _old_dir(d)
            os.rename(d, old)
            os.rename(stage, d)
            remove_tree(old)


def recover(d: Path) -> None:
    """Clean up after a job that was killed: bring back an earlier result moved aside by a
    commit interrupted half-way, drop leftovers and an unfinished staging directory.
    Call it while holding the instance's lock."""
    with storage():
        old = _old_dir(d)
        if old.exists() or old.is_symlink():
            if d.exists() or d.is_symlink():
                remove_tree(old)
            else:
                os.rename(old, d)
        remove_tree(staging_dir(d))


_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one.

    Temporary file + rename survives a killed process. There is no fsync (it costs ~0.1 s a
    file on some disks); after a machine crash a torn losses.csv is caught by the checksum
    that meta.json records. An OSError is raised as a :class:`StorageError`."""
    with storage():
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


#: a table: column name -> 1-D array, in column order (a DataFrame is one too)
Table = Mapping[str, Any]


def csv_bytes(table: Table) -> bytes:
    """Deterministic CSV: shortest round-trip floats, empty cells for missing values.

    The bytes pandas' ``to_csv(index=False, na_rep="", lineterminator="\\n")`` writes
    (numbers as numpy's ``astype(str)`` spells them, text fields quoted as Python's csv
    module quotes them), made with numpy alone: a job writes two tables, and importing
    pandas for that was most of a worker's start-up."""
    names = list(table.keys())
    cells = [_cells(np.asarray(table[name])) for name in names]
    rows = cells[0] if cells else np.array([], dtype=str)
    for column in cells[1:]:
        rows = np.char.add(np.char.add(rows, ","), column)
    lines = [",".join(_quoted([str(name) for name in names]).tolist()), *rows.tolist()]
    return ("\n".join(lines) + "\n").encode()


def _cells(values: np.ndarray) -> np.ndarray:
    """A column's CSV fields (a 1-D str array)."""
    if values.dtype.kind == "f":
        text = values.astype(str)
        return np.where(np.isnan(values), "", text)
    if values.dtype.kind in "iub":
        return values.astype(str)
    text = values.astype(str)
    if values.dtype.kind == "O":  # Python objects (a DataFrame's text): None and NaN are missing
        missing = np.equal(values, np.array(None)) | np.not_equal(values, values)  # NaN != NaN
        text = np.where(missing.astype(bool), "", text)
    labels, where = np.unique(text, return_inverse=True)  # a few class names, many cases
    return _quoted(labels.tolist())[where]


def _quoted(fields: list[str]) -> np.ndarray:
    """Each field as Python's csv module writes it (QUOTE_MINIMAL, as pandas uses it)."""
    import csv

    out = []
    for field in fields:  # once per distinct text: column names, class names
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow([field, ""])
        out.append(buf.getvalue()[:-2])
    return np.array(out, dtype=str)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


#: the largest meta.json read (a real one is a few KB)
MAX_META_BYTES = 16 * 2**20


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file (of at most ``limit`` bytes).

    A FIFO, a device (``/dev/zero``) or a socket in a result's place would hang a reader
    or fill its memory: it raises OSError instead, as an unreadable file does."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's open must not block either
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if limit is not None and st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read()
    finally:
        os.close(fd)


def read_meta(d: Path) -> dict | None:
    """meta.json as a mapping; None when it is absent, unreadable, not a regular file, not
    JSON or not a JSON object (instance_state tells these apart: absent is missing, the
    rest corrupt)."""
    try:
        meta = json.loads(read_regular(d / "meta.json", MAX_META_BYTES))
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
        data = read_regular(d / "losses.csv")
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


def lock_path(d: Path) -> Path:
    """The lock file of instance directory ``d`` (beside it: commits replace ``d``)."""
    return d.parent / f".{d.name}.lock"


#: seconds a lock stays valid without a refresh from its holder (``DELVE_LOCK_LEASE``)
LEASE_SECONDS = 300.0


def lease_seconds() -> float:
    """The lease a new lock gets: ``DELVE_LOCK_LEASE`` seconds (a finite number > 0), else
    :data:`LEASE_SECONDS`."""
    raw = os.environ.get("DELVE_LOCK_LEASE")
    try:
        v = float(raw) if raw else LEASE_SECONDS
    except ValueError:
        raise DelveError(f"DELVE_LOCK_LEASE={raw!r}: not a number of seconds") from None
    if not (v > 0 and v < float("inf")):
        raise DelveError(f"DELVE_LOCK_LEASE={raw!r}: must be a finite number of seconds > 0")
    return v


@dataclass(frozen=True)
class LockInfo:
    """What a lock file says about its holder, and whether it still holds.

    ``age``: seconds since the holder last refreshed the lease (the file's mtime);
    ``lease``: the holder's lease in seconds, NaN where the file's lease is not a finite
    number (delve never writes one: the file is damaged or hand-made, and such a lease has
    expired, or it would never end); ``alive``: True or False where the holder runs on
    this host (its pid checked), None on another host; ``expired``: the lease ran out
    (``age`` > ``lease``); ``ident``: the file's (inode, mtime in ns) when it was read,
    which a takeover checks it still replaces."""

    host: str
    pid: int | None
    age: float
    lease: float
    alive: bool | None
    ident: tuple[int, int] | None = None

    @property
    def expired(self) -> bool:
        return not self.age <= self.lease  # a NaN lease has expired

    @property
    def held(self) -> bool:
        """The lock still keeps other runs out: its holder runs here, or (another host) its
        lease has not expired."""
        return bool(self.alive) if self.alive is not None else not self.expired

    def describe(self) -> str:
        who = f"{self.host} pid {self.pid if self.pid is not None else '?'}"
        if self.alive is False:
            return f"{who} (gone; refreshed {self.age:.0f} s ago)"
        state = "expired" if self.expired else "held"
        lease = f"lease {self.lease:g} s" if self.lease == self.lease else "no valid lease"
        return f"{state} by {who}, refreshed {self.age:.0f} s ago ({lease})"


#: the largest lock file read (a real one is one short line)
MAX_LOCK_BYTES = 4096


def read_lock(path: Path) -> LockInfo | None:
    """The lock file at ``path`` (None when there is none). A file being written right now
    or left half-written, or not a regular file, reads as held by an unknown holder until
    a short lease expires; a lease that is not a finite number has expired."""
    try:
        st = path.lstat()  # the file itself: a takeover replaces that, never a link's target
    except FileNotFoundError:
        return None
    except OSError:
        st = None
    try:
        # the one safe reader: a FIFO or /dev/zero in a lock's place is not waited on
        text = read_regular(path, MAX_LOCK_BYTES).decode(errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        text = ""
    age = max(0.0, time.time() - st.st_mtime) if st is not None else 0.0
    ident = (st.st_ino, st.st_mtime_ns) if st is not None else None
    parts = text.split()
    lease = LEASE_SECONDS
    if len(parts) >= 4:
        try:
            lease = float(parts[3])
        except ValueError:
            lease = float("nan")
        if not math.isfinite(lease):
            lease = float("nan")
    if len(parts) < 3 or not parts[1].isdigit():
        # unreadable: trust it for a short while (its writer may be writing it now)
        lease = min(lease, 10.0) if lease == lease else lease
        return LockInfo(host="?", pid=None, age=age, lease=lease, alive=None, ident=ident)
    host, pid, start = parts[0], int(parts[1]), parts[2]
    alive = None
    if host == socket.gethostname():
        now = _proc_start(pid)
        alive = not (now is None or (start != "-" and now != "" and now != start))
    return LockInfo(host=host, pid=pid, age=age, lease=lease, alive=alive, ident=ident)


#: seconds after which a takeover claim whose run never finished the takeover (it died
#: between its two steps, which take microseconds) is passed over
CLAIM_STUCK_SECONDS = 30.0


class InstanceLock:
    """An exclusive lock file for one instance, with a lease.

    The file names the holder (host, pid, process start time, lease seconds). While it is
    held, a thread of the holder refreshes the lease (touches the file) every sixth of the
    lease. It is taken over when its holder on this host is dead, a zombie or a reused
    pid, or -- from any host, e.g. a crashed node of a shared file system -- when the lease
    has not been refreshed for longer than the lease: that takeover is said on stderr.

    **Takeover is atomic.** Reading a dead lock and then replacing it is two steps: two
    runs that both read it could both replace it (the second removing the first's new
    lock). So a taker first *claims* the very file it read: a hard link named after its
    inode and mtime (``.N.lock.<inode>-<mtime_ns>.<k>``), which ``link(2)`` creates for one
    run only, also on NFS. The claimant checks that the link is the file it judged dead
    (not a newer lock, nor one refreshed since) and then puts its own lock in place with
    one ``rename(2)``; the lock path never stands empty, so no third run can slip in with
    a plain create. A claim left by a run that died between the two steps is passed over
    after :data:`CLAIM_STUCK_SECONDS` (the next ``k``)."""

    def __init__(self, d: Path):
        self.path = lock_path(d)
        self.held = False
        self.took_over: str | None = None  # whose expired lock this one replaced
        self._stop: threading.Event | None = None
        self._ino: int | None = None  # the inode of the lock file this lock wrote

    def _line(self, lease: float) -> str:
        pid = os.getpid()
        return f"{socket.gethostname()} {pid} {_proc_start(pid) or '-'} {lease:g}"

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lease = lease_seconds()
        me = self._line(lease)
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                info = read_lock(self.path)
                if info is None:
                    continue  # released meanwhile: create it
                if info.held or info.ident is None:
                    return False
                took = self._take_over(info.ident, me)
                if took is None:
                    continue  # gone meanwhile
                if not took:
                    return False  # another run took it over first, or its holder is back
                if info.alive is None and info.host != "?":
                    self.took_over = info.describe()
                    print(
                        f"delve: taking over the lock {self.path}: {self.took_over}",
                        file=sys.stderr,
                        flush=True,
                    )
                break
            with os.fdopen(fd, "w") as f:
                f.write(me)
                self._ino = os.fstat(f.fileno()).st_ino
            break
        else:
            return False
        self.held = True
        self._start_refresh(lease)
        return True

    def _take_over(self, ident: tuple[int, int], me: str) -> bool | None:
        """Replace the dead lock file ``ident`` (inode, mtime_ns) by this run's, atomically
        (see the class doc): True when done, False when another run claimed it or the
        file changed since it was read, None when it is gone."""
        ino, mtime = ident
        for k in range(8):
            claim = self.path.with_name(f"{self.path.name}.{ino}-{mtime}.{k}")
            try:
                os.link(self.path, claim, follow_symlinks=False)
            except FileNotFoundError:
                return None
            except FileExistsError:
                try:
                    stuck = time.time() - os.lstat(claim).st_ctime > CLAIM_STUCK_SECONDS
                except FileNotFoundError:
                    return False  # its claimant finished: the lock is no longer the dead one
                if stuck:
                    continue
                return False
            try:
                st = os.lstat(claim)
                if (st.st_ino, st.st_mtime_ns) != (ino, mtime):
                    return False  # the path held a newer lock, or a refreshed one
                fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f"{self.path.name}.")
                try:
                    with os.fdopen(fd, "w") as f:
                        f.write(me)
                        self._ino = os.fstat(f.fileno()).st_ino
                    os.chmod(tmp, 0o644)
                    now = os.lstat(self.path)  # still the dead one (narrows a long stall)
                    if (now.st_ino, now.st_mtime_ns) != (ino, mtime):
                        return False
                    os.rename(tmp, self.path)
                finally:
                    if os.path.lexists(tmp):
                        os.unlink(tmp)
                for j in range(k):  # claims of runs that died mid-way: nothing holds them now
                    _unlink_quietly(claim.with_name(f"{self.path.name}.{ino}-{mtime}.{j}"))
                return True
            except FileNotFoundError:
                return None
            finally:
                _unlink_quietly(claim)
        return False

    def _mine(self) -> bool:
        """The lock file at the path is the one this lock wrote (not a takeover's)."""
        try:
            return self._ino is not None and os.lstat(self.path).st_ino == self._ino
        except OSError:
            return False

    def _start_refresh(self, lease: float) -> None:
        stop = self._stop = threading.Event()
        path = self.path

        def refresh() -> None:
            while not stop.wait(lease / 6):
                if not self._mine():
                    return  # taken over (this run stalled past its lease), or removed
                try:
                    os.utime(path)
                except OSError:  # gone (the directory removed): nothing to keep
                    return

        threading.Thread(target=refresh, name="delve-lock-lease", daemon=True).start()

    def holder_gone(self) -> bool:
        """True when the lock no longer keeps other runs out (its holder on this host is
        gone, or its lease expired)."""
        info = read_lock(self.path)
        return info is None or not info.held

    def release(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        if self.held:
            if self._mine():  # never another run's lock that took this one over
                _unlink_quietly(self.path)
            self.held = False


def _unlink_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def task_locks(ws: WorkspaceDirs, method: str, ref: TaskRef) -> dict[int, LockInfo]:
    """The lock files of ``method``'s instances on a task: instance -> holder."""
    base = task_dir(ws, method, ref)
    out = {}
    for p in base.glob(".*.lock"):
        idx = p.name[1 : -len(".lock")]
        if idx.isdigit() and (info := read_lock(p)) is not None:
            out[int(idx)] = info
    return out


@dataclass(frozen=True)
class InstanceResult:
    """The per-case losses of one finished instance (cases in test-set order)."""

    instance: int
    cases: np.ndarray
    losses: dict[str, np.ndarray | None]
    meta: dict


def read_instance(
    d: Path, test_cases: np.ndarray, losses: tuple[str, ...] = REGRESSION_LOSSES
) -> InstanceResult:
    """Read and check one complete instance; errors name the file and what is wrong.
    ``losses`` are the task's (S, A, L for regression, Z, Q, L for classification)."""
    meta = read_meta(d) or {}
    path = d / "losses.csv"
    case_text, columns = _losses_table(path, losses)
    return instance_result(str(path), int(d.name), case_text, columns, test_cases, losses, meta)


def instance_result(
    where: str,
    instance: int,
    cases: np.ndarray,
    columns: dict[str, np.ndarray],
    test_cases: np.ndarray,
    losses: tuple[str, ...],
    meta: dict,
) -> InstanceResult:
    """One instance's losses (case numbers as text or numbers, shape (t,); each loss
    column as floats, shape (t,)), checked and put in test-set order. ``where`` names it
    in errors (a file, or a study's packed file and instance)."""
    path = Path(where)
    cases = _checked_losses(path, cases, columns)
    if len(cases) != len(test_cases) or not np.array_equal(np.sort(cases), np.sort(test_cases)):
        raise DelveError(
            f"{where}: its cases are not the test set of this instance "
            "(the task's splits changed? rerun with --force)"
        )
    order = np.argsort(cases, kind="stable")
    pos = order[np.searchsorted(cases[order], test_cases)]  # each test case's row
    out: dict[str, np.ndarray | None] = {}
    for loss in losses:
        col = columns[loss][pos]
        out[loss] = None if np.isnan(col).all() else col
    return InstanceResult(instance, np.asarray(test_cases), out, meta)


def _losses_table(path: Path, losses: tuple[str, ...]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A losses.csv as its case column (text, shape (t,)) and its loss columns (floats,
    NaN for an empty cell, each of shape (t,)). The writer writes plain ASCII CSV
    (:func:`csv_bytes`), read here with numpy alone: pandas would cost an analysis command
    half a second of imports. Anything else is one error naming the file."""
    import warnings

    def malformed(why: object) -> DelveError:
        return DelveError(f"{path}: malformed ({str(why).splitlines()[0] if str(why) else why})")

    try:
        data = read_regular(path)  # a FIFO or a device in its place must not hang us
    except OSError as e:
        raise DelveError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        lines = data.decode("ascii").splitlines()
    except UnicodeDecodeError as e:
        raise malformed(e) from None
    if not lines or lines[0].split(",") != ["case", *losses]:
        raise DelveError(f"{path}: header must be case,{','.join(losses)}")
    width = len(losses) + 1
    plain = _plain_table(data, losses)
    if plain is not None:
        return plain
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a file without rows is caught below
            cells = np.loadtxt(
                lines[1:], dtype=str, delimiter=",", comments=None, ndmin=2, quotechar=None
            )
    except ValueError as e:  # rows of different lengths
        raise malformed(e) from None
    if cells.size == 0:
        cells = cells.reshape(0, width)
    if cells.shape[1] != width:
        raise malformed(f"{cells.shape[1]} fields per line, expected {width}")
    columns = {}
    for j, loss in enumerate(losses, 1):
        text = cells[:, j]
        try:
            columns[loss] = np.where(text == "", "nan", text).astype(float)
        except ValueError as e:  # not a number
            raise malformed(e) from None
    return cells[:, 0], columns


#: the bytes of a losses file's rows as the writer makes them: digits, signs, points,
#: exponents, commas and newlines
_PLAIN_BYTES = b"0123456789.,-+e\n"


def _plain_table(
    data: bytes, losses: tuple[str, ...]
) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """:func:`_losses_table`'s answer for a file whose rows are as the writer makes them
    (only :data:`_PLAIN_BYTES` after the header line, a field per column on every line,
    each loss column all numbers or all empty), or None for any other file, which the
    general reader then reads or refuses. The general reader spends most of its time in
    arrays of text (with the checks that follow, 8.6 ms for 1024 cases against 3.4 here,
    on a busy 2-core machine), and an analysis reads a file per instance."""
    start = data.find(b"\n") + 1
    if not start or data[start:].translate(None, _PLAIN_BYTES) or not data.endswith(b"\n"):
        return None
    raw = np.frombuffer(data, dtype=np.uint8)[start - 1 :]
    ends = np.flatnonzero(raw == ord("\n"))  # the header's end, then each row's
    commas = np.searchsorted(np.flatnonzero(raw == ord(",")), ends)  # commas before each end
    if np.any(np.diff(commas) != len(losses)):
        return None  # a row of another width (an empty line too, which the other reader skips)
    body = data[start:-1].decode("ascii")
    fields = body.replace("\n", ",").split(",") if body else []
    width = len(losses) + 1
    columns = {}
    for j, loss in enumerate(losses, 1):
        text = fields[j::width]
        if not any(text):  # the method has no such loss
            columns[loss] = np.full(len(text), np.nan)
            continue
        try:  # float() and numpy's cast from text read these bytes alike
            columns[loss] = np.array(list(map(float, text)), dtype=float)
        except ValueError:  # an empty cell among numbers, or not a number
            return None
    return np.array(fields[0::width], dtype=str), columns


#: losses that are never negative (Q is a sum of squares minus terms that cancel: it may
#: round to a hair below 0)
_NON_NEGATIVE = {"S": 0.0, "A": 0.0, "Z": 0.0, "Q": -1e-9}


def _checked_losses(path: Path, cases: np.ndarray, columns: dict[str, np.ndarray]) -> np.ndarray:
    """The case numbers of a losses table (:func:`_losses_table`; ``cases`` as text, or as
    the numbers of a packed file), after checking what the writer guarantees: case
    numbers are non-negative integers (of at most 18 digits); a loss column is empty on
    every line (the method has no such loss) or finite on every line; S, A, Z and Q are
    not negative. A violation is one error naming the file, its line and the value."""
    if cases.dtype.kind in "iu" and np.all((cases >= 0) & (cases < 10**18)):
        numbers = cases.astype(np.int64)  # what their text would pass, without the text
    else:
        case_text = cases.astype(str)
        length = np.char.str_len(case_text)
        ok = np.char.isdigit(case_text) & (length >= 1) & (length <= 18)
        if not ok.all():
            k = int(np.argmin(ok))
            v = str(case_text[k])
            shown = repr(v) if v else "an empty (or NaN) cell"
            raise DelveError(f"{path}, line {k + 2}: {shown} is not a case number")
        numbers = case_text.astype(np.int64)
    for loss, col in columns.items():
        nan = np.isnan(col)
        if nan.all():
            continue
        bad = ~np.isfinite(col) | (col < _NON_NEGATIVE.get(loss, -np.inf))
        if bad.any():
            k = int(np.argmax(bad))
            what = "missing" if nan[k] else format(float(col[k]), "g")
            raise DelveError(
                f"{path}, line {k + 2}: {loss} is {what}; a loss is a finite"
                + (" non-negative" if loss in _NON_NEGATIVE else "")
                + " number on every line (or empty on every line)"
            )
    return numbers


@dataclass(frozen=True)
class InstanceStatus:
    """The state of one instance of a method on a task, as the analyses see it.

    ``state``: ``ok``, ``stale`` (complete, but made under another fingerprint than the
    reference; ``stale`` names the fields and ``detail`` says how they differ),
    ``failed``, ``corrupt`` or ``missing``."""

    index: int
    state: str
    meta: dict | None = None
    stale: tuple[str, ...] = ()
    detail: str = ""


def _newest(metas: list[dict]) -> dict | None:
    dated = [m for m in metas if isinstance(m.get("fingerprint"), dict)]

    def when(m: dict) -> tuple:
        t = m.get("end_time")
        return (str(m.get("end", "")), t if isinstance(t, int | float) else 0.0)

    return max(dated, key=when) if dated else None


def _defaulted(fingerprint) -> dict:
    """The fields of ``fingerprint`` that are recorded only when not their default, with
    its own values (provenance.FIELD_DEFAULTS)."""
    from . import provenance as pv

    fp = fingerprint if isinstance(fingerprint, dict) else {}
    return {k: pv.field_value(fp, k) for k in pv.FIELD_DEFAULTS}


def _recorded(ws: WorkspaceDirs, method: str, ref: TaskRef, layout) -> list[tuple[int, str, dict]]:
    """(instance, state, meta) of every instance of the task as recorded: in the
    workspace's store, or packed by the reference study (:mod:`.sources`)."""
    sd = _study_dir(ws, method)
    out = []
    if sd is None:
        for inst in layout.instances:
            d = result_dir(ws, method, ref, inst.index)
            state = instance_state(d)
            meta = (read_meta(d) or {}) if state in ("ok", "failed") else {}
            out.append((inst.index, state, meta))
        return out
    p = _packed(sd, method, ref)
    for inst in layout.instances:
        key = (ref.size, inst.index)
        rec = p.metas.get(key)
        if rec is None:
            out.append((inst.index, "missing", {}))
        elif rec.get("status") == "failed":
            out.append((inst.index, "failed", rec))
        elif rec.get("status") == "ok" and key in p.losses:
            out.append((inst.index, "ok", rec))
        else:  # a meta line saying ok without loss rows: the packed file is damaged
            out.append((inst.index, "corrupt", rec))
    return out


#: (workspace, method, task, id of the layout) -> (the layout, what task_instances found),
#: and where a method's results are read from and its packed files
#: (:func:`_study_dir`, :func:`_packed`), inside :func:`one_reading` only
_READING: ContextVar[dict | None] = ContextVar("delve_bench_one_reading", default=None)


@contextmanager
def one_reading() -> Iterator[None]:
    """Within it, :func:`task_instances` reads the instances of a method on a task once
    (and where a method's results are read from, and its packed files, are looked up once).

    One command asks for the same instances more than once (a compare first finds the
    tasks both methods finished, then reads their losses; each read checks every
    instance and its fingerprint). The memo lives as long as the context, so a long-lived
    process (a notebook, a server) sees the files as they are at each command, never a
    stale reading from an earlier one. Nested uses share the outermost memo."""
    if _READING.get() is not None:
        yield
        return
    token = _READING.set({})
    try:
        yield
    finally:
        _READING.reset(token)


def _once(key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, remembered under ``key`` for the rest of the :func:`one_reading`
    it is asked in (computed afresh outside one)."""
    memo = _READING.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _study_dir(ws: WorkspaceDirs, method: str) -> Path | None:
    """:func:`.sources.study_dir_of`, asked once per :func:`one_reading` (it looks for the
    method's own results on disk, and a compare reads each of 1180 instances apart)."""
    from .sources import study_dir_of

    return _once(("study dir", ws, method), lambda: study_dir_of(ws, method))


def _packed(study_dir: Path, method: str, ref: TaskRef):
    """The reference study's packed results of ``method`` on ``ref``'s prototask
    (:func:`.sources.packed`, which reads a file version once), looked up once per
    :func:`one_reading` (each look-up checks both files' versions on disk)."""
    from .sources import packed

    return _once(
        ("packed", study_dir, method, ref.dataset, ref.prototask),
        lambda: packed(study_dir, method, ref.dataset, ref.prototask),
    )


def task_instances(ws: WorkspaceDirs, method: str, ref: TaskRef, layout) -> list[InstanceStatus]:
    """Every instance of ``method`` on a task with its state, stale ones marked
    (read once per :func:`one_reading`).

    The one rule for ``status``, ``stats``, ``compare`` and ``report``
    (docs/provenance.md): a complete instance is used only if its fingerprint equals the
    reference -- the method's and task's fields as the current files define them, the
    budget fields of the newest complete instance that matches them. The others are
    ``stale``: never mixed in, always shown. With a reference study, the workspace's own
    results must have been made on the study's task (:func:`.sources.check_same_task`)."""
    # the layout's id, not its content (it holds arrays): the entry keeps the layout
    # alive, so the id is not reused while the entry lives
    _, found = _once(
        (ws, method, ref, id(layout)), lambda: (layout, _task_instances(ws, method, ref, layout))
    )
    return list(found)


def _task_instances(ws: WorkspaceDirs, method: str, ref: TaskRef, layout) -> list[InstanceStatus]:
    from ..errors import DelveError
    from ..methods.registry import method_spec
    from . import provenance as pv
    from .sources import check_same_task

    try:
        method_part: dict = pv.method_fields(method_spec(ws, method))
    except DelveError:  # the method's YAML is gone: compare only what can be
        method_part = {}
    out: list[InstanceStatus] = []
    complete: list[tuple[int, dict, dict]] = []  # (position, meta, reference without budget)
    shared: dict | None = None  # the prototask's fields, read at the first complete instance
    for index, state, meta in _recorded(ws, method, ref, layout):
        if state != "ok":
            out.append(InstanceStatus(index, state, meta if state == "failed" else None))
            continue
        shared = shared or pv.prototask_fields(ws, layout.proto)
        reference = method_part | pv.task_fields(ws, layout.proto, layout.size, index, shared)
        complete.append((len(out), meta, reference))
        out.append(InstanceStatus(index, "ok", meta))
    if ws.reference is not None and _study_dir(ws, method) is None:
        check_same_task(
            ws, method, ref, {out[i].index: m.get("fingerprint") for i, m, _ in complete}
        )
    # which instances match the files; the budget fields (a defaulted one included) are
    # the newest matching instance's, so they are not compared here
    matching = [
        m
        for _, m, r in complete
        if not pv.stale_fields(m.get("fingerprint"), r | _defaulted(m.get("fingerprint")))
    ]
    newest = _newest(matching)
    budget = (
        {k: pv.field_value(newest["fingerprint"], k) for k in pv.BUDGET_FIELDS} if newest else {}
    )
    for pos, meta, reference in complete:
        reference = reference | budget
        fields = pv.stale_fields(meta.get("fingerprint"), reference)
        if fields:
            detail = pv.describe_difference(meta.get("fingerprint"), reference, fields)
            out[pos] = InstanceStatus(out[pos].index, "stale", meta, tuple(fields), detail)
    return out


def read_task_results(
    ws: WorkspaceDirs, method: str, ref: TaskRef, layout
) -> tuple[list[InstanceResult], dict]:
    """The complete, current instances of ``method`` on a task (:func:`task_instances`),
    and the others by state: ``missing``, ``failed``, ``corrupt``, ``stale``."""
    results: list[InstanceResult] = []
    states: dict[str, list[int]] = {"missing": [], "failed": [], "corrupt": [], "stale": []}
    for st in task_instances(ws, method, ref, layout):
        if st.state != "ok":
            states[st.state].append(st.index)
        else:
            results.append(read_recorded(ws, method, ref, layout, st))
    return results, states


def read_recorded(ws: WorkspaceDirs, method: str, ref: TaskRef, layout, st: InstanceStatus):
    """The losses of one complete instance (``st`` from :func:`task_instances`) from where
    it is recorded: the workspace's store, or the reference study's packed files
    (:mod:`.sources`)."""
    test = next(inst.test for inst in layout.instances if inst.index == st.index)
    losses = tuple(layout.proto.losses)
    sd = _study_dir(ws, method)
    if sd is None:
        return read_instance(result_dir(ws, method, ref, st.index), test, losses)
    # packed columns are S, A, L (run.packed.LOSSES): the task's losses in that order; the rows are checked
    # against the hash their meta line records before they are used
    rows = _packed(sd, method, ref).rows((ref.size, st.index))
    columns = {
        loss: np.asarray(rows[col], dtype=float)
        for loss, col in zip(losses, REGRESSION_LOSSES, strict=True)
    }
    study = ws.reference.name if ws.reference else "?"
    where = f"study {study}: {method} on {ref.full_name} #{st.index}"
    return instance_result(where, st.index, rows["case"], columns, test, losses, st.meta or {})


def stale_note(ws: WorkspaceDirs, method: str, ref: TaskRef, layout) -> str:
    """'' or one line saying which instances are stale and which field differs."""
    stale = [s for s in task_instances(ws, method, ref, layout) if s.state == "stale"]
    if not stale:
        return ""
    fields = sorted({f for s in stale for f in s.stale})
    return (
        f"{method} on {ref.full_name}: {len(stale)} stale instance(s) left out "
        f"({' '.join(str(s.index) for s in stale)}: {', '.join(fields)} differ); "
        "`delve status` shows them, `delve run` redoes them"
    )
