"""Studies: whole comparisons declared in ``studies/<name>.yaml``, run through the runner,
packed into lean committed files, and reported with the thesis' and Barrio et al.'s
displays (``delve study run|status|report|verify``)."""

from .spec import Study, load_study

__all__ = ["Study", "load_study"]
