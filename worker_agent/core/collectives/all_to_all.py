"""all_to_all: rank s's block d ends up at rank d, in place s.

The working buffer holds both halves: blocks [0, P) are what a rank sends,
blocks [P, 2P) what it receives (block P+s came from rank s)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import BlockPerRank, NativeArgs, Start, split

if TYPE_CHECKING:
    import torch


class AllToAll(BlockPerRank):
    name = "all_to_all"
    in_place = native_in_place = False  # send and receive halves apart

    def blocks(self, p: int) -> int:
        return 2 * p

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(0, p)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(p, 2 * p)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        p = len(inputs)
        blocks = split(inputs, p)
        return [np.concatenate([blocks[s][r] for s in range(p)]) for r in range(p)]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {p + s: [(s, rank)] for s in range(p)}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        half = len(a.buffer) // 2
        send, recv = a.buffer[:half], a.buffer[half:]
        return (lambda: a.dist.all_to_all_single(recv, send, group=a.group, async_op=True)), recv


ALL_TO_ALL = AllToAll()
