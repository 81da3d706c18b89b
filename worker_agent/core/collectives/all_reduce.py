"""all_reduce: every rank ends with the op over every rank's buffer."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Collective, NativeArgs, Start, combine

if TYPE_CHECKING:
    import torch


class AllReduce(Collective):
    name = "all_reduce"
    reduces = True

    def bus_factor(self, p: int) -> float:
        return 2 * (p - 1) / p

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        total = combine(op, inputs)
        return [total.copy() for _ in inputs]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {0: [(s, 0) for s in range(p)]}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        return (lambda: a.dist.all_reduce(a.buffer, a.op, a.group, async_op=True)), a.buffer


ALL_REDUCE = AllReduce()
