"""barrier: no rank leaves until every rank has arrived.

Modelled as an OR of one-bit tokens: when it completes, every rank's token
holds every rank's bit, i.e. every rank has heard from all. So a barrier is
an all_reduce of its own: one int64 element, op BOR, whatever the run asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .all_reduce import ALL_REDUCE
from .base import Collective, NativeArgs, Sized, Start

if TYPE_CHECKING:
    import torch

    from ..protocol import RunSpec


class Barrier(Collective):
    name = "barrier"
    OP, DTYPE = "BOR", "int64"
    payload = False
    exactly_once = False
    arrivals = True
    lecture_stagger_s = 0.1  # the seed's ranks sleep their rank in seconds; a tenth keeps a lecture going

    def bus_factor(self, p: int) -> float:
        return 0.0

    def op(self, spec: RunSpec) -> str | None:
        return self.OP

    def dtype(self, spec: Sized) -> str:
        return self.DTYPE

    def count(self, spec: Sized) -> int:
        return 1

    def input_values(self, values: np.ndarray, rank: int) -> np.ndarray:
        return np.array([1 << (rank % 63)], dtype=np.int64)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        return ALL_REDUCE.reference(inputs, self.OP, root, peer)

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return ALL_REDUCE.sources(rank, p, root, peer)

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        return (lambda: a.dist.barrier(a.group, async_op=True)), None  # leaves nothing behind

    def native_reference(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        return ALL_REDUCE.native(a)


BARRIER = Barrier()
