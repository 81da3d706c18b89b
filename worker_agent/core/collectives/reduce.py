"""reduce: the root ends with the op over every rank's buffer."""

from __future__ import annotations

from .base import Collective, combine


class Reduce(Collective):
    name = "reduce"
    rooted = True
    reduces = True

    def output_blocks(self, rank, p, root, peer):
        return range(0, 1) if rank == root else range(0)

    def reference(self, inputs, op, root, peer):
        total = combine(op, inputs)
        return [total if r == root else None for r in range(len(inputs))]

    def sources(self, rank, p, root, peer):
        return {0: [(s, 0) for s in range(p)]} if rank == root else {}

    def native(self, a):
        out = a.buffer if a.me == a.root else None
        return (lambda: a.dist.reduce(a.buffer, a.ranks[a.root], a.op, a.group, async_op=True)), out


REDUCE = Reduce()
