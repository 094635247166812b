"""The Fast-MARS parent queue (Friedman 1993, "Fast MARS", §3-4) as MARS 3.6 runs it.

Every basis function is a potential parent. After each basis function is added, the
queue is re-ranked: entries are ranked by their last measured improvement ``imp``
(ascending, rank 1 = smallest), the priority is ``rank + beta * (itr - itr_eval)``, and
the next iteration examines the ``K`` entries of highest priority, lowest of them first.
So a parent not examined for a while is *promoted* (Friedman's code; earth's ageing
demotes instead). A parent searches all its variables on its first examination, during
the first four iterations and when its variable cache is older than ``h`` iterations;
otherwise only the variable that was best when the cache was filled.

Ties in ``imp`` and in the priority are broken exactly as MARS 3.6 breaks them: by
Singleton's quicksort (CACM Algorithm 347, in the modified form Friedman's code uses),
which is not stable. Which parents make the top ``K`` depends on it, so the order is
reproduced rather than approximated by a stable sort.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: imp of a new entry: it is examined as soon as possible
NEW_IMPROVEMENT = 9.9e30


def _single(x: float) -> float:
    """``x`` rounded to single precision (MARS 3.6 keeps the queue in REAL), as a
    Python float: ties in single precision decide the ranking."""
    return float(np.float32(x))


def singleton_order(values, perm: list[int]) -> list[int]:
    """Reorder ``perm`` (indices into ``values``) so that ``values[perm]`` ascends.

    Singleton's modified Hoare quicksort (CACM Algorithm 347) with the insertion sort
    for segments of at most 11 elements, step for step, so that ties end in the same
    order as in MARS 3.6's ``psort``. ``values`` must support ``values[i]``.
    """
    a = [0, *perm]  # 1-based, as the algorithm is stated
    v = values
    lo_stack: list[int] = []
    hi_stack: list[int] = []
    i, j, first = 1, len(perm), 1
    partition = i < j
    while True:
        if partition:
            # median-of-three pivot, then Hoare partition of a[i..j]
            k, mid = i, (i + j) // 2
            t = a[mid]
            vt = v[t]
            if v[a[i]] > vt:
                a[mid], a[i] = a[i], t
                t = a[mid]
                vt = v[t]
            l = j
            if v[a[j]] < vt:
                a[mid], a[j] = a[j], t
                t = a[mid]
                vt = v[t]
                if v[a[i]] > vt:
                    a[mid], a[i] = a[i], t
                    t = a[mid]
                    vt = v[t]
            while True:
                l -= 1
                while v[a[l]] > vt:
                    l -= 1
                tt = a[l]
                k += 1
                while v[a[k]] < vt:
                    k += 1
                if k > l:
                    break
                a[l], a[k] = a[k], tt
            # push the larger part, continue with the smaller
            if l - i <= j - k:
                lo_stack.append(k)
                hi_stack.append(j)
                j = l
            else:
                lo_stack.append(i)
                hi_stack.append(l)
                i = k
        else:
            if not lo_stack:
                return a[1:]
            i, j = lo_stack.pop(), hi_stack.pop()
        # a segment of at most 11 elements is finished by insertion sort, except the
        # leftmost one, which has no sentinel below it and is partitioned further
        if j - i > 10:
            partition = True
            continue
        if i == first:
            partition = i < j
            continue
        for s in range(i, j):
            t = a[s + 1]
            vt = v[t]
            if v[a[s]] <= vt:
                continue
            k = s
            while True:
                a[k + 1] = a[k]
                k -= 1
                if not vt < v[a[k]]:
                    break
            a[k + 1] = t
        partition = False


@dataclass
class QueueEntry:
    """One potential parent: basis function ``bf`` (0 = the constant)."""

    bf: int
    imp: float = float(np.float32(NEW_IMPROVEMENT))  # last improvement (RSS/n), single
    itr_eval: int = 0  # iteration of that evaluation
    var_cache: int = -1  # variable to search alone (-1: search all)
    itr_cache: int = 0  # iteration at which var_cache was filled


class ParentQueue:
    """MARS 3.6's ``addpar/nxtpar/updpar/selpar`` with K, beta and the cache age h."""

    def __init__(self, k: int = 10, beta: float = 1.0, h: int = 5):
        self.k, self.beta, self.h = k, beta, h
        self.full_search_until = int(0.5 * (k - 1) + 0.1)  # MARS: iterations 1..4 for K=10
        self.entries: list[QueueEntry] = []
        self.order: list[int] = []
        self.itr = 0

    def add(self, bf: int) -> None:
        """A new basis function: drop discarded parents, append, re-rank."""
        self.entries = [e for e in self.entries if e.imp >= -0.5]
        self.entries.append(QueueEntry(bf))
        lq = len(self.entries)
        imp = [e.imp for e in self.entries]  # float32 values held as Python floats
        ranked = singleton_order(imp, list(range(lq)))
        prio = [0.0] * lq
        for rank, e in enumerate(ranked, start=1):
            prio[e] = _single(rank + self.beta * (self.itr - self.entries[e].itr_eval))
        # the second sort starts from the first one's permutation, as in MARS
        self.order = singleton_order(prio, ranked)

    def examine(self, itr: int) -> list[tuple[QueueEntry, int]]:
        """The entries to examine in iteration ``itr`` (1-based), in order, each with the
        variable to search alone (-1: all). Stale caches are cleared here."""
        self.itr = itr
        out = []
        for e in self.order[max(0, len(self.order) - self.k) :]:
            entry = self.entries[e]
            if itr - entry.itr_cache > self.h or itr <= self.full_search_until:
                entry.var_cache = -1
            out.append((entry, entry.var_cache))
        return out

    def update(self, entry: QueueEntry, best_var: int, imp: float) -> None:
        """Record an examination: its improvement, and the best variable if the cache
        was empty (``imp = -1`` discards the parent at the next :meth:`add`)."""
        entry.imp = _single(imp)
        entry.itr_eval = self.itr
        if entry.var_cache < 0:
            entry.var_cache = best_var
            entry.itr_cache = self.itr

    def selected(self, bf: int) -> None:
        """The winning parent searches all variables the next time."""
        for entry in reversed(self.entries):
            if entry.bf == bf:
                entry.var_cache = -1
                return
