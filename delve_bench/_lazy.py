"""Package attributes imported on first use (PEP 562): a package lists what it exports
and from which submodule, and importing the package does not import them all (so that
e.g. `delve run` does not load scipy.stats for the statistics it never computes)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        Each exported name and the submodule that defines it, relative (``".bayes"``).

    Returns
    -------
    tuple of (callable, callable)
        The module-level ``__getattr__`` (imports the submodule at the first access of
        one of its names) and ``__dir__`` (the package's names and the exported ones).
    """

    def __getattr__(name: str) -> Any:
        if name in exports:
            return getattr(importlib.import_module(exports[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
