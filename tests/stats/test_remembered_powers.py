"""The quasi-F's simulated powers are remembered by what they are computed from
(delve_bench.analysis.powers, the store the compare's hints and `delve power` use): a
later command reads a power back, to the same float, instead of simulating it; other
components, another level, design or difference, or other code are other entries; a
damaged file is simulated afresh, other draws are never remembered, and without a memo
stats.power simulates every time."""

from __future__ import annotations

from pathlib import Path

import pytest

from delve_bench import usercache
from delve_bench.analysis import powers
from delve_bench.analysis.powers import REMEMBERED
from delve_bench.stats import power as power_mod
from delve_bench.stats.draws import DRAWS, SEED, Draws
from delve_bench.stats.power import VarianceComponents, detectable_difference, sample_size

VC = VarianceComponents(design="2-way", var_a=0.04, var_e=1.0, var_b=0.01)
SIMULATE = power_mod._quasi_f_power  # the simulation itself, never remembered


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty user cache, and no power known to this process yet."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(powers, "_known", {})
    return tmp_path / "cache" / "delve-bench" / "power"


def _simulations(monkeypatch) -> list[tuple]:
    """The powers simulated from now on (as their arguments)."""
    seen: list[tuple] = []

    def counting(vc, delta, I, J, alpha, draws):
        seen.append((vc, delta, I, J, alpha))
        return SIMULATE(vc, delta, I, J, alpha, draws)

    monkeypatch.setattr(power_mod, "_quasi_f_power", counting)
    return seen


def power(vc, delta, I, J, alpha=0.05, draws=None):
    """stats.power.power as the commands call it."""
    return power_mod.power(vc, delta, I, J, alpha, draws, memo=REMEMBERED)


def _new_command():
    powers._known.clear()  # what a new process knows: only the files


def test_a_power_is_read_back_to_the_same_float_without_simulating(fresh, monkeypatch):
    seen = _simulations(monkeypatch)
    first = power(VC, 0.3, 4, 50)
    assert len(seen) == 1 and len(list(fresh.iterdir())) == 1
    assert first == SIMULATE(VC, 0.3, 4, 50, 0.05, DRAWS)  # the simulation's
    assert power(VC, -0.3, 4, 50) == first and len(seen) == 1  # |delta|, in this process
    _new_command()
    assert power(VC, 0.3, 4, 50) == first
    assert len(seen) == 1  # read back from the file, not simulated


def test_a_search_gives_what_it_gives_uncached_and_a_rerun_simulates_nothing(fresh, monkeypatch):
    seen = _simulations(monkeypatch)
    found = detectable_difference(VC, 4, 50, memo=REMEMBERED)
    steps = len(seen)
    assert steps > 5
    # every power the search asked for is the simulation's, bit for bit
    for vc, delta, I, J, alpha in seen:
        assert power(vc, delta, I, J, alpha) == SIMULATE(vc, delta, I, J, alpha, DRAWS)
    _new_command()
    assert detectable_difference(VC, 4, 50, memo=REMEMBERED) == found
    assert len(seen) == steps  # nothing simulated again
    monkeypatch.setenv("XDG_CACHE_HOME", str(fresh.parent.parent.parent / "other"))
    _new_command()
    assert detectable_difference(VC, 4, 50, memo=REMEMBERED) == found  # simulated afresh
    assert len(seen) == 2 * steps
    assert detectable_difference(VC, 4, 50) == found  # no memo: simulated again
    assert len(seen) == 3 * steps


