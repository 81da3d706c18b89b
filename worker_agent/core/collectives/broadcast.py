"""broadcast: the root's buffer ends up on every rank."""

from __future__ import annotations

from .base import Collective


class Broadcast(Collective):
    name = "broadcast"
    rooted = True

    def input_blocks(self, rank, p, root):
        return range(0, 1) if rank == root else range(0)

    def reference(self, inputs, op, root, peer):
        return [inputs[root].copy() for _ in inputs]

    def sources(self, rank, p, root, peer):
        return {0: [(root, 0)]}

    def native(self, a):
        return (lambda: a.dist.broadcast(a.buffer, a.ranks[a.root], a.group, async_op=True)), a.buffer


BROADCAST = Broadcast()
