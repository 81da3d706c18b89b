"""broadcast: the root's buffer ends up on every rank."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Collective, NativeArgs, Start

if TYPE_CHECKING:
    import torch


class Broadcast(Collective):
    name = "broadcast"
    rooted = True

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(0, 1) if rank == root else range(0)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        return [inputs[root].copy() for _ in inputs]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {0: [(root, 0)]}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        return (lambda: a.dist.broadcast(a.buffer, a.ranks[a.root], a.group, async_op=True)), a.buffer


BROADCAST = Broadcast()
