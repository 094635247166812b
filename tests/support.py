"""Plain helpers shared by the test modules (importable as ``support``: pytest puts
``tests/`` on sys.path, see pyproject.toml)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_default = REPO.parent / "shared" / "data"
if not os.environ.get("DELVE_DATA_PATH") and _default.is_dir():
    os.environ["DELVE_DATA_PATH"] = str(_default)
DATA = Path(os.environ.get("DELVE_DATA_PATH", str(_default)).split(os.pathsep)[0])


def have_data(name: str) -> bool:
    return (DATA / f"{name}.data.gz").is_file()


needs_data = pytest.mark.skipif(
    not have_data("kin-8nm"), reason="real DELVE data not found (DELVE_DATA_PATH)"
)
