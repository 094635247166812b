"""Which BLAS kernels the numbers come from: OpenBLAS's pinned, and what ran recorded.

OpenBLAS built with ``DYNAMIC_ARCH`` (the copies inside numpy's and scipy's wheels) picks
its kernels by CPU when it is loaded. Kernels for different CPUs sum in different orders,
so the last bits of a product differ, and an iterative fit can then take another path:
gp-map-1 on boston/price/std.32 #0 takes 85 conjugate-gradient iterations with the AVX2
(Haswell) kernels and 87 with the AVX-512 (SkylakeX) ones, and its S differs by 0.5 %.
A work-mode result is meant to be the same on every machine, so the ``delve`` command pins
the Haswell kernels on every x86-64 Linux CPU that can run them (:func:`pin_openblas`),
before numpy is first imported -- OpenBLAS reads ``OPENBLAS_CORETYPE`` only when it is
loaded -- and every process it starts inherits the setting. A user's own
``OPENBLAS_CORETYPE`` wins. Each result's meta.json records the BLAS libraries its job
ran with (:func:`blas_libraries`), and ``delve study verify`` names the kernels when a
rerun differs from a committed result made with others (:func:`kernel_note`).

This module imports nothing heavy at import time: the entry point calls it before numpy
is loaded, and ``delve --help`` loads no numerical library.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, MutableMapping

#: the variable OpenBLAS reads, once, when it is loaded
CORETYPE_VARIABLE = "OPENBLAS_CORETYPE"
#: the kernels the committed work-mode results were made with; they need AVX2 and FMA
PINNED_CORETYPE = "Haswell"
PINNED_NEEDS = frozenset({"avx2", "fma"})


def cpu_flags(path: str = "/proc/cpuinfo") -> frozenset[str]:
    """The feature flags of the first processor in ``path`` (Linux's /proc/cpuinfo).

    Only the first processor's block is read: the kernel writes the file one processor at a
    time, so this stays cheap on a machine with hundreds of cores.

    Returns
    -------
    frozenset of str
        e.g. ``{'fpu', 'sse2', 'avx2', 'fma', ...}``; empty where the file is missing or
        has no ``flags`` line (not Linux, not x86).
    """
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def cpu_model(path: str = "/proc/cpuinfo") -> str | None:
    """The first processor's ``model name`` in ``path`` (Linux's /proc/cpuinfo); None where
    there is none."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                key, sep, value = line.partition(":")
                if sep and key.strip() == "model name":
                    return value.strip()
    except OSError:
        pass
    return None


def numpy_simd() -> list[str]:
    """The SIMD targets numpy dispatches to on this CPU (e.g. ``['X86_V3', 'X86_V4']``).

    numpy chooses some loops by CPU at run time, besides BLAS: float64 ``exp`` and ``log``
    have AVX-512 versions that differ from the C library's in the last bits, so a result
    made where numpy ran ``X86_V4`` loops need not be bit-identical to one made on an
    AVX2-only CPU. Imports numpy; [] where it does not say (its private module moved).
    """
    import importlib

    um = None
    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # 2.x, 1.x
        try:
            um = importlib.import_module(name)
            break
        except ImportError:
            continue
    features = getattr(um, "__cpu_features__", {})
    return [t for t in getattr(um, "__cpu_dispatch__", []) if features.get(t)]


def machine_record() -> dict:
    """What meta.json records of the CPU a job ran on: its model and numpy's SIMD targets."""
    return {"model": cpu_model(), "numpy_simd": numpy_simd()}


def machine_note(committed: object, rerun: object) -> str:
    """Why a rerun may differ from a committed result in the last bits besides BLAS: the
    ``cpu`` records of the two meta.json name other numpy SIMD targets.

    Returns
    -------
    str
        e.g. ``"made where numpy's loops were X86_V3, X86_V4 (Intel Xeon), this run X86_V3
        (AMD EPYC)"``; '' when either side records none or both name the same targets.
    """
    if not isinstance(committed, dict) or not isinstance(rerun, dict):
        return ""
    was, now = committed.get("numpy_simd"), rerun.get("numpy_simd")
    if not was or not now or was == now:
        return ""

    def said(rec: dict, targets: list) -> str:
        model = f" ({rec['model']})" if rec.get("model") else ""
        return ", ".join(map(str, targets)) + model

    return f"made where numpy's loops were {said(committed, was)}, this run {said(rerun, now)}"


def _x86_64_linux() -> bool:
    return sys.platform.startswith("linux") and os.uname().machine == "x86_64"


def runs_pinned(flags: Callable[[], Iterable[str]] | None = None) -> bool:
    """Whether this machine can run the pinned kernels: x86-64 Linux with AVX2 and FMA
    (``flags``: returns the CPU's feature flags; default :func:`cpu_flags`)."""
    if not _x86_64_linux():
        return False
    return PINNED_NEEDS <= set((flags or cpu_flags)())


