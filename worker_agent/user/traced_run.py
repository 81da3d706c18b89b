"""One run's traced send/recv code on this rank (user_algorithms.traced), for the runner.

Recording (recording.py): the code runs once with its point-to-point calls replaced and
its writes into the buffer followed, and every call and write is noted.

Pooling (pool). Every rank's record, or the call it was blocked in, goes through the
group's rendezvous store, which still works when the group's own links are stuck; so
every rank learns what all did, and a deadlock is told as its wait-for cycle.

Rebuilding (rebuild.py, pure): the records become a Schedule, steps by what happened
before what. The steps, simulated on the run's inputs, must give every rank's buffer as
the code left it, or the run stops saying so.

Each rank's calls (posted, waited for, completed) go with the run too, so a page can
show where a rank blocked (the built-in point-to-point lesson, algorithms/p2p.py).
"""

from __future__ import annotations

import inspect
import json
from collections import defaultdict
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from ..core.algorithms import Algorithm
from ..core.inputs import numpy_input
from ..core.protocol import MAX_CALLS, MAX_RUN_VALUES, CallTime
from ..core.schedule import Schedule
from ..core.simulate import initial_buffers
from ..core.simulate import states as simulate_states
from ..rank.verify import compare
from .rebuild import Rebuilt, Record, TraceError, rebuild, stuck
from .recording import Blocked, Tracer

# values in all ranks' buffers up to which a recorded pass is checked against its steps
EXPLAIN_UP_TO = 1 << 22


def pool(key: str, mine: dict, me: int, size: int, timeout: float) -> list[dict]:
    """Every group rank's `mine`, through the rendezvous store (rank i's under key/i). The
    store outlives the group's links, so ranks stuck in a send or recv still reach it."""
    store = c10d._get_default_store()
    store.set(f"{key}/{me}", json.dumps(mine))
    keys = [f"{key}/{r}" for r in range(size)]
    try:
        store.wait(keys, timedelta(seconds=timeout))
    except Exception:  # noqa: BLE001 - whatever the store says, the answer is who is missing
        missing = [r for r, k in enumerate(keys) if not store.check([k])]
        raise TraceError(
            f"group ranks {missing} neither finished their code nor blocked in a send or recv "
            f"within {timeout:g} s"
        ) from None
    out = [json.loads(store.get(k)) for k in keys]
    store.set(f"{key}/read/{me}", "1")
    if dist.get_rank() == 0:  # the store lives in world rank 0: it stays until every rank has read
        store.wait([f"{key}/read/{r}" for r in range(size)], timedelta(seconds=timeout))
    return out


_PASSES: dict[str, int] = defaultdict(int)  # traced passes per run id: one store key each


