"""send_recv: the root sends its buffer to one peer. The schedule's peer is the rank
after the root; the runner maps it onto the peer a run names."""

from __future__ import annotations

from ..schedule import Step, Transfer, rank
from .registry import Built, register


@register("send_recv", layout="star")
def direct(p: int, root: int = 0, chunks: int = 1) -> Built:
    """One step of isend/irecv, every piece in flight at once."""
    peer = (root + 1) % p
    steps = (
        ()
        if p < 2
        else (
            Step(
                "send",
                f"{rank(root)} sends its buffer to {rank(peer)}",
                tuple(Transfer(root, peer, c, c, False) for c in range(chunks)),
            ),
        )
    )
    return Built(chunks, steps)