def pin_openblas(
    environ: MutableMapping[str, str] | None = None,
    flags: Callable[[], Iterable[str]] | None = None,
) -> str | None:
    """Set ``OPENBLAS_CORETYPE=Haswell`` in ``environ`` when it is not set and the CPU has
    AVX2 and FMA (x86-64 Linux only; elsewhere nothing is done).

    It takes effect for an OpenBLAS loaded after the call: in this process only if numpy
    (or scipy) is not imported yet, and in every process started afterwards.

    Parameters
    ----------
    environ : mutable mapping, optional
        The environment to set it in (default ``os.environ``).
    flags : callable, optional
        Returns the CPU's feature flags (default :func:`cpu_flags`).

    Returns
    -------
    str or None
        The core type set, or None when nothing was set (already set -- the user's value
        wins --, another platform, or a CPU without AVX2).
    """
    env = os.environ if environ is None else environ
    if CORETYPE_VARIABLE in env or not runs_pinned(flags):
        return None
    env[CORETYPE_VARIABLE] = PINNED_CORETYPE
    return PINNED_CORETYPE


def blas_libraries() -> list[dict]:
    """The BLAS libraries loaded in this process, as meta.json records them.

    Returns
    -------
    list of dict
        One per library, in load order (numpy's and scipy's wheels each bring their own
        OpenBLAS), with keys ``library`` (``openblas``, ``mkl``, ``blis``, ...),
        ``version``, ``architecture`` (the kernels in use, e.g. ``Haswell``; None where the
        library does not say), ``threads`` and ``file`` (the library's file name).
    """
    return _libraries(full_path=False)


def _libraries(*, full_path: bool) -> list[dict]:
    from threadpoolctl import threadpool_info

    out = []
    for lib in threadpool_info():
        if lib.get("user_api") != "blas":
            continue
        path = str(lib.get("filepath", ""))
        rec = {
            "library": lib.get("internal_api"),
            "version": lib.get("version"),
            "architecture": lib.get("architecture"),
            "threads": lib.get("num_threads"),
            "file": os.path.basename(path),
        }
        if full_path:
            rec["path"] = os.path.abspath(path)
        out.append(rec)
    return out


def _numpy_dirs() -> tuple[str, ...]:
    """Where numpy's wheel keeps its own BLAS: ``numpy.libs`` beside the package (Linux,
    Windows) or ``.dylibs`` inside it (macOS)."""
    import numpy

    pkg = os.path.dirname(os.path.abspath(numpy.__file__))
    return (pkg + os.sep, os.path.join(os.path.dirname(pkg), "numpy.libs") + os.sep)


def numpy_blas(
    libraries: list[dict] | None = None, dirs: tuple[str, ...] | None = None
) -> list[dict]:
    """The BLAS numpy itself runs on, out of :func:`blas_libraries`.

    A process that has imported scipy holds scipy's OpenBLAS besides numpy's; a number
    numpy computes depends on numpy's alone, so whatever keys such a number must not
    depend on what else happened to be imported.

    Parameters
    ----------
    libraries : list of dict, optional
        As :func:`blas_libraries` returns them, with their full ``path`` (default: those
        loaded now).
    dirs : tuple of str, optional
        Directory prefixes of numpy's own libraries (default: numpy's wheel's).

    Returns
    -------
    list of dict
        The libraries loaded from numpy's wheel; where numpy links a library outside it
        (a system or conda BLAS, which scipy then shares), every library given.
    """
    libs = _libraries(full_path=True) if libraries is None else libraries
    prefixes = _numpy_dirs() if dirs is None else dirs
    own = [lib for lib in libs if str(lib.get("path", "")).startswith(prefixes)]
    return own or libs


_NAMES = {"openblas": "OpenBLAS", "mkl": "MKL", "blis": "BLIS", "accelerate": "Accelerate"}


def _kernels(libraries: object) -> list[tuple[str, str]]:
    """The distinct (library, its kernels) of a recorded ``blas`` list, in a stable order;
    a library that does not name its kernels (MKL) is named by its version."""
    if not isinstance(libraries, list):
        return []
    out = set()
    for lib in libraries:
        if isinstance(lib, dict) and lib.get("library"):
            arch = lib.get("architecture")
            out.add((str(lib["library"]), f"{arch} kernels" if arch else str(lib.get("version"))))
    return sorted(out)


def _describe(kernels: list[tuple[str, str]]) -> str:
    return ", ".join(f"{_NAMES.get(lib, lib)} {what}" for lib, what in kernels)


def kernel_note(
    committed: object, rerun: object, flags: Callable[[], Iterable[str]] | None = None
) -> str:
    """Why a rerun may differ from a committed result in the last bits: the two ``blas``
    records of their meta.json name other kernels.

    Parameters
    ----------
    committed, rerun : list of dict or None
        The ``blas`` fields of the two meta.json (:func:`blas_libraries`).
    flags : callable, optional
        Returns this CPU's feature flags (default :func:`cpu_flags`): the advice to pin
        the Haswell kernels is given only where they can run.

    Returns
    -------
    str
        e.g. ``'made with OpenBLAS Haswell kernels, this run SkylakeX: set
        OPENBLAS_CORETYPE=Haswell'``; '' when either side records none (results made
        before the field existed) or both name the same kernels.
    """
    was, now = _kernels(committed), _kernels(rerun)
    if not was or not now or was == now:
        return ""
    named = all(lib == "openblas" and what.endswith(" kernels") for lib, what in was + now)
    if not named or len(was) != 1:
        return f"made with {_describe(was)}, this run {_describe(now)}"
    arch = was[0][1].removesuffix(" kernels")
    said = f"made with OpenBLAS {arch} kernels, this run "
    said += ", ".join(a.removesuffix(" kernels") for _, a in now)
    if arch == PINNED_CORETYPE and not runs_pinned(flags):
        return f"{said} (this CPU cannot run them)"
    return f"{said}: set {CORETYPE_VARIABLE}={arch}"
