"""scatter: the root holds P blocks; rank r ends with block r."""

from __future__ import annotations

from .base import BlockPerRank, split


class Scatter(BlockPerRank):
    name = "scatter"
    rooted = True
    native_in_place = False  # scatter into a tensor of its own

    def input_blocks(self, rank, p, root):
        return range(0, p) if rank == root else range(0)

    def output_blocks(self, rank, p, root, peer):
        return range(rank, rank + 1)

    def reference(self, inputs, op, root, peer):
        blocks = split(inputs, len(inputs))
        return [blocks[root][r].copy() for r in range(len(inputs))]

    def sources(self, rank, p, root, peer):
        return {rank: [(root, rank)]}

    def native(self, a):
        out = a.buffer.new_empty(a.blocks[a.me].shape)
        parts = a.blocks if a.me == a.root else None
        return (lambda: a.dist.scatter(out, parts, a.ranks[a.root], a.group, async_op=True)), out


SCATTER = Scatter()
