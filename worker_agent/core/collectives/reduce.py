"""reduce: the root ends with the op over every rank's buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Collective, NativeArgs, Start, combine

if TYPE_CHECKING:
    import torch


class Reduce(Collective):
    name = "reduce"
    rooted = True
    reduces = True

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(0, 1) if rank == root else range(0)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        total = combine(op, inputs)
        return [total if r == root else None for r in range(len(inputs))]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {0: [(s, 0) for s in range(p)]} if rank == root else {}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        out = a.buffer if a.me == a.root else None
        return (lambda: a.dist.reduce(a.buffer, a.ranks[a.root], a.op, a.group, async_op=True)), out


REDUCE = Reduce()
