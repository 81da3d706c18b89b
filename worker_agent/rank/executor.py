"""Run one schedule on this rank over torch.distributed point-to-point ops.

Everything that can be decided before the clock starts is: every step's
receive and send ops (receives posted first, copies received straight into
place, reductions into preallocated scratch), the reductions to apply after
the waits, and where every chunk state lives. The step loop then only posts,
waits and reduces: no allocation, no schedule walking.

Reporting a step reads the chunks it wrote (capture) and costs CPU time that
the transfers need, so a recording run reports its steps after the last one.
For that, a chunk state that a later step replaces is not written into the
working buffer but into its own slot of a preallocated keep buffer (the
reduction writes there with `out=`, the receive lands there), and later steps
read it from there: keeping costs no copy at all. A state that no later step
replaces is read from the working buffer at the end. Only when the keep
buffer is full (schedules that rewrite the whole buffer at every step, at
large sizes) is a step reported inside the loop, before its chunks change.

A perturbation (perturb.py) is carried out here: a straggler sleeps before its
steps, a slow link's ends linger after theirs, a hung rank never starts its
step. A hang run reports every step as it completes, and every arrival, so the
server sees the wavefront while the others wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.perturb import OnRank
from ..core.schedule import Schedule, Transfer
from ..core.vocabulary import OPS

Reducer = Callable[..., object]  # reducer(a, b, out=o): o = a op b, elementwise; o may be a
OnStep = Callable[[int, float, float], None]
OnArrive = Callable[[int, float], None]

# AVG adds: the runner divides the output once at the end
REDUCERS: dict[str, Reducer] = {name: getattr(torch, op.elementwise) for name, op in OPS.items()}


def _no_op(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    raise ValueError("a transfer reduces, but the run has no op: its collective only moves data")


KEEP_BUDGET = 1.0  # the keep buffer's size as a multiple of the working buffer's


@dataclass
class StepPlan:
    """What this rank does in one step, prepared before timing starts."""

    copies: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)  # local (dst, src)
    ops: list[dist.P2POp] = field(default_factory=list)
    # (out, old, scratch)
    reduces: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = field(default_factory=list)
    written: list[int] = field(default_factory=list)  # chunks this rank changes: its reported states
    # written chunk -> where this step leaves it
    states: dict[int, torch.Tensor] = field(default_factory=dict)
    overwritten: set[int] = field(default_factory=set)  # chunks written before the step's waits
    deferred: bool = True  # reported after the last step (else inside the loop, before its chunks change)
    report_late: bool = False  # if reported in the loop: may wait until the next step's transfers fly
    bytes_sent: int = 0
    bytes_received: int = 0


class Executor:
    """One schedule on one rank. `ranks[i]` is the global rank of group rank i.
    `record_states`: steps will be reported with their chunk states (capture full or
    summary), so states that later steps replace are kept. `perturbation`: what this rank
    does differently (perturb.on_rank); a live one reports every step as it completes."""

    def __init__(
        self,
        schedule: Schedule,
        count: int,
        buffer: torch.Tensor,
        ranks: list[int],
        group: dist.ProcessGroup | None,
        op: str | None,
        record_states: bool = False,
        perturbation: OnRank | None = None,
    ):
        self.schedule = schedule
        self.buffer = buffer
        self.ranks = ranks
        self.me = ranks.index(dist.get_rank())
        self.group = group
        # a schedule that only moves data never reduces
        self.reduce: Reducer = REDUCERS[op] if op else _no_op
        self.bounds = schedule.chunk_bounds(count)
        mine = [self._mine(step.table) for step in schedule.steps]
        need = max(
            (sum(self._size(t.into) for t in ts if self._reduces_into_me(t)) for ts in mine), default=0
        )
        self.scratch = torch.empty(need, dtype=buffer.dtype, device=buffer.device)
        self.kept, homes = self._homes(mine, record_states)
        where: dict[int, torch.Tensor] = {}  # chunk -> where its latest state lives, if written yet
        self.plans = []
        for transfers, (home, deferred) in zip(mine, homes):
            self.plans.append(self._plan(transfers, where, home, deferred))
            where.update(self.plans[-1].states)
        for plan, following in zip(self.plans, self.plans[1:]):
            plan.report_late = not following.overwritten.intersection(plan.written)
        self.perturbation = perturbation
        if perturbation is not None and perturbation.live:  # each step reported the moment it is done
            for plan in self.plans:
                plan.deferred, plan.report_late = False, False

    def chunk(self, c: int) -> torch.Tensor:
        start, stop = self.bounds[c]
        return self.buffer[start:stop]

    def state(self, index: int, c: int) -> torch.Tensor:
        """Chunk `c` as step `index` left it (one of the chunks it wrote); valid when it is reported."""
        return self.plans[index].states[c]

    def _size(self, c: int) -> int:
        return self.bounds[c][1] - self.bounds[c][0]

    def _mine(self, table) -> list[Transfer]:
        """The step's transfers this rank takes part in, in table order (which orders the tags)."""
        rows = table[(table[:, 0] == self.me) | (table[:, 1] == self.me)].tolist()
        return [Transfer(s, d, c, i, bool(r)) for s, d, c, i, r in rows]

    def _reduces_into_me(self, t: Transfer) -> bool:
        return t.dst == self.me and t.src != self.me and t.reduce

    def _homes(
        self, mine: list[list[Transfer]], record_states: bool
    ) -> tuple[torch.Tensor, list[tuple[dict[int, torch.Tensor], bool]]]:
        """The keep buffer, and per step: the keep slots of the chunk states it writes that a
        later step replaces (while the budget lasts; other states go to the working buffer),
        and whether it can be reported after the last step (every such state has a slot)."""
        written = [list(dict.fromkeys(t.into for t in ts if t.dst == self.me)) for ts in mine]
        replaced, later = [], set()
        for chunks in reversed(written):
            replaced.append([c for c in chunks if c in later])
            later.update(chunks)
        replaced.reverse()
        budget = int(KEEP_BUDGET * self.buffer.numel()) if record_states else 0
        kept, total = [], 0
        for chunks in replaced:  # all of a step's states or none: a step is reported at one time
            size = sum(self._size(c) for c in chunks)
            fits = total + size <= budget
            kept.append(chunks if fits else [])
            total += size if fits else 0
        keep = torch.empty(total, dtype=self.buffer.dtype, device=self.buffer.device)
        homes, offset = [], 0
        for chunks in kept:
            home = {}
            for c in chunks:
                home[c] = keep[offset : offset + self._size(c)]
                offset += self._size(c)
            homes.append(home)
        return keep, [
            (home, not record_states or len(k) == len(r)) for home, k, r in zip(homes, kept, replaced)
        ]

    def _plan(
        self,
        transfers: list[Transfer],
        where: dict[int, torch.Tensor],
        home: dict[int, torch.Tensor],
        deferred: bool,
    ) -> StepPlan:
        """One step: reads come from where each chunk's state lives before the step, writes
        go to their slot in `home` or to the working buffer."""
        plan, me, global_rank = StepPlan(deferred=deferred), self.me, self.ranks
        itemsize = self.buffer.element_size()
        tags: dict[tuple[int, int], int] = {}  # the k-th message between a pair in a step has tag k

        def tag(src: int, dst: int) -> int:
            tags[src, dst] = tags.get((src, dst), -1) + 1
            return tags[src, dst]

        def before(c: int) -> torch.Tensor:
            return where.get(c, self.chunk(c))

        offset = 0
        for t in transfers:  # receives first, so every send finds its receive posted
            if t.dst != me:
                continue
            target = home.get(t.into, self.chunk(t.into))
            if t.src == me:
                plan.copies.append((target, before(t.chunk)))
                plan.overwritten.add(t.into)
            elif t.reduce:  # several reductions into one chunk chain: the first reads the old state
                scratch = self.scratch[offset : offset + self._size(t.into)]
                offset += len(scratch)
                plan.reduces.append(
                    (target, plan.states[t.into] if t.into in plan.states else before(t.into), scratch)
                )
                plan.ops.append(
                    dist.P2POp(dist.irecv, scratch, global_rank[t.src], self.group, tag(t.src, t.dst))
                )
            else:
                plan.overwritten.add(t.into)
                plan.ops.append(
                    dist.P2POp(dist.irecv, target, global_rank[t.src], self.group, tag(t.src, t.dst))
                )
            if t.src != me:
                plan.bytes_received += self._size(t.into) * itemsize
            plan.states[t.into] = target
        # sends read the state before the step (schedule.check: no copy into a sent chunk)
        for t in transfers:
            if t.src == me and t.dst != me:
                plan.bytes_sent += self._size(t.chunk) * itemsize
                plan.ops.append(
                    dist.P2POp(dist.isend, before(t.chunk), global_rank[t.dst], self.group, tag(t.src, t.dst))
                )
        plan.written = list(plan.states)
        return plan

    def run(
        self, start: float, timeout: float, on_step: OnStep | None = None, on_arrive: OnArrive | None = None
    ) -> list[tuple[float, float]]:
        """Every step in order; returns (t0, t1) per step in seconds since `start`.
        `on_step(index, t0, t1)` reports each step, in order, while `state(index, c)` holds
        the chunks it wrote; most steps are reported once every rank is past its last step.
        `on_arrive(index, t0)` is told as each step starts. A run given `on_step` is the
        reported one: a hang holds its rank back there only."""
        wait_for = timedelta(seconds=timeout)
        cuda = self.buffer.device.type == "cuda"
        times: list[tuple[float, float]] = []
        pending: list[int] = []  # finished steps not yet reported
        late = False  # pending steps wait to be reported until the next step's transfers fly

        def report() -> None:
            if on_step is not None:  # else nothing is ever pending
                for i in pending:
                    on_step(i, *times[i])
            pending.clear()

        act = self.perturbation
        for index, plan in enumerate(self.plans):
            if act is not None:
                act.arrive(index, timeout, reported=on_step is not None)
            t0 = time.perf_counter() - start
            if on_arrive is not None:
                on_arrive(index, t0)
            for dst, src in plan.copies:  # before any receive lands: they read the step's old state
                dst.copy_(src)
            works = dist.batch_isend_irecv(plan.ops) if plan.ops else []
            if late:
                report()
                late = False
            for work in works:
                work.wait(wait_for)
            for out, old, scratch in plan.reduces:
                self.reduce(old, scratch, out=out)
            if cuda:
                torch.cuda.synchronize(self.buffer.device)
            if act is not None:
                act.leave(index)
            times.append((t0, time.perf_counter() - start))
            if on_step is None:
                continue
            pending.append(index)
            if not plan.deferred:  # its chunks change before the end: report it, and those before, now
                late = plan.report_late
                if not late:
                    report()
        if on_step is not None and self.plans:
            # ranks may share cores: reporting at once would slow the ranks still on their last step
            dist.barrier(self.group, async_op=True).wait(wait_for)
            report()
        return times
