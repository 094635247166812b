"""The quasi-F's simulated powers remembered by what they are computed from, so that a
command does not simulate again what an earlier one simulated.

The 2-way design's power (:func:`.stats.power.power`) is the share of 20,000 simulated
studies whose size-corrected quasi-F rejects: 10 to 20 ms each, most of it scipy's
``betainc``, and the low-power hint of ``delve compare`` asks for about 17 of them per
task (the power at the observed difference and the search for the detectable one, each
step of which depends on the last, so they cannot be batched), ``delve power`` for many
more. A power is a function of the variance components, alpha, I, J and the difference,
of the fixed draws (their seed and number are in :mod:`.stats.draws`, their stream
numpy's) and of the code that simulates and tests. So each power computed is written under
``$XDG_CACHE_HOME/delve-bench/power``, in one file per (components, alpha) named by the
sha256 of exactly those and of the code (the sources of the modules it runs, numpy's and
scipy's versions), keyed within it by I, J and the difference's exact bits; a later
command reads it back instead of simulating. Any other component, level or version of the
code is another file, simulated afresh: an entry never goes stale. A file holds the
sha256 of its name and payload: a damaged one, or one written under another name, is
ignored and written again. A cache that cannot be read or written costs time only
(:mod:`..usercache` keeps the files).

:func:`.stats.power.power` keeps its powers in the :class:`~.stats.power.PowerMemo` it is
given (``stats`` reads no files); :data:`REMEMBERED` is the one this module keeps on
disk, which the compare's hints and ``delve power`` (:mod:`.advice`) give it. Only the
powers of the shared draws are kept (a power with draws of its own is simulated every
time).
"""

from __future__ import annotations

import json

from ..usercache import Shelf

#: the modules a simulated power runs (relative to the package): the power, the test,
#: the size-corrected threshold, the draws, the bound below 4 instances, the defaults
#: and this file; numpy (the draws' stream, the arithmetic) and scipy (``betainc``, the
#: binomial bound of the threshold)
_SHELF = Shelf(
    "power",
    (
        "stats/power.py",
        "stats/tests.py",
        "stats/level.py",
        "stats/draws.py",
        "stats/results.py",
        "defaults.py",
        "analysis/powers.py",
    ),
    ("numpy", "scipy"),
)

#: the entries of each file this process has read or written, by file name: a command
#: reads a file once, however many powers it asks of it
_known: dict[str, dict[str, float]] = {}


def file_name(vc, alpha: float) -> str:
    """The file that holds the powers of the components ``vc`` (a
    :class:`~.power.VarianceComponents`) at level ``alpha``: exact bits, so that two
    components that print alike but differ in a last bit have files of their own."""
    return _SHELF.name(vc.design, *(float(x).hex() for x in (vc.var_a, vc.var_e, vc.var_b, alpha)))


def entry_key(I: int, J: int, delta: float) -> str:
    """The key of one power within its file."""
    return f"{int(I)} {int(J)} {float(delta).hex()}"


def _read(name: str) -> dict[str, float]:
    """The entries written under ``name``; none where the file is missing, damaged or
    not what that name holds."""
    payload = _SHELF.read(name)
    if payload is None:
        return {}
    try:
        powers = json.loads(payload)
    except ValueError:
        return {}
    if not isinstance(powers, dict):
        return {}
    return {
        k: v
        for k, v in powers.items()
        if isinstance(k, str) and type(v) is float and 0.0 <= v <= 1.0
    }


def _write(name: str, entries: dict[str, float]) -> None:
    """Write ``entries`` under ``name`` (quietly nothing where the cache cannot be
    written; two commands writing at once leave one's entries, never a mixture)."""
    _SHELF.write(name, json.dumps(entries, sort_keys=True).encode())


class RememberedPowers:
    """A :class:`~.stats.power.PowerMemo` on disk: ``get`` reads a file once per
    process, ``store[key] = power`` adds the power to its file."""

    def get(self, key: tuple, /) -> float | None:
        vc, alpha, I, J, delta = key
        return _entries(file_name(vc, alpha)).get(entry_key(I, J, delta))

    def __setitem__(self, key: tuple, value: float, /) -> None:
        vc, alpha, I, J, delta = key
        name = file_name(vc, alpha)
        entries = _entries(name)
        entries[entry_key(I, J, delta)] = float(value)
        _write(name, entries)


def _entries(name: str) -> dict[str, float]:
    entries = _known.get(name)
    if entries is None:
        entries = _known[name] = _read(name)
    return entries


#: the store the commands give :func:`.stats.power.power`
REMEMBERED = RememberedPowers()
