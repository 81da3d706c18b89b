"""gather: rank r's block r ends up at the root, which holds all P."""

from __future__ import annotations

import numpy as np

from .base import BlockPerRank


class Gather(BlockPerRank):
    name = "gather"
    native_in_place = False  # gather from a copy of the rank's block
    rooted = True

    def input_blocks(self, rank, p, root):
        return range(rank, rank + 1)

    def output_blocks(self, rank, p, root, peer):
        return range(0, p) if rank == root else range(0)

    def reference(self, inputs, op, root, peer):
        return [np.concatenate(inputs) if r == root else None for r in range(len(inputs))]

    def sources(self, rank, p, root, peer):
        return {b: [(b, b)] for b in range(p)} if rank == root else {}

    def native(self, a):
        mine = a.blocks[a.me].clone()
        parts = a.blocks if a.me == a.root else None
        out = a.buffer if a.me == a.root else None
        return (lambda: a.dist.gather(mine, parts, a.ranks[a.root], a.group, async_op=True)), out


GATHER = Gather()
