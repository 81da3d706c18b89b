"""The backend's own collectives: the reference for results and for speed.

`prepare` lays the call out on the same working buffer as the schedules
(collectives.py), so inputs go in and outputs come out the same way, and
returns the call and the tensor that holds this rank's output.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Callable

import torch
import torch.distributed as dist

REDUCE_OPS = {
    "SUM": dist.ReduceOp.SUM,
    "PRODUCT": dist.ReduceOp.PRODUCT,
    "MIN": dist.ReduceOp.MIN,
    "MAX": dist.ReduceOp.MAX,
    "AVG": dist.ReduceOp.AVG,
    "BAND": dist.ReduceOp.BAND,
    "BOR": dist.ReduceOp.BOR,
    "BXOR": dist.ReduceOp.BXOR,
}

Call = Callable[[timedelta], None]

# torch 2.13 renamed the tensor-in, tensor-out forms; older releases (a GPU user's) have the old names
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def prepare(
    collective: str,
    buffer: torch.Tensor,
    count: int,
    ranks: list[int],
    me: int,
    root: int,
    peer: int,
    group: dist.ProcessGroup | None,
    op: str,
) -> tuple[Call, torch.Tensor | None]:
    """(call, output): `call(timeout)` runs the collective once; `me`, `root` and `peer` are group ranks."""
    p, g = len(ranks), group
    blocks = list(buffer.split(count))
    red = REDUCE_OPS[op]

    def waiting(start: Callable[[], dist.Work | None]) -> Call:
        def call(timeout: timedelta) -> None:
            work = start()  # async collectives return a Work; blocking send/recv do not
            if hasattr(work, "wait"):
                work.wait(timeout)

        return call

    if collective == "all_reduce":
        return waiting(lambda: dist.all_reduce(buffer, red, g, async_op=True)), buffer
    if collective == "broadcast":
        return waiting(lambda: dist.broadcast(buffer, ranks[root], g, async_op=True)), buffer
    if collective == "reduce":
        out = buffer if me == root else None
        return waiting(lambda: dist.reduce(buffer, ranks[root], red, g, async_op=True)), out
    if collective == "all_gather":
        mine = blocks[me].clone()
        return waiting(lambda: _all_gather(buffer, mine, g, async_op=True)), buffer
    if collective == "reduce_scatter":
        out = torch.empty_like(blocks[me])
        return waiting(lambda: _reduce_scatter(out, buffer, red, g, async_op=True)), out
    if collective == "scatter":
        out = torch.empty_like(blocks[me])
        parts = blocks if me == root else None
        return waiting(lambda: dist.scatter(out, parts, ranks[root], g, async_op=True)), out
    if collective == "gather":
        mine = blocks[me].clone()
        parts = blocks if me == root else None
        return waiting(lambda: dist.gather(mine, parts, ranks[root], g, async_op=True)), (buffer if me == root else None)
    if collective == "all_to_all":
        send, recv = buffer[: p * count], buffer[p * count :]
        return waiting(lambda: dist.all_to_all_single(recv, send, group=g, async_op=True)), recv
    if collective == "barrier":
        return waiting(lambda: dist.barrier(g, async_op=True)), None
    if collective == "send_recv":
        if me == root:  # blocking, as the collective's name promises; the group's timeout bounds it
            return waiting(lambda: dist.send(buffer, ranks[peer], g)), None
        if me == peer:
            return waiting(lambda: dist.recv(buffer, ranks[root], g)), buffer
        return waiting(lambda: None), None
    raise ValueError(f"no native call for {collective!r}")
