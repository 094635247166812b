"""Human-readable output: DELVE's mstats text layout, result tables (md/csv/tex), DELVE
diagrams and the HTML index (``delve report``)."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
