"""Run one schedule on this rank over torch.distributed point-to-point ops.

Everything that can be decided before the clock starts is: every step's
receive and send ops (receives posted first, copies received straight into
the buffer, reductions into preallocated scratch), the reductions to apply
after the waits, the chunks to capture. The step loop then only posts,
waits and reduces: no allocation, no schedule walking.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Callable

import torch
import torch.distributed as dist

from .schedule import Schedule, Step

Reducer = Callable[[torch.Tensor, torch.Tensor], object]

REDUCERS: dict[str, Reducer] = {
    "SUM": lambda dst, src: dst.add_(src),
    "AVG": lambda dst, src: dst.add_(src),  # the runner divides the output once at the end
    "PRODUCT": lambda dst, src: dst.mul_(src),
    "MIN": lambda dst, src: torch.minimum(dst, src, out=dst),
    "MAX": lambda dst, src: torch.maximum(dst, src, out=dst),
    "BAND": lambda dst, src: dst.bitwise_and_(src),
    "BOR": lambda dst, src: dst.bitwise_or_(src),
    "BXOR": lambda dst, src: dst.bitwise_xor_(src),
}


@dataclass
class StepPlan:
    """What this rank does in one step, prepared before timing starts."""

    copies: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)  # local (dst, src)
    ops: list[dist.P2POp] = field(default_factory=list)
    reduces: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)  # (slot, scratch)
    written: list[int] = field(default_factory=list)  # chunks this rank changes: captured after the step
    overwritten: set[int] = field(default_factory=set)  # chunks written before the step's waits
    report_late: bool = False  # the step may be reported once the next step's transfers are in flight
    transfers: list[tuple[int, int, int, int, int]] = field(default_factory=list)  # global ranks
    bytes_sent: int = 0
    bytes_received: int = 0


class Executor:
    """One schedule on one rank. `ranks[g]` is the global rank of group rank g."""

    def __init__(
        self,
        schedule: Schedule,
        count: int,
        buffer: torch.Tensor,
        ranks: list[int],
        group: dist.ProcessGroup | None,
        op: str,
    ):
        self.schedule = schedule
        self.buffer = buffer
        self.ranks = ranks
        self.me = ranks.index(dist.get_rank())
        self.group = group
        self.reduce = REDUCERS[op]
        self.bounds = schedule.chunk_bounds(count)
        need = max((self._scratch_need(s) for s in schedule.steps), default=0)
        self.scratch = torch.empty(need, dtype=buffer.dtype, device=buffer.device)
        self.plans = [self._plan(step) for step in schedule.steps]
        for plan, following in zip(self.plans, self.plans[1:]):
            # Reporting a step reads its chunks (capture). It can wait until the next step's
            # transfers are posted, hiding that cost behind the wire, unless the next step
            # writes one of those chunks before its waits.
            plan.report_late = not following.overwritten.intersection(plan.written)

    def chunk(self, c: int) -> torch.Tensor:
        start, stop = self.bounds[c]
        return self.buffer[start:stop]

    def _scratch_need(self, step: Step) -> int:
        return sum(self._size(t.into) for t in step.transfers if t.dst == self.me and t.reduce and t.src != t.dst)

    def _size(self, c: int) -> int:
        return self.bounds[c][1] - self.bounds[c][0]

    def _plan(self, step: Step) -> StepPlan:
        plan, me, g = StepPlan(), self.me, self.ranks
        itemsize = self.buffer.element_size()
        tags: dict[tuple[int, int], int] = {}  # the k-th message between a pair in a step has tag k

        def tag(src: int, dst: int) -> int:
            tags[src, dst] = tags.get((src, dst), -1) + 1
            return tags[src, dst]

        offset = 0
        for t in step.transfers:  # receives first, so every send finds its receive posted
            if t.dst != me:
                continue
            plan.written.append(t.into)
            plan.transfers.append((g[t.src], g[t.dst], t.chunk, t.into, int(t.reduce)))
            if t.src == me:
                plan.copies.append((self.chunk(t.into), self.chunk(t.chunk)))
                plan.overwritten.add(t.into)
                continue
            size = self._size(t.into)
            plan.bytes_received += size * itemsize
            if t.reduce:
                scratch = self.scratch[offset : offset + size]
                offset += size
                plan.reduces.append((self.chunk(t.into), scratch))
                target = scratch
            else:
                target = self.chunk(t.into)
                plan.overwritten.add(t.into)
            plan.ops.append(dist.P2POp(dist.irecv, target, g[t.src], self.group, tag(t.src, t.dst)))
        for t in step.transfers:
            if t.src == me and t.dst != me:
                plan.transfers.append((g[t.src], g[t.dst], t.chunk, t.into, int(t.reduce)))
                plan.bytes_sent += self._size(t.chunk) * itemsize
                plan.ops.append(dist.P2POp(dist.isend, self.chunk(t.chunk), g[t.dst], self.group, tag(t.src, t.dst)))
        plan.written = list(dict.fromkeys(plan.written))
        return plan

    def run(
        self,
        start: float,
        timeout: float,
        on_step: Callable[[int, float, float], None] | None = None,
    ) -> list[tuple[float, float]]:
        """Every step in order; returns (t0, t1) per step in seconds since `start`.
        `on_step(index, t0, t1)` reports each step, in order, while its chunks are as it left them."""
        wait_for = timedelta(seconds=timeout)
        cuda = self.buffer.device.type == "cuda"
        times: list[tuple[float, float]] = []
        late = None  # a finished step whose report waits for the next step's transfers
        for index, plan in enumerate(self.plans):
            t0 = time.perf_counter() - start
            for dst, src in plan.copies:  # before any receive lands: they read the step's old state
                dst.copy_(src)
            works = dist.batch_isend_irecv(plan.ops) if plan.ops else []
            if late is not None:
                on_step(*late)
                late = None
            for work in works:
                work.wait(wait_for)
            for slot, scratch in plan.reduces:
                self.reduce(slot, scratch)
            if cuda:
                torch.cuda.synchronize(self.buffer.device)
            t1 = time.perf_counter() - start
            times.append((t0, t1))
            if on_step is not None:
                if plan.report_late:
                    late = (index, t0, t1)
                else:
                    on_step(index, t0, t1)
        if late is not None:
            on_step(*late)
        return times
