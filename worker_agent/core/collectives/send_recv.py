"""send_recv: the root (the sender) sends its buffer to the peer (the receiver)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import Collective, NativeArgs, Start

if TYPE_CHECKING:
    import torch


class SendRecv(Collective):
    name = "send_recv"
    rooted = True
    has_peer = True
    min_ranks = 2

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        return range(0, 1) if rank == root else range(0)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        return range(0, 1) if rank == peer else range(0)

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        return [inputs[root].copy() if r == peer else None for r in range(len(inputs))]

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        return {0: [(root, 0)]} if rank == peer else {}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        # blocking, as the collective's name promises; the group's timeout bounds it
        if a.me == a.root:
            return (lambda: a.dist.send(a.buffer, a.ranks[a.peer], a.group)), None
        if a.me == a.peer:
            return (lambda: a.dist.recv(a.buffer, a.ranks[a.root], a.group)), a.buffer
        return (lambda: None), None


SEND_RECV = SendRecv()
