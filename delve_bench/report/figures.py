"""Writing matplotlib figures reproducibly: the report's fixed style (:data:`RC`), no
dates or software versions in the metadata, atomic writes, PNGs with a colour palette.
Every figure of delve-bench goes through :func:`save_figure`."""

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
#: colours of a PNG's palette: the figures are flat colours and their antialiased edges,
#: which 256 colours reproduce without a visible difference
PNG_COLOURS = 256
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
            data = _palette_png(buf.getvalue()) if ext == "png" else buf.getvalue()
            path = path_stem.with_name(f"{path_stem.name}.{ext}")
            write_file(path, data)
            out.append(path)
    return out


def _palette_png(data: bytes) -> bytes:
    """The PNG ``data`` (RGBA, as matplotlib writes it) with a palette of
    :data:`PNG_COLOURS` colours: about a third of the size, which keeps the committed
    reports (a wide DELVE diagram is 4,000-5,000 pixels across) under the results'
    size ceiling. Median cut without dithering is deterministic, so reports still
    regenerate byte for byte."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        pal = im.convert("RGB").quantize(
            colors=PNG_COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
    buf = io.BytesIO()
    pal.save(buf, format="png", optimize=True)
    return buf.getvalue()