def test_every_input_is_part_of_the_key(fresh, monkeypatch):
    seen = _simulations(monkeypatch)
    power(VC, 0.3, 4, 50)
    last_bit = VarianceComponents("2-way", VC.var_a, VC.var_e, VC.var_b * (1 + 2**-52))
    assert last_bit != VC
    for args in [
        (last_bit, 0.3, 4, 50, 0.05),
        (VarianceComponents("2-way", 0.05, 1.0, 0.01), 0.3, 4, 50, 0.05),
        (VC, 0.3, 4, 50, 0.01),
        (VC, 0.3, 5, 50, 0.05),
        (VC, 0.3, 4, 51, 0.05),
        (VC, 0.3 * (1 + 2**-52), 4, 50, 0.05),
    ]:
        n = len(seen)
        power(*args)
        assert len(seen) == n + 1, args  # not the remembered 0.3 at 4 x 50
    assert powers.file_name(last_bit, 0.05) != powers.file_name(VC, 0.05)
    assert powers.file_name(VC, 0.01) != powers.file_name(VC, 0.05)
    assert powers.entry_key(4, 50, 0.3) != powers.entry_key(4, 50, 0.3 * (1 + 2**-52))


def test_other_code_is_another_file(fresh, monkeypatch):
    before = powers.file_name(VC, 0.05)
    with monkeypatch.context() as m:
        m.setattr(usercache, "code_digest", lambda sources, libraries: b"another version")
        assert powers.file_name(VC, 0.05) != before
    assert powers.file_name(VC, 0.05) == before
    # the digest reads the sources of the modules a power runs: each of them is there
    package = Path(power_mod.__file__).resolve().parent.parent
    assert all(package.joinpath(name).is_file() for name in powers._SHELF.sources)
    assert {"stats/power.py", "analysis/powers.py"} <= set(powers._SHELF.sources)
    assert powers._SHELF.libraries == ("numpy", "scipy")


def test_a_damaged_file_is_simulated_afresh_and_written_again(fresh, monkeypatch):
    seen = _simulations(monkeypatch)
    first = power(VC, 0.3, 4, 50)
    (path,) = fresh.iterdir()
    good = path.read_bytes()
    for damaged in (
        good.replace(b'": 0.', b'": 1.'),  # a changed value: the digest does not match
        b"x" + good,
        b"",
    ):
        path.write_bytes(damaged)
        _new_command()
        n = len(seen)
        assert power(VC, 0.3, 4, 50) == first
        assert len(seen) == n + 1
        assert path.read_bytes() == good
    # a good file under another name is not that name's
    other = powers.file_name(VC, 0.01)
    fresh.joinpath(other).write_bytes(good)
    _new_command()
    assert powers._read(other) == {}


def test_other_draws_are_never_remembered(fresh, monkeypatch):
    seen = _simulations(monkeypatch)
    mine = Draws(2000, SEED + 1)
    p = power(VC, 0.3, 4, 50, draws=mine)
    assert power(VC, 0.3, 4, 50, draws=mine) == p
    assert len(seen) == 2 and not fresh.exists()


def test_a_cache_that_cannot_be_written_costs_time_only(fresh, monkeypatch):
    fresh.parent.parent.mkdir(parents=True)
    fresh.parent.parent.joinpath("delve-bench").write_text("a file, not a folder")
    seen = _simulations(monkeypatch)
    first = power(VC, 0.3, 4, 50)
    assert first == SIMULATE(VC, 0.3, 4, 50, 0.05, DRAWS)
    _new_command()
    assert power(VC, 0.3, 4, 50) == first and len(seen) == 2


@pytest.mark.slow  # 2 CPU s of simulated powers; the fast loop checks the memo in the search test above
def test_a_sample_size_with_a_memo_is_the_one_without(fresh, monkeypatch):
    """`delve power`'s searches give the same designs through a dict, the store and no
    memo, and ask the memo for what they asked before instead of simulating it."""
    seen = _simulations(monkeypatch)
    bare = sample_size(VC, 0.4, 4, 50, 60, 400)
    n = len(seen)
    memo: dict = {}
    assert sample_size(VC, 0.4, 4, 50, 60, 400, memo=memo) == bare
    assert len(seen) - n == len(memo) < n  # each power simulated once, not at each repeat
    assert sample_size(VC, 0.4, 4, 50, 60, 400, memo=memo) == bare
    assert sample_size(VC, 0.4, 4, 50, 60, 400, memo=REMEMBERED) == bare
    _new_command()
    k = len(seen)
    assert sample_size(VC, 0.4, 4, 50, 60, 400, memo=REMEMBERED) == bare
    assert len(seen) == k
