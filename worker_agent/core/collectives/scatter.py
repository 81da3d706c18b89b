"""scatter: the root holds P blocks; rank r ends with block r."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import BlockPerRank, NativeArgs, Start, split

if TYPE_CHECKING:
    import torch


class Scatter(BlockPerRank):
    name = "scatter"
    rooted = True
    native_in_place = False  # scatter into a tensor of its own

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(0, p) if rank == root else range(0)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(rank, rank + 1)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        blocks = split(inputs, len(inputs))
        return [blocks[root][r].copy() for r in range(len(inputs))]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {rank: [(root, rank)]}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        out = a.buffer.new_empty(a.blocks[a.me].shape)
        parts = a.blocks if a.me == a.root else None
        return (lambda: a.dist.scatter(out, parts, a.ranks[a.root], a.group, async_op=True)), out


SCATTER = Scatter()
