"""torch's own call in both of nccl-tests' placements, on any dtype: out of place (the output in
a buffer of its own) and in place (the output over the input, as nccl-tests lay it out).

The collective's descriptor gives torch's one form (Collective.native: in place for all_reduce,
broadcast, reduce, send_recv and parameter_server; out of place for the others). The other form
is made here, as a torch user writes it:
- out of place where torch's call is in place: the input copied into the output buffer, then the
  call; the copy is in the time, as it is in the user's;
- in place where torch's call is out of place: the same call given views of one buffer, the rank's
  own block as all_gather's and gather's input, as reduce_scatter's and scatter's output, and
  all_to_all's one buffer as both (whose result nccl-tests do not check, nor does this).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist

from ringside.worker_agent.core.collectives import Collective, NativeArgs
from ringside.worker_agent.rank.native import REDUCE_OPS

# torch 2.13's names for the tensor-in, tensor-out forms, else the older ones (as rank/native.py)
_all_gather_into = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter_into = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor

Start = Callable[[], object]


@dataclass
class Placed:
    """One placement's call on this rank, laid out and ready to launch."""

    start: Start  # launches the call once: a Work to wait on, or what a blocking call returns
    output: torch.Tensor | None  # where this rank's output lands (None: it has none)
    checked: bool = True  # nccl-tests check its result (in-place all_to_all they do not)

    def once(self, timeout: timedelta) -> None:
        """One call, waited for (the device too)."""
        finish(self.start(), timeout)


def finish(work: object, timeout: timedelta) -> None:
    if hasattr(work, "wait"):  # blocking send and recv return no Work
        work.wait(timeout)


def _all_gather(a: NativeArgs) -> Placed:
    mine = a.blocks[a.me]
    return Placed(lambda: a.all_gather_into(a.buffer, mine, a.group, async_op=True), a.buffer)


def _gather(a: NativeArgs) -> Placed:
    mine, root = a.blocks[a.me], a.me == a.root
    parts = a.blocks if root else None
    return Placed(
        lambda: a.dist.gather(mine, parts, a.ranks[a.root], a.group, async_op=True),
        a.buffer if root else None,
    )


def _reduce_scatter(a: NativeArgs) -> Placed:
    mine = a.blocks[a.me]
    return Placed(lambda: a.reduce_scatter_into(mine, a.buffer, a.op, a.group, async_op=True), mine)


def _scatter(a: NativeArgs) -> Placed:
    mine, parts = a.blocks[a.me], a.blocks if a.me == a.root else None
    return Placed(lambda: a.dist.scatter(mine, parts, a.ranks[a.root], a.group, async_op=True), mine)


def _all_to_all(a: NativeArgs) -> Placed:
    """One buffer for both halves: what nccl-tests run, and do not check."""
    half = a.buffer[: a.buffer.numel() // 2]
    return Placed(
        lambda: a.dist.all_to_all_single(half, half, group=a.group, async_op=True), None, checked=False
    )


# torch's out-of-place calls given views of the one buffer
IN_PLACE: dict[str, Callable[[NativeArgs], Placed]] = {
    "all_gather": _all_gather,
    "gather": _gather,
    "reduce_scatter": _reduce_scatter,
    "scatter": _scatter,
    "all_to_all": _all_to_all,
}


def place(
    collective: Collective,
    buffer: torch.Tensor,
    count: int,
    ranks: list[int],
    me: int,
    root: int,
    peer: int,
    op: str | None,
    in_place: bool,
) -> Placed:
    """The call on `buffer`, which holds this rank's input in the collective's input blocks (group
    ranks; the whole world's group)."""
    a = NativeArgs(
        dist=dist,
        buffer=buffer,
        blocks=list(buffer.split(count)),
        p=len(ranks),
        me=me,
        root=root,
        peer=peer,
        ranks=ranks,
        group=None,
        op=REDUCE_OPS[op] if op else None,
        all_gather_into=_all_gather_into,
        reduce_scatter_into=_reduce_scatter_into,
    )
    if in_place == collective.native_in_place or not collective.payload:  # a barrier has no buffer
        return Placed(*collective.native(a))
    if collective.native_in_place:  # out of place: the copy a torch user makes first
        send = buffer.clone()
        start, output = collective.native(a)
        return Placed(lambda: (buffer.copy_(send), start())[1], output)
    return IN_PLACE[collective.name](a)
