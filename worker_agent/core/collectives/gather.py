"""gather: rank r's block r ends up at the root, which holds all P."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import BlockPerRank, NativeArgs, Start

if TYPE_CHECKING:
    import torch


class Gather(BlockPerRank):
    name = "gather"
    native_in_place = False  # gather from a copy of the rank's block
    rooted = True

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(rank, rank + 1)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(0, p) if rank == root else range(0)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        return [np.concatenate(inputs) if r == root else None for r in range(len(inputs))]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {b: [(b, b)] for b in range(p)} if rank == root else {}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        mine = a.blocks[a.me].clone()
        parts = a.blocks if a.me == a.root else None
        out = a.buffer if a.me == a.root else None
        return (lambda: a.dist.gather(mine, parts, a.ranks[a.root], a.group, async_op=True)), out


GATHER = Gather()
