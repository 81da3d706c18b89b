"""all_gather: every rank ends with every rank's block, in rank order."""

from __future__ import annotations

import numpy as np

from .base import BlockPerRank


class AllGather(BlockPerRank):
    name = "all_gather"
    native_in_place = False  # all_gather_into_tensor from a copy of the rank's block

    def input_blocks(self, rank, p, root):
        return range(rank, rank + 1)

    def output_blocks(self, rank, p, root, peer):
        return range(0, p)

    def reference(self, inputs, op, root, peer):
        return [np.concatenate(inputs) for _ in inputs]

    def sources(self, rank, p, root, peer):
        return {b: [(b, b)] for b in range(p)}

    def native(self, a):
        mine = a.blocks[a.me].clone()
        return (lambda: a.all_gather_into(a.buffer, mine, a.group, async_op=True)), a.buffer


ALL_GATHER = AllGather()
