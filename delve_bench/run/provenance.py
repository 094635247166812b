"""What defines a result, so that results made under other settings are never mixed.

Every meta.json records a **fingerprint**: a flat mapping of named fields, each a short
readable value, of everything that defines the result (docs/provenance.md):

* ``method``, ``method.version``, ``method.params``, ``method.budget_rule``: the method's
  name and, from its YAML, its ``version:`` (the per-method code version; absent is
  ``null``), its parameters and its budget rule (``hard_limit`` excluded). The Python
  module path (``plugin:``) and the package version are not in it: moving code or
  upgrading the package leaves results valid unless a method's YAML says otherwise;
* ``budget.mode``, ``budget.time_scale`` (cpu mode only), ``budget.allowance`` (the CPU
  seconds or work units this instance got; None when unlimited) -- all None for a method
  whose YAML has no budget rule, whose work does not depend on them;
* ``budget.blas_threads``: the BLAS (and OpenMP) threads a job ran with, recorded only
  when ``--blas-threads`` asked for other than the default of one
  (:data:`FIELD_DEFAULTS`), so that results made before the field existed read as they
  were;
* ``task.spec`` (sha256 of the prototask fields that define instances and the encoding:
  inputs, targets with their kinds, cases, order, test-set size and selection, maximum
  number of instances, the published splits' sha256 where the design has them),
  ``task.random_order`` (sha256 of Random-order), ``task.index``
  (sha256 of this instance's train and test index files), ``task.data`` (the dataset's
  sha256, or of its generator's settings).

A finished result is **stale** when a field differs from the reference. For ``delve run``
the reference is what its own settings would give. For ``delve status``, ``stats``,
``compare`` and ``report``, which have no budget settings, the method and task fields come
from the current files and the budget fields from the newest finished instance of that
method on that task: the instances that differ are left out and shown as stale, with the
field that differs (:func:`stale_fields`).

Hard limits (CPU, wall clock, memory) are recorded in meta.json (``limits``) but are not
compared: a limit only stops a job, so a result that finished under one limit is the
result any higher limit gives.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..data.spec import dataset_spec
from ..methods.registry import MethodSpec
from ..tasks.spec import PrototaskSpec
from ..workspace import WorkspaceDirs

#: fields that come from the run's budget settings, not from the specs
BUDGET_FIELDS = ("budget.mode", "budget.time_scale", "budget.allowance", "budget.blas_threads")

#: fields recorded only when they differ from their default: a fingerprint without one
#: holds its default. ``budget.blas_threads`` came after the committed studies; leaving
#: the default out keeps their results (and every fingerprint made since) current.
FIELD_DEFAULTS: dict[str, object] = {"budget.blas_threads": 1}


def field_value(fingerprint: dict, name: str):
    """A fingerprint's value of field ``name``, its default where it is not recorded."""
    return fingerprint.get(name, FIELD_DEFAULTS.get(name))


def _plain(x):
    """Numbers as YAML means them: 30 and 30.0 are one value (a parser that reads one as
    the other must not make results stale)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def _canonical(x) -> str:
    return json.dumps(_plain(x), sort_keys=True, separators=(",", ":"), default=str)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


_FILE_SHA: dict[tuple[Path, int, int], str] = {}


def file_sha(path: Path) -> str | None:
    """sha256 (16 hex digits) of a file's bytes, cached per file version; None if absent."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (path, st.st_mtime_ns, st.st_size)
    if key not in _FILE_SHA:
        _FILE_SHA[key] = _sha(path.read_bytes())
    return _FILE_SHA[key]


def method_fields(spec: MethodSpec) -> dict:
    """The fingerprint fields a method's YAML defines."""
    rule = {k: v for k, v in (spec.budget or {}).items() if k != "hard_limit"}
    return {
        "method": spec.name,
        "method.version": spec.version,
        "method.params": _canonical(spec.params),
        "method.budget_rule": _canonical(rule),
    }


