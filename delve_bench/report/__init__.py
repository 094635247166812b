"""Human-readable output: DELVE's mstats text layout (tables and diagrams come later)."""

from .mstats import format_comparison, format_summary

__all__ = ["format_comparison", "format_summary"]
