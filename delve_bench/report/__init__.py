"""Human-readable output: DELVE's mstats text layout, result tables (md/csv/tex), DELVE
diagrams and the HTML index (``delve report``)."""

from typing import TYPE_CHECKING

# imported on first use, so that the light modules (:mod:`.listing`: plans, progress and
# summaries of `delve run`) do not pull in the statistics and plotting behind a report
_EXPORTS = {
    "ReportFiles": ".build",
    "write_report": ".build",
    "format_comparison": ".mstats",
    "format_summary": ".mstats",
}
__all__ = ["ReportFiles", "format_comparison", "format_summary", "write_report"]

if TYPE_CHECKING:
    from .build import ReportFiles, write_report
    from .mstats import format_comparison, format_summary


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
