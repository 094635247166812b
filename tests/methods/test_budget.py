"""Budget: the one place of budget arithmetic (work units and CPU seconds)."""

from __future__ import annotations

import time

import pytest

from delve_bench.methods.base import Budget


def test_work_budget_counts_only_the_work_done():
    b = Budget(mode="work", work=100)
    assert b.total == 100
    assert b.used(37) == 37.0
    assert not b.exhausted(99) and b.exhausted(100) and b.exhausted(101)
    assert not b.exhausted(49, share=0.5) and b.exhausted(50, share=0.5)
    assert b.fraction(25) == 0.25


def test_cpu_budget_counts_process_time_since_its_start():
    b = Budget(mode="cpu", cpu_seconds=10.0, start_cpu=time.process_time() - 6.0)
    assert b.total == 10.0
    assert 6.0 <= b.used(0) < 7.0
    assert b.used(10**9) < 7.0  # work done is ignored in cpu mode
    assert not b.exhausted(10**9) and b.exhausted(0, share=0.5)
    assert 0.6 <= b.fraction(0) < 0.7


@pytest.mark.parametrize("b", [Budget(mode="work"), Budget(mode="cpu")])
def test_an_unlimited_budget_is_never_exhausted(b):
    assert b.total is None
    assert not b.exhausted(10**12) and not b.exhausted(10**12, share=0.0)
    assert b.fraction(10**12) == 0.0


@pytest.mark.parametrize(
    "b, units",
    [(Budget(mode="work"), "work units"), (Budget(mode="cpu", cpu_seconds=0.0), "cpu seconds")],
)
def test_require_finite_names_the_method(b, units):
    with pytest.raises(ValueError, match=f"^mlp-ese-1 needs a finite budget \\({units}\\)$"):
        b.require_finite("mlp-ese-1")
    assert Budget(mode="work", work=7).require_finite("x") == 7.0


def test_map_work_converts_units_and_keeps_the_clock():
    b = Budget(mode="work", work=20000, start_cpu=1.5)
    m = b.map_work(lambda w: w // 4)
    assert (m.mode, m.work, m.start_cpu) == ("work", 5000, 1.5) and b.work == 20000
    assert Budget(mode="work").map_work(lambda w: 1 / 0).work is None
    c = Budget(mode="cpu", cpu_seconds=3.0)
    assert c.map_work(lambda w: 1 / 0) == c
