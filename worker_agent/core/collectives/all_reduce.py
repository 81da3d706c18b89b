"""all_reduce: every rank ends with the op over every rank's buffer."""

from __future__ import annotations

from .base import Collective, combine


class AllReduce(Collective):
    name = "all_reduce"
    reduces = True

    def bus_factor(self, p):
        return 2 * (p - 1) / p

    def reference(self, inputs, op, root, peer):
        total = combine(op, inputs)
        return [total.copy() for _ in inputs]

    def sources(self, rank, p, root, peer):
        return {0: [(s, 0) for s in range(p)]}

    def native(self, a):
        return (lambda: a.dist.all_reduce(a.buffer, a.op, a.group, async_op=True)), a.buffer


ALL_REDUCE = AllReduce()
