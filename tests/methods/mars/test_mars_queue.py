"""The Fast-MARS parent queue (Friedman 1993) and MARS 3.6's tie-breaking sort."""

from __future__ import annotations

import numpy as np
import pytest

from delve_bench.methods.mars.queue import ParentQueue, singleton_order

# permutations MARS 3.6's psort returns (Fortran, compiled with gfortran); 1-based ids
TIES = [
    (
        [3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3],
        list(range(1, 17)),
        [8, 11, 14, 5, 2, 15, 3, 9, 12, 6, 13, 10, 1, 7, 4, 16],
    ),
    ([5] * 14, list(range(1, 15)), [1, 9, 10, 11, 12, 13, 8, 7, 6, 5, 4, 3, 2, 14]),
    ([2, 1, 2, 1, 2, 1, 2, 1, 2], list(range(9, 0, -1)), [2, 6, 4, 8, 3, 9, 5, 7, 1]),
    (
        [7, 3, 9, 1, 3, 7, 9, 1, 5, 5, 2, 8, 6, 4, 0, 6, 2, 8, 4, 0],
        list(range(1, 21)),
        [20, 15, 8, 4, 17, 11, 2, 5, 19, 14, 10, 9, 13, 16, 6, 1, 12, 18, 7, 3],
    ),
]


@pytest.mark.parametrize("values,perm,expected", TIES)
def test_singleton_sort_breaks_ties_as_mars_psort(values, perm, expected):
    v = [0.0, *map(float, values)]  # 1-based
    assert singleton_order(v, perm) == expected


def test_singleton_sort_sorts():
    rng = np.random.default_rng(3)
    for n in [1, 2, 5, 11, 12, 13, 40, 100]:
        v = list(rng.integers(0, 7, n).astype(float))
        out = singleton_order(v, list(range(n)))
        assert sorted(out) == list(range(n))
        assert [v[i] for i in out] == sorted(v)


def test_queue_examines_the_top_k_lowest_priority_first_and_ages_parents():
    q = ParentQueue(k=3, beta=1.0, h=5)
    q.add(0)
    q.itr = 1
    ((e0, var0),) = q.examine(1)
    assert e0.bf == 0 and var0 == -1  # first iterations search every variable
    q.update(e0, 4, 0.5)
    q.add(1)
    q.add(2)  # new parents have imp = 9.9e30: the highest ranks
    order = [e.bf for e, _ in q.examine(2)]
    assert order[-2:] == [1, 2] or order[-2:] == [2, 1]
    assert set(order) == {0, 1, 2}
    for e, _ in q.examine(2):
        q.update(e, 1, {0: 0.1, 1: 0.3, 2: 0.2}[e.bf])
    for bf in (3, 4, 5):
        q.add(bf)
    # ranks by imp: 0 -> 1, 2 -> 2, 1 -> 3, new ones 4..6; the top three are the new ones
    assert [e.bf for e, _ in q.examine(3)] == [3, 4, 5]
    for e, _ in q.examine(3):
        q.update(e, 0, 0.05)
    q.itr = 7
    q.add(6)
    # at itr 7 the old parents have aged: priority rank + (7 - itr_eval)
    prio = {e.bf: e for e, _ in q.examine(7)}
    assert 6 in prio and len(prio) == 3


def test_variable_cache_is_used_after_four_iterations_and_expires_after_h():
    q = ParentQueue(k=10, beta=1.0, h=5)
    q.add(0)
    q.itr = 5
    ((e, var),) = q.examine(5)
    assert var == -1
    q.update(e, 3, 1.0)  # cache filled at iteration 5
    assert e.var_cache == 3 and e.itr_cache == 5
    ((e, var),) = q.examine(10)
    assert var == 3  # 10 - 5 = 5 is not older than h
    q.update(e, 7, 1.0)
    assert e.var_cache == 3  # a cached search does not refill the cache
    ((e, var),) = q.examine(11)
    assert var == -1  # 11 - 5 > 5: search all again
    q.selected(0)
    assert e.var_cache == -1


def test_discarded_parents_leave_at_the_next_addition():
    q = ParentQueue()
    q.add(0)
    q.add(1)
    for e, _ in q.examine(1):
        q.update(e, -1, -1.0 if e.bf == 1 else 0.2)
    q.add(2)
    assert [e.bf for e in q.entries] == [0, 2]
