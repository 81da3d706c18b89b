"""The backend's own collectives: the reference for results and for speed.

`prepare` lays the call out on the same working buffer as the schedules, so
inputs go in and outputs come out the same way; what the call is belongs to
the collective's descriptor (collectives/), which gets torch from here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.collectives import Collective, NativeArgs
from ..core.vocabulary import OPS

REDUCE_OPS = {name: getattr(dist.ReduceOp, name) for name in OPS}

Call = Callable[[timedelta], None]

# torch 2.13 renamed the tensor-in, tensor-out forms; older releases (a GPU user's) have the old names
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def prepare(
    collective: Collective,
    buffer: torch.Tensor,
    count: int,
    ranks: list[int],
    me: int,
    root: int,
    peer: int,
    group: dist.ProcessGroup | None,
    op: str | None,
    reference: bool = False,
) -> tuple[Call, torch.Tensor | None]:
    """(call, output): `call(timeout)` runs the collective once (with `reference`, the call
    a stepwise run is checked against); `me`, `root` and `peer` are group ranks."""
    args = NativeArgs(
        dist=dist,
        buffer=buffer,
        blocks=list(buffer.split(count)),
        p=len(ranks),
        me=me,
        root=root,
        peer=peer,
        ranks=ranks,
        group=group,
        op=REDUCE_OPS[op] if op else None,
        all_gather_into=_all_gather,
        reduce_scatter_into=_reduce_scatter,
    )
    start, output = collective.native_reference(args) if reference else collective.native(args)

    def call(timeout: timedelta) -> None:
        work = start()  # async collectives return a Work; blocking send/recv do not
        if hasattr(work, "wait"):
            work.wait(timeout)

    return call, output
