"""Task instances: the committed index files, made from Random-order as DELVE 1.1 did.

DELVE's own prototasks (``instances: delve``) take the cases in data-file order
(``order: retain``, DELVE's kin, pumadyn, bank and abalone files) or in DELVE's own shipped
Random-order (boston), so their instances are exactly the ones DELVE made.

``delve gen`` derives the instances from Random-order (:func:`derive_layout`): its first T
cases are the test pool; the rest are cut into consecutive training blocks of n cases.
K = min(whole blocks, maximum-number-of-instances); training set i = block i.
Hierarchical: test set i = i-th block of floor(T/K) cases of the pool; common (2-way):
every instance uses the whole pool. Instances are numbered from 0.

The index files ``<prototask>/std.<n>/{train,test}.<i>`` it writes (0-based case numbers,
one a line) are the contract: runs, statistics and reports read them
(:func:`task_layout`) and verify them on every load -- cases in range, no duplicates,
training sets disjoint from each other and from the test sets, test sets disjoint
(hierarchical) or one common set (2-way), sizes as the prototask declares -- and any
failure is one error naming the file.

Resampled and fixed prototasks take their instances from a published splits file instead
(one line per realisation, ``train: i1 i2 ... | test: j1 j2 ...``, 0-based case numbers),
checked against its sha256 on every load: realisation k is instance k-1, in the file's
order, at most maximum-number-of-instances of them. Their training sets may overlap;
within an instance training and test cases are still disjoint.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import DelveError
from ..rng import random_order
from ..workspace import WorkspaceDirs
from .spec import SPLIT_DESIGNS, PrototaskSpec


@dataclass(frozen=True)
class Instance:
    """One training set and its test set, as 0-based case numbers into the dataset."""

    index: int
    train: np.ndarray
    test: np.ndarray


@dataclass(frozen=True)
class TaskLayout:
    """A task (``std.<n>``) of a prototask with its instances."""

    proto: PrototaskSpec
    size: int
    instances: tuple[Instance, ...]

    @property
    def name(self) -> str:
        return f"std.{self.size}"

    @property
    def full_name(self) -> str:
        return f"{self.proto.dataset}/{self.proto.name}/std.{self.size}"

    @property
    def design(self) -> str:
        """The design the statistics use: the prototask's, except that a DELVE task with a
        single instance (one training set, e.g. the hwang std.8192 tasks, whose 16384 cases
        make one training and one test set of 8192) is analysed as the fixed design: with
        one training set nothing can be said about training-set variation, so the paired
        t-test runs over the test cases (Barrio et al. 2009 tested "on the test sets
        averages")."""
        d = self.proto.design
        if d not in SPLIT_DESIGNS and len(self.instances) == 1:
            return "fixed"
        return d

    @property
    def test_size(self) -> int:
        return len(self.instances[0].test)


def kept_cases(ws: WorkspaceDirs, proto: PrototaskSpec) -> np.ndarray:
    """0-based dataset case numbers the prototask may use, in file order."""
    from ..data import dataset_spec, load_dataset

    if proto.cases == "all":
        return np.arange(dataset_spec(ws, proto.dataset).cases)
    if proto.cases == "no missing":
        values = load_dataset(ws, proto.dataset).values
        cols = list(proto.inputs) + list(proto.targets)
        return np.flatnonzero(~np.isnan(values[:, cols]).any(axis=1))
    raise DelveError(f"{proto.path}: cases must be 'all' or 'no missing', not {proto.cases!r}")


def make_order(ws: WorkspaceDirs, proto: PrototaskSpec) -> np.ndarray:
    """The prototask's order (1-based kept-case numbers) as ``delve gen`` makes it."""
    n = len(kept_cases(ws, proto))
    if proto.order == "retain":
        return np.arange(1, n + 1)
    if proto.seed is None:
        raise DelveError(
            f"{proto.path} has no seed, so its Random-order cannot be made; add a seed or "
            f"write your own {proto.dir / 'Random-order'} (a permutation of 1..{n}, one a line)"
        )
    return random_order(n, proto.seed)


def read_order(proto: PrototaskSpec) -> np.ndarray:
    """The committed Random-order of ``proto`` (1-based), or file order for ``retain``."""
    path = proto.dir / "Random-order"
    if proto.order == "retain":
        return None  # type: ignore[return-value]
    if not path.is_file():
        raise DelveError(
            f"{proto.full_name} has no Random-order file; run `delve gen {proto.full_name}`"
        )
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise DelveError(f"{path}: unreadable ({e})") from None
    if proto.random_order_sha256 is not None:
        got = hashlib.sha256(text.encode()).hexdigest()
        if got != proto.random_order_sha256:
            raise DelveError(
                f"{path} is not DELVE's Random-order (sha256 {got[:16]}..., the prototask pins "
                f"{proto.random_order_sha256[:16]}...); restore it from the package"
            )
    lines = [line.strip() for line in text.rstrip().splitlines()]
    if not lines:
        raise DelveError(f"{path}: empty; it must list the case numbers 1..N, one a line")
    for k, line in enumerate(lines, 1):
        # blank, signed, fractional, two on a line, too long for a case number, ...
        if not (line.isascii() and line.isdigit() and len(line) < 19):
            raise DelveError(f"{path}, line {k}: {line!r} is not a case number")
    return np.array(lines, dtype=np.int64)


@lru_cache(maxsize=64)
def read_splits(
    ws: WorkspaceDirs, proto: PrototaskSpec
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The published (train, test) realisations of a resampled or fixed prototask.

    The file is found like a data file (``DELVE_DATA_PATH``, the cache, the shipped data)
    and its uncompressed content checked against ``splits-sha256``."""
    from ..data import dataset_spec
    from ..data.load import find_data_file, read_bytes, sha256

    assert proto.splits is not None
    path = find_data_file(proto.splits)
    if path is None:
        raise DelveError(
            f"{proto.full_name}: splits file {proto.splits} not found in DELVE_DATA_PATH, "
            "the cache or the shipped data"
        )
    content = read_bytes(path)
    if proto.splits_sha256 and sha256(content) != proto.splits_sha256:
        raise DelveError(
            f"checksum mismatch for {path}: expected sha256 {proto.splits_sha256}, "
            f"got {sha256(content)}"
        )
    n_cases = dataset_spec(ws, proto.dataset).cases
    out = []
    for num, line in enumerate(content.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        head, bar, tail = line.partition("|")
        k1, _, train = head.partition(":")
        k2, _, test = tail.partition(":")
        try:
            if not bar or k1.strip() != "train" or k2.strip() != "test":
                raise ValueError("expected 'train: ... | test: ...'")
            tr = np.array(train.split(), dtype=np.int64)
            te = np.array(test.split(), dtype=np.int64)
        except (ValueError, OverflowError) as e:
            raise DelveError(f"{path}, line {num}: malformed ({e})") from None
        both = np.concatenate([tr, te])
        if both.size and (both.min() < 0 or both.max() >= n_cases):
            raise DelveError(
                f"{path}, line {num}: case numbers must be 0..{n_cases - 1} ({proto.dataset})"
            )
        out.append((tr, te))
    if not out:
        raise DelveError(f"{path}: no realisations")
    return tuple(out)


def split(order0: np.ndarray, proto: PrototaskSpec, size: int) -> tuple[Instance, ...]:
    """Cut a 0-based ordered case list into the instances of task ``std.<size>``."""
    T = proto.test_set_size
    pool, rest = order0[:T], order0[T:]
    K = min(len(rest) // size, proto.max_instances)
    if K < 1 or len(pool) < T:
        return ()
    out = []
    for i in range(K):
        train = rest[i * size : (i + 1) * size]
        if proto.test_set_selection == "hierarchical":
            m = T // K
            test = pool[i * m : (i + 1) * m]
        else:
            test = pool
        out.append(Instance(index=i, train=train, test=test))
    return tuple(out)


def published(ws: WorkspaceDirs, proto: PrototaskSpec, size: int) -> tuple[Instance, ...]:
    """The instances of a resampled or fixed task: the published realisations in order."""
    real = read_splits(ws, proto)[: proto.max_instances]
    bad = [k for k, (tr, _) in enumerate(real, 1) if len(tr) != size]
    if bad:
        raise DelveError(
            f"{proto.full_name}/std.{size}: realisation {bad[0]} of {proto.splits} has "
            f"{len(real[bad[0] - 1][0])} training cases, not {size}"
        )
    if proto.design == "fixed" and len(real) != 1:
        raise DelveError(f"{proto.full_name}: a fixed design has one split, not {len(real)}")
    return tuple(Instance(index=i, train=tr, test=te) for i, (tr, te) in enumerate(real))


def _repeats(cases: np.ndarray) -> bool:
    """Whether a case number occurs twice (by sorting: np.unique, which hashes, took ten
    times as long on index files)."""
    s = np.sort(cases)
    return bool((s[1:] == s[:-1]).any())


def _meet(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two sets of cases, neither with a repeat, share one."""
    return np.intersect1d(a, b, assume_unique=True).size > 0


def check_invariants(layout: TaskLayout) -> None:
    """Every design: within an instance, no repeated case and tests disjoint from training.
    DELVE designs also: disjoint training sets, hierarchical tests disjoint."""
    inst = layout.instances
    for i in inst:
        if _repeats(i.train) or _repeats(i.test):
            raise DelveError(f"{layout.full_name}: instance {i.index} repeats a case")
        if _meet(i.train, i.test):
            raise DelveError(
                f"{layout.full_name}: instance {i.index} has a test case among its training cases"
            )
    if layout.proto.design in SPLIT_DESIGNS:
        return
    trains = np.concatenate([i.train for i in inst])
    if _repeats(trains) or any(len(i.train) != layout.size for i in inst):
        raise DelveError(
            f"{layout.full_name}: training sets are not disjoint sets of {layout.size} cases"
        )
    tests = (
        np.concatenate([i.test for i in inst]) if layout.design == "hierarchical" else inst[0].test
    )
    if _repeats(tests):
        raise DelveError(f"{layout.full_name}: test sets overlap")
    if _meet(trains, tests):
        raise DelveError(f"{layout.full_name}: a test case is also a training case")
    if layout.design == "2-way" and any(not np.array_equal(i.test, inst[0].test) for i in inst):
        raise DelveError(f"{layout.full_name}: 2-way design needs one common test set")


@lru_cache(maxsize=256)
def _ordered_cases(ws: WorkspaceDirs, proto: PrototaskSpec) -> np.ndarray:
    kept = kept_cases(ws, proto)
    order = read_order(proto)
    if order is None:
        return kept
    if len(order) != len(kept) or not np.array_equal(np.sort(order), np.arange(1, len(kept) + 1)):
        raise DelveError(
            f"{proto.dir / 'Random-order'}: not a permutation of 1..{len(kept)}; "
            + (
                f"run `delve gen {proto.full_name}`"
                if proto.seed is not None
                else "a hand-made order (no seed) must list each case once"
            )
        )
    return kept[order - 1]


def _check_size(proto: PrototaskSpec, size: int) -> None:
    from ..errors import suggest

    if size not in proto.training_set_sizes:
        names = [f"std.{n}" for n in proto.training_set_sizes]
        raise DelveError(
            f"{proto.full_name} has no task std.{size}{suggest(f'std.{size}', names)} "
            f"(tasks: {' '.join(names)})"
        )


class NoInstancesError(DelveError):
    """A task of the prototask has no instance (too few cases for its training sets)."""


def _no_instances(proto: PrototaskSpec, size: int) -> DelveError:
    return NoInstancesError(
        f"{proto.full_name}/std.{size} has no instances: too few cases for "
        f"a test pool of {proto.test_set_size} and training sets of {size}"
    )


def derive_layout(ws: WorkspaceDirs, proto: PrototaskSpec, size: int) -> TaskLayout:
    """The instances of ``proto/std.<size>`` as Random-order (or the published splits)
    imply them: what ``delve gen`` writes."""
    _check_size(proto, size)
    if proto.design in SPLIT_DESIGNS:
        inst = published(ws, proto, size)
    else:
        inst = split(_ordered_cases(ws, proto), proto, size)
    if not inst:
        raise _no_instances(proto, size)
    layout = TaskLayout(proto=proto, size=size, instances=inst)
    check_invariants(layout)
    return layout


def declared_shape(ws: WorkspaceDirs, proto: PrototaskSpec, size: int) -> tuple[int, int, int]:
    """(instances K, training-set size, test-set size) the prototask declares for a task."""
    _check_size(proto, size)
    n_kept = len(kept_cases(ws, proto))
    T = proto.test_set_size
    K = min((n_kept - T) // size, proto.max_instances) if n_kept >= T else 0
    if K < 1:
        raise _no_instances(proto, size)
    return K, size, (T // K if proto.test_set_selection == "hierarchical" else T)


def _read_index(path: Path, n_cases: int, gen: str) -> np.ndarray:
    """One index file: 0-based case numbers, one a line, each in range and listed once."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise DelveError(f"{path} is missing; run `delve gen {gen}`") from None
    except OSError as e:
        raise DelveError(f"{path}: unreadable ({e})") from None
    # the files `delve gen` writes (and DELVE's): digits and newlines, no blank line; a
    # plan reads hundreds, so they go straight to numpy's C parser; anything else (spaces,
    # CRLF line ends, an error to name) takes the general path
    plain = data[:1].isdigit() and b"\n\n" not in data and not data.translate(None, b"0123456789\n")
    if not plain:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DelveError(f"{path}: unreadable ({e})") from None
        tokens = text.split()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if len(tokens) != lines or not "".join(tokens).isdigit():
            # blank lines, or a line that is not one number: name the first such line
            for k, line in enumerate(text.splitlines(), 1):
                if line.strip() and not line.strip().isdigit():
                    raise DelveError(f"{path}, line {k}: {line.strip()!r} is not a case number")
    # digits only: a number past int64 saturates in numpy's parser and fails the range
    # check below
    cases = np.fromstring(data, dtype=np.int64, sep=" ")
    out = (cases < 0) | (cases >= n_cases)
    if out.any():
        i = int(np.argmax(out))
        raise DelveError(
            f"{path}, line {i + 1}: case {data.split()[i].decode()} is out of range "
            f"0..{n_cases - 1} (0-based case numbers of the data file)"
        )
    counts = np.bincount(cases, minlength=n_cases)
    if counts.max(initial=0) > 1:
        c = int(np.argmax(counts))
        raise DelveError(f"{path}: case {c} is listed {counts[c]} times")
    return cases


def task_layout(ws: WorkspaceDirs, proto: PrototaskSpec, size: int) -> TaskLayout:
    """The instances of ``proto/std.<size>`` read from its committed index files, verified.

    Raises a one-line :class:`DelveError` naming the file for a missing file, a line that
    is not a case number, a case out of range or listed twice, a set of the wrong size,
    a case in two training sets or in a training and a test set, overlapping test sets
    (hierarchical design) or test sets that differ (2-way design). Resampled and fixed
    tasks are read from their published splits file, checked against its sha256."""
    from ..data import dataset_spec

    if proto.design in SPLIT_DESIGNS:
        return derive_layout(ws, proto, size)
    K, n, m = declared_shape(ws, proto, size)
    kept = kept_cases(ws, proto)
    n_cases = dataset_spec(ws, proto.dataset).cases
    tdir = proto.dir / f"std.{size}"
    gen = proto.full_name
    files: list[tuple[Path, Path]] = [(tdir / f"train.{i}", tdir / f"test.{i}") for i in range(K)]
    insts = []
    for i, (ptr, pte) in enumerate(files):
        train, test = _read_index(ptr, n_cases, gen), _read_index(pte, n_cases, gen)
        for p, got, want in ((ptr, len(train), n), (pte, len(test), m)):
            if got != want:
                raise DelveError(
                    f"{p}: {got} cases, but {proto.full_name}/std.{size} declares {want}"
                )
        insts.append(Instance(index=i, train=train, test=test))
    _check_disjoint(insts, files, n_cases, proto, kept)
    return TaskLayout(proto=proto, size=size, instances=tuple(insts))


def _check_disjoint(
    insts: list[Instance],
    files: list[tuple[Path, Path]],
    n_cases: int,
    proto: PrototaskSpec,
    kept: np.ndarray,
) -> None:
    """Every case at most once across the training sets and the (distinct) test sets."""
    two_way = proto.test_set_selection != "hierarchical"
    if two_way:
        for inst, (_, pte) in zip(insts[1:], files[1:], strict=True):
            if not np.array_equal(inst.test, insts[0].test):
                raise DelveError(
                    f"{pte} differs from {files[0][1].name}: the 2-way design has one common "
                    "test set"
                )
    sets = [(inst.train, ptr) for inst, (ptr, _) in zip(insts, files, strict=True)]
    sets += [(inst.test, pte) for inst, (_, pte) in zip(insts, files, strict=True)][
        : 1 if two_way else None
    ]
    owner = np.full(n_cases, -1, dtype=np.int64)
    for k, (cases, path) in enumerate(sets):
        prior = owner[cases]
        clash = prior >= 0
        if clash.any():
            c = int(cases[np.argmax(clash)])
            other = sets[int(prior[np.argmax(clash)])][1]
            raise DelveError(f"{path}: case {c} is also in {other.name}")
        owner[cases] = k
    if len(kept) != n_cases:  # 'no missing' cases: the sets may use only the kept ones
        allowed = np.zeros(n_cases, dtype=bool)
        allowed[kept] = True
        for cases, path in sets:
            if not allowed[cases].all():
                c = int(cases[np.argmax(~allowed[cases])])
                raise DelveError(f"{path}: case {c} is not one the prototask keeps")


@dataclass(frozen=True)
class Generated:
    """What ``delve gen`` did for one prototask: its tasks, and the files it wrote or removed
    (both empty when everything was already in place)."""

    layouts: tuple[TaskLayout, ...]
    written: tuple[Path, ...] = ()
    removed: tuple[Path, ...] = ()
    note: str = ""
    prototask: str = ""  # its full name, dataset/prototask
    checked: bool = False  # only verified (``delve gen --check``): nothing was written

    def __repr__(self) -> str:
        return (
            f"Generated({self.prototask}: {len(self.layouts)} tasks, "
            f"{len(self.written)} files written, {len(self.removed)} removed)"
        )


def _index_text(numbers: np.ndarray) -> str:
    """An index or order file's text: one number a line."""
    text = "\n".join(map(str, numbers.tolist()))
    return text + "\n" if text else ""


def _write(path: Path, numbers: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(_index_text(numbers))
    os.replace(tmp, path)


def generate(ws: WorkspaceDirs, proto: PrototaskSpec, check_only: bool = False) -> Generated:
    """``delve gen``: make (or verify) Random-order and write every task's index files that
    are missing or differ; returns what was written.

    An existing Random-order must be reproduced byte for byte from the recorded seed;
    a difference is an error, never silently overwritten.
    """
    written: list[Path] = []
    removed: list[Path] = []
    order_path = proto.dir / "Random-order"
    note = ""
    if proto.design in SPLIT_DESIGNS:
        read_splits.cache_clear()  # verify the published splits afresh
    elif proto.random_order_sha256 is not None:
        # DELVE's own Random-order: shipped, never made; read_order checks its sha256
        if not order_path.is_file():
            raise DelveError(
                f"{order_path} is missing: {proto.full_name} uses DELVE's own Random-order, "
                "which ships with the package"
            )
        note = "DELVE's own Random-order (sha256 checked)"
    elif proto.order != "retain" and proto.seed is None and order_path.is_file():
        # a user's own split: nothing to regenerate it from, but it must be a permutation
        # (checked by _ordered_cases) and the index files must follow it
        note = (
            "hand-made Random-order (no seed): cannot be regenerated; its index files were checked"
        )
        if not check_only:
            note = (
                "hand-made Random-order (no seed): cannot be regenerated; index files made from it"
            )
    elif proto.order != "retain":
        order = make_order(ws, proto)
        text = _index_text(order)
        if order_path.is_file():
            if order_path.read_text() != text:
                raise DelveError(
                    f"{order_path} differs from the order made from seed {proto.seed}; "
                    "it was edited or the generator changed"
                )
        elif check_only:
            raise DelveError(f"{order_path} is missing; run `delve gen {proto.full_name}`")
        else:
            _write(order_path, order)
            written.append(order_path)
    _ordered_cases.cache_clear()
    if proto.design not in SPLIT_DESIGNS:
        _ordered_cases(ws, proto)  # a malformed Random-order is an error, not "no tasks"
    layouts = []
    for n in proto.training_set_sizes:
        try:
            layout = derive_layout(ws, proto, n)
        except NoInstancesError:
            continue  # a size with no whole training block has no task
        layouts.append(layout)
        tdir = proto.dir / layout.name
        for inst in layout.instances:
            for kind, cases in (("train", inst.train), ("test", inst.test)):
                p = tdir / f"{kind}.{inst.index}"
                want = _index_text(cases)
                if check_only:
                    if not p.is_file() or p.read_text() != want:
                        raise DelveError(
                            f"{p} is missing or differs from Random-order; run `delve gen`"
                        )
                elif not p.is_file() or p.read_text() != want:
                    _write(p, cases)
                    written.append(p)
        if not check_only and tdir.is_dir():  # drop index files of instances that no longer exist
            for p in tdir.iterdir():
                kind, _, idx = p.name.partition(".")
                if (
                    kind in ("train", "test")
                    and idx.isdigit()
                    and int(idx) >= len(layout.instances)
                ):
                    p.unlink()
                    removed.append(p)
    return Generated(
        layouts=tuple(layouts),
        written=tuple(written),
        removed=tuple(removed),
        note=note,
        prototask=proto.full_name,
        checked=check_only,
    )
