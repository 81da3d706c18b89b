"""reduce_scatter: every rank holds P blocks; rank r ends with the op over every rank's block r."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import BlockPerRank, NativeArgs, Start, combine, split

if TYPE_CHECKING:
    import torch


class ReduceScatter(BlockPerRank):
    name = "reduce_scatter"
    native_in_place = False  # reduce_scatter_tensor into a tensor of its own
    reduces = True

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(0, p)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(rank, rank + 1)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        p = len(inputs)
        blocks = split(inputs, p)
        return [combine(op, [blocks[s][r] for s in range(p)]) for r in range(p)]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {rank: [(s, rank) for s in range(p)]}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        out = a.buffer.new_empty(a.blocks[a.me].shape)
        return (lambda: a.reduce_scatter_into(out, a.buffer, a.op, a.group, async_op=True)), out


REDUCE_SCATTER = ReduceScatter()
