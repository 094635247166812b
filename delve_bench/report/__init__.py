"""Human-readable output: DELVE's mstats text layout, result tables (md/csv/tex), DELVE
diagrams and the HTML index (``delve report``)."""

from .build import ReportFiles, write_report
from .mstats import format_comparison, format_summary

__all__ = ["ReportFiles", "format_comparison", "format_summary", "write_report"]
