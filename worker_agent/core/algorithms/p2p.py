"""The point-to-point lesson, as traced send/recv code (traced_run.py), built in for
send_recv: the same message sent with a blocking `send` and with `isend` + `wait()`,
while the receiver is busy for a while before it posts its `recv`. Traced, each call's
post, wait and completion times show where the sender blocks: with `send` it waits in
the call until the receiver arrives; with `isend` it does its own work meanwhile and
waits, if at all, only at `wait()`. Only the lesson's sender and receiver take part.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .registry import Kind, register

if TYPE_CHECKING:
    import torch

BUSY_S = 0.2  # how long each side works on its own: the receiver before its recv, the sender after posting


@register("send_recv", kind=Kind.TRACED, layout="star", ops=())
def blocking(buf: torch.Tensor, rank: int, size: int, root: int, peer: int) -> None:
    import torch.distributed as dist

    if rank == root:
        dist.send(buf, peer)  # returns once the receiver has its data: blocked while it is busy
        time.sleep(BUSY_S)  # its own work, only after the send
    elif rank == peer:
        time.sleep(BUSY_S)  # busy: arrives late at its recv
        dist.recv(buf, root)


@register("send_recv", kind=Kind.TRACED, layout="star", ops=())
def isend(buf: torch.Tensor, rank: int, size: int, root: int, peer: int) -> None:
    import torch.distributed as dist

    if rank == root:
        work = dist.isend(buf, peer)  # posted; the transfer goes on without the sender
        time.sleep(BUSY_S)  # its own work, overlapping the receiver's
        if work is not None:  # None only for a rank outside the group: this one is in it
            work.wait()  # by now the receiver has long posted its recv: little or no wait
    elif rank == peer:
        time.sleep(BUSY_S)
        dist.recv(buf, root)