def budget_fields(
    spec: MethodSpec,
    mode: str,
    time_scale: float,
    allowance: float | int | None,
    blas_threads: int = 1,
) -> dict:
    """The fingerprint fields of the budget a job was given. A method whose YAML has no
    budget rule (e.g. lin-1) does the same work in every mode: its fields are all None,
    so changing --budget-mode or --time-scale does not make its results stale.
    ``budget.blas_threads`` is there only when it is not the default (one thread): more
    threads change a CPU budget's worth of work and, in any mode, the rounding."""
    if not any(k != "hard_limit" for k in spec.budget or {}):
        mode, allowance = None, None  # type: ignore[assignment]
    out = {
        "budget.mode": mode,
        "budget.time_scale": time_scale if mode == "cpu" else None,
        "budget.allowance": None if allowance is None else round(float(allowance), 6),
    }
    if blas_threads != FIELD_DEFAULTS["budget.blas_threads"]:
        out["budget.blas_threads"] = blas_threads
    return out


_TASK_SHA: dict[PrototaskSpec, str] = {}


def _task_spec_sha(ws: WorkspaceDirs, proto: PrototaskSpec) -> str:
    if proto not in _TASK_SHA:
        ds = dataset_spec(ws, proto.dataset)
        kinds = {
            "inputs": [
                (a.name, a.kind, a.values) for a in (ds.attributes[j] for j in proto.inputs)
            ],
            "targets": [
                (a.name, a.kind, a.values) for a in (ds.attributes[j] for j in proto.targets)
            ],
        }
        defining = {
            **kinds,
            "cases": proto.cases,
            "order": proto.order,
            "test-set-size": proto.test_set_size,
            "test-set-selection": proto.test_set_selection,
            "maximum-number-of-instances": proto.max_instances,
        }
        if proto.splits_sha256:  # resampled and fixed designs: the published splits
            defining["splits-sha256"] = proto.splits_sha256
        _TASK_SHA[proto] = _sha(_canonical(defining).encode())
    return _TASK_SHA[proto]


def prototask_fields(ws: WorkspaceDirs, proto: PrototaskSpec) -> dict:
    """The fingerprint fields every instance of a prototask shares: its spec, case order
    and data (computed once per prototask where many instances are fingerprinted)."""
    ds = dataset_spec(ws, proto.dataset)
    data: str | None
    if ds.sha256:
        data = ds.sha256[:16]
    elif ds.generated:
        data = "generated:" + _sha(_canonical([ds.generator, ds.cases]).encode())
    else:
        from ..data.load import find_file

        path = find_file(ds)
        data = None if path is None else file_sha(path)
    return {
        "task.spec": _task_spec_sha(ws, proto),
        "task.random_order": "retain"
        if proto.order == "retain"
        else file_sha(proto.dir / "Random-order"),
        "task.data": data,
    }


def task_fields(
    ws: WorkspaceDirs,
    proto: PrototaskSpec,
    size: int,
    instance: int,
    shared: dict | None = None,
) -> dict:
    """The fingerprint fields of a task instance: its spec, splits and data.

    ``shared``: :func:`prototask_fields` of ``proto``, when the caller has it already."""
    shared = shared or prototask_fields(ws, proto)
    tdir = proto.dir / f"std.{size}"
    train, test = file_sha(tdir / f"train.{instance}"), file_sha(tdir / f"test.{instance}")
    return {
        "task.spec": shared["task.spec"],
        "task.random_order": shared["task.random_order"],
        "task.index": _sha(f"{train} {test}".encode()),
        "task.data": shared["task.data"],
    }


def stale_fields(recorded: dict | None, reference: dict) -> list[str]:
    """The fields of ``reference`` (and of :data:`FIELD_DEFAULTS`) whose recorded value
    differs, a field left out reading as its default (all of them, named ``fingerprint``,
    for a result made before fingerprints were recorded)."""
    if not isinstance(recorded, dict):
        return ["fingerprint"]
    out = [k for k, v in reference.items() if recorded.get(k, FIELD_DEFAULTS.get(k)) != v]
    return out + [
        k for k, v in FIELD_DEFAULTS.items() if k not in reference and recorded.get(k, v) != v
    ]


def describe_difference(recorded: dict | None, reference: dict, fields: list[str]) -> str:
    """``field: recorded -> current`` for each differing field, for status lines."""
    if fields == ["fingerprint"]:
        return "fingerprint: none recorded (made by an older delve-bench)"
    rec = recorded or {}
    return "; ".join(
        f"{k}: {_short(field_value(rec, k))} -> {_short(field_value(reference, k))}" for k in fields
    )


def _short(v) -> str:
    s = "none" if v is None else str(v)
    return s if len(s) <= 40 else s[:37] + "..."
