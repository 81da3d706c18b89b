"""all_gather: every rank ends with every rank's block, in rank order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import BlockPerRank, NativeArgs, Start

if TYPE_CHECKING:
    import torch


class AllGather(BlockPerRank):
    name = "all_gather"
    native_in_place = False  # all_gather_into_tensor from a copy of the rank's block

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(rank, rank + 1)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(0, p)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        return [np.concatenate(inputs) for _ in inputs]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {b: [(b, b)] for b in range(p)}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        mine = a.blocks[a.me].clone()
        return (lambda: a.all_gather_into(a.buffer, mine, a.group, async_op=True)), a.buffer


ALL_GATHER = AllGather()