class TracedRun:
    """The traced algorithm of one run on this rank: the recorded pass (which learns the
    schedule), then plain passes for the timed iterations."""

    def __init__(
        self,
        algorithm: Algorithm,
        spec,
        collective,
        buffer: torch.Tensor,
        me: int,
        ranks: list[int],
        group,
        root: int,
        count: int,
        world_size: int,
        peer: int,
    ):
        if algorithm.builder is None:  # a traced algorithm is registered with its code
            raise ValueError(f"{algorithm.name} has no code to run")
        self.fn, self.layout = algorithm.builder, algorithm.layout
        self.spec, self.collective, self.buffer = spec, collective, buffer
        taken = inspect.signature(self.fn).parameters
        self.roles = {k: v for k, v in (("root", root), ("peer", peer)) if k in taken}
        self.me, self.ranks, self.group, self.root, self.count = me, ranks, group, root, count
        self.world_size = world_size
        self.rebuilt: Rebuilt | None = None
        self.tracer: Tracer | None = None

    def _learnt(self) -> tuple[Tracer, Rebuilt]:
        """What learn() recorded and rebuilt, which every other question reads."""
        if self.tracer is None or self.rebuilt is None:
            raise RuntimeError("the code has not run recorded yet (learn)")
        return self.tracer, self.rebuilt

    def learn(self, run_id: str) -> Schedule:
        """Run the code once, recorded, on every rank; pool the records; rebuild the steps."""
        spec = self.spec
        # one start: times compare
        c10d.barrier(self.group, async_op=True).wait(timedelta(seconds=spec.timeout))
        tracer = Tracer(
            self.fn, self.buffer, self.me, self.ranks, self.group, spec.timeout, record=True, roles=self.roles
        )
        tracer.flow.keep = spec.capture != "none"
        status: dict[str, object]
        try:
            status = {"done": tracer.run().to_json()}
        except Blocked as e:
            status = {"blocked": asdict(e.call)}
        except Exception as e:  # noqa: BLE001 - the user's code: what it raised, and where, goes to the group
            status = {
                "raised": f"{type(e).__name__}: {e}"
                if isinstance(e, TraceError)
                else f"{type(e).__name__}: {e} ({_where(e, tracer.file)})"
            }
        _PASSES[run_id] += 1
        key = f"ringside/traced/{run_id}/{_PASSES[run_id]}"
        statuses = pool(key, status, self.me, len(self.ranks), spec.timeout)
        words = stuck(statuses, self.ranks)
        if words is not None:
            raise TraceError(words)
        rebuilt = rebuild(
            [Record.from_json(s["done"]) for s in statuses],
            self.collective,
            spec.algorithm,
            self.root,
            self.count,
            self.layout,
        )
        steps, p = len(rebuilt.schedule.steps), len(self.ranks)
        shipped = steps * p * self.collective.blocks(p) * self.count
        if spec.capture == "full" and shipped > MAX_RUN_VALUES:
            raise TraceError(
                f"capture: 'full' would ship up to {shipped} values over {steps} steps, "
                f"more than the {MAX_RUN_VALUES} a run keeps; use 'summary'"
            )
        self.tracer, self.rebuilt = tracer, rebuilt
        verdicts = pool(f"{key}/explained", {"words": self._unexplained()}, self.me, p, spec.timeout)
        words = next((v["words"] for v in verdicts if v["words"]), None)
        if words is not None:  # every rank stops alike, whichever rank's buffer the steps do not explain
            raise TraceError(words)
        return rebuilt.schedule

    def _unexplained(self) -> str | None:
        """Why the rebuilt steps, simulated on the run's inputs, do not give this rank's buffer
        as the code left it; None when they do (as they must, or the animation would lie).
        Checked up to EXPLAIN_UP_TO values in all (every rank simulates every buffer)."""
        schedule, spec = self._learnt()[1].schedule, self.spec
        if len(self.ranks) * self.buffer.numel() > EXPLAIN_UP_TO:
            return None
        inputs = [numpy_input(spec, r, self.world_size) for r in range(len(self.ranks))]
        buffers = initial_buffers(schedule, inputs, self.count)
        for _ in simulate_states(schedule, buffers, self.count, self.collective.op(spec)):
            pass
        want = torch.from_numpy(buffers[self.me]).to(dtype=self.buffer.dtype, device=self.buffer.device)
        verdict = compare(self.collective.reduces, self.buffer, want, len(self.ranks))
        if verdict.verified:
            return None
        i, got, wanted = verdict.mismatches[0]
        return (
            f"the recorded calls do not explain rank {self.ranks[self.me]}'s buffer: at element {i} it "
            f"holds {got:g} where the rebuilt steps give {wanted:g}; the code changed it in a way "
            "Ringside does not follow"
        )

    def states(self, step: int) -> list[tuple[int, torch.Tensor]]:
        """(chunk, values) of every chunk this rank wrote in `step`, as the step left it (none
        at capture `none`, where the values are not kept)."""
        tracer, rebuilt = self._learnt()
        if not tracer.flow.keep:
            return []
        bounds = rebuilt.schedule.chunk_bounds(self.count)
        out: dict[int, torch.Tensor] = {}
        for w in rebuilt.writes[self.me][step]:
            a, b = tracer.record.writes[w].region
            values = tracer.flow.values[w]
            if values is None:  # not kept: never, while flow.keep
                continue
            for c, (lo, hi) in enumerate(bounds):
                if a <= lo and hi <= b:
                    out[c] = values[lo - a : hi - a]
        return sorted(out.items())

    def times(self) -> list[tuple[float, float]]:
        return self._learnt()[1].times[self.me]

    def calls(self) -> list[CallTime]:
        """This rank's calls in the recorded pass, in the order posted: when each was posted,
        began to be waited for and completed (a blocking call waits from its post)."""
        return [
            CallTime(
                name=c.name,
                peer=self.ranks[c.peer],
                line=c.line,
                posted=c.t_posted,
                waited=c.t_wait if c.t_wait is not None else c.t_done,
                done=c.t_done,
            )
            for c in self._learnt()[0].record.calls[:MAX_CALLS]
        ]

    def bytes(self) -> tuple[int, int]:
        size, rebuilt = self.buffer.element_size(), self._learnt()[1]
        return rebuilt.bytes_sent[self.me] * size, rebuilt.bytes_received[self.me] * size

    def run_once(self) -> None:
        """One timed pass: the calls wait with the run's timeout, nothing is recorded."""
        try:
            Tracer(
                self.fn,
                self.buffer,
                self.me,
                self.ranks,
                self.group,
                self.spec.timeout,
                record=False,
                roles=self.roles,
            ).run()
        except Blocked as e:
            raise TraceError(
                f"rank {self.ranks[self.me]} blocked in {e.call.name} with rank "
                f"{self.ranks[e.call.peer]} ({e.call.line}) in a timed pass, though the "
                "recorded pass finished"
            ) from None


def _where(e: Exception, file: str) -> str:
    """file:line in the user's file where `e` was raised."""
    tb, line = e.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == file:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"{Path(file).name}:{line}" if line is not None else Path(file).name
