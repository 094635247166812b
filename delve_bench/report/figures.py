"""Writing matplotlib figures reproducibly: the report's fixed style (:data:`RC`), no
dates or software versions in the metadata, atomic writes. Every figure of delve-bench
goes through :func:`save_figure`."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from ..run.output import write_file

RC: Any = {  # matplotlib types rc keys as literals
    "svg.hashsalt": "delve-bench",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.linewidth": 0.8,
}
PNG_DPI = 150
_META = {"svg": {"Date": None}, "png": {"Software": None}, "pdf": {"CreationDate": None}}


def save_figure(draw, path_stem: Path, formats=("svg", "png")) -> list[Path]:
    """Build the figure with ``draw()`` under :data:`RC` and write ``<stem>.<ext>`` for
    each format; returns the paths."""
    path_stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    with matplotlib.rc_context(RC):
        fig: Figure = draw()
        for ext in formats:
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, metadata=_META.get(ext, {}), dpi=PNG_DPI)
            path = path_stem.with_name(f"{path_stem.name}.{ext}")
            write_file(path, buf.getvalue())
            out.append(path)
    return out
