"""all_to_all: rank s's block d ends up at rank d, in place s.

The working buffer holds both halves: blocks [0, P) are what a rank sends,
blocks [P, 2P) what it receives (block P+s came from rank s)."""

from __future__ import annotations

import numpy as np

from .base import BlockPerRank, split


class AllToAll(BlockPerRank):
    name = "all_to_all"
    in_place = native_in_place = False  # send and receive halves apart

    def blocks(self, p):
        return 2 * p

    def input_blocks(self, rank, p, root):
        return range(0, p)

    def output_blocks(self, rank, p, root, peer):
        return range(p, 2 * p)

    def reference(self, inputs, op, root, peer):
        p = len(inputs)
        blocks = split(inputs, p)
        return [np.concatenate([blocks[s][r] for s in range(p)]) for r in range(p)]

    def sources(self, rank, p, root, peer):
        return {p + s: [(s, rank)] for s in range(p)}

    def native(self, a):
        half = len(a.buffer) // 2
        send, recv = a.buffer[:half], a.buffer[half:]
        return (lambda: a.dist.all_to_all_single(recv, send, group=a.group, async_op=True)), recv


ALL_TO_ALL = AllToAll()
