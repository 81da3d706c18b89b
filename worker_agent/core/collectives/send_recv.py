"""send_recv: the root (the sender) sends its buffer to the peer (the receiver)."""

from __future__ import annotations

from .base import Collective


class SendRecv(Collective):
    name = "send_recv"
    rooted = True
    has_peer = True
    min_ranks = 2

    def input_blocks(self, rank, p, root):
        return range(0, 1) if rank == root else range(0)

    def output_blocks(self, rank, p, root, peer):
        return range(0, 1) if rank == peer else range(0)

    def reference(self, inputs, op, root, peer):
        return [inputs[root].copy() if r == peer else None for r in range(len(inputs))]

    def sources(self, rank, p, root, peer):
        return {0: [(root, 0)]} if rank == peer else {}

    def native(self, a):
        # blocking, as the collective's name promises; the group's timeout bounds it
        if a.me == a.root:
            return (lambda: a.dist.send(a.buffer, a.ranks[a.peer], a.group)), None
        if a.me == a.peer:
            return (lambda: a.dist.recv(a.buffer, a.ranks[a.root], a.group)), a.buffer
        return (lambda: None), None


SEND_RECV = SendRecv()
