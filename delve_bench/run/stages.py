"""The stage store of a result store: shared training stages, one JSON file per key.

The runner hands every job a :class:`StageCache` over ``<result store>/.stages/`` (the
result store is the one place every job of a run can write; a study's is its working store
``results/<study>/runs/``, which is never committed). A method whose training starts with
a stage that other methods compute on the same training set (the ABF width stage,
:mod:`delve_bench.methods.basis.widths`) reads it there under its content key, or computes
it and saves it. The file is written as the result store writes: a temporary file renamed
into place (:func:`~delve_bench.run.store.atomic_write`), so a reader sees no file or a
whole one. Two jobs that miss at the same time both compute the stage and both save the
same value; the second rename wins. A file that cannot be read, is not JSON, fails its
checksum or names another stage or key is a miss: the stage is recomputed and the file
replaced. A file that cannot be written is no error either (the job has its stage).
Deleting ``.stages/`` is always safe; it only costs the recomputation.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from .store import atomic_write, read_regular

#: the folder of the stage store inside a result store
STAGES_DIR = ".stages"
#: the most bytes a stage file may have (a stage value is a few hundred bytes)
MAX_BYTES = 1 << 20
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_KEY = re.compile(r"[0-9a-f]{64}")


def _checksum(value: dict) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


class StageCache:
    """A :class:`~delve_bench.methods.base.StageStore` of files under ``root``:
    ``root/<stage>/<key[:2]>/<key>.json`` holding the stage, the key, the value and the
    sha256 of the value.

    Parameters
    ----------
    root : Path
        The store's folder (``<result store>/.stages``); made when the first value is saved.
    """

    def __init__(self, root: Path):
        self.root = Path(root)

    def path(self, stage: str, key: str) -> Path:
        """The file of ``key``; a ValueError for a stage name or key of another form."""
        if not _NAME.fullmatch(stage) or not _KEY.fullmatch(key):
            raise ValueError(f"not a stage name and sha256 key: {stage!r}, {key!r}")
        return self.root / stage / key[:2] / f"{key}.json"

    def load(self, stage: str, key: str) -> dict | None:
        """The value saved under ``key``; None when there is none or it is not whole."""
        try:
            doc = json.loads(read_regular(self.path(stage, key), MAX_BYTES))
        except (OSError, ValueError, RecursionError):  # missing, unreadable, not JSON
            return None
        if not isinstance(doc, dict) or (doc.get("stage"), doc.get("key")) != (stage, key):
            return None
        value = doc.get("value")
        if not isinstance(value, dict) or doc.get("sha256") != _checksum(value):
            return None
        return value

    def save(self, stage: str, key: str, value: dict) -> None:
        """Write ``value`` under ``key`` atomically (replacing what was there). A value
        that cannot be written is dropped: the store only saves work, and the job that
        computed the stage has it (the next job computes it again)."""
        doc = {"stage": stage, "key": key, "value": value, "sha256": _checksum(value)}
        data = (json.dumps(doc, sort_keys=True) + "\n").encode()
        try:
            atomic_write(self.path(stage, key), data)
        except OSError:
            pass


def stage_cache(results: Path) -> StageCache:
    """The stage store of the result store ``results``."""
    return StageCache(Path(results) / STAGES_DIR)
