"""One run on this rank: check the spec, lay out the buffer, run it for every iteration
in the way its kind of algorithm runs (strategies.py: the native op, a schedule, or traced
send/recv code), verify, and report every step.

Events go to `emit`, which must be cheap. Step events (first timed iteration
only) mostly go out once every rank is past the last step (executor.py says
why and when not). A stepwise run verifies itself against the native op on
the same input; a native run is the reference, so its `verified` is None.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.algorithms import algorithm_of
from ..core.collectives import get
from ..core.inputs import numpy_input
from ..core.protocol import (
    ErrorEvent,
    Message,
    PlanDoc,
    RunCancelled,
    RunFinished,
    RunSpec,
    RunStarted,
    Timings,
)
from ..core.run_shape import chunk_bounds, group_of, peer_of, plan
from ..core.validation import validate
from ..core.vocabulary import DTYPES
from . import capture, native
from .process_group import World
from .strategies import STRATEGIES
from .verify import compare

TORCH_DTYPE = {name: getattr(torch, name) for name in DTYPES}  # torch names every dtype as the run does


def torch_input(spec: RunSpec, group_rank: int, world_size: int, device: torch.device) -> torch.Tensor:
    x = torch.from_numpy(numpy_input(spec, group_rank, world_size))
    return x.to(device=device, dtype=TORCH_DTYPE[get(spec.collective, spec.servers).dtype(spec)])


class RunFailed(RuntimeError):
    """The run could not finish on this rank: a peer died, timed out, or the backend refused."""


class Cancelled(Exception):
    """The group agreed to stop between iterations."""


CANCEL_WITHIN_S = 0.25  # a cancellable run asks its group about this often whether to stop


class Runner:
    """Runs specs on this rank. A `cancellable` runner stops a run between iterations once
    `cancel(run_id)` is called (from any thread) on any rank of the group: the group asks
    itself with a one-element all_reduce, outside the timed part, so all stop together."""

    def __init__(self, world: World, emit: Callable[[Message], None], cancellable: bool = False):
        self.world = world
        self.emit = emit
        self.cancellable = cancellable
        self.cancelled: str | None = None  # the id of a run to stop

    def cancel(self, run_id: str) -> None:
        self.cancelled = run_id

    def open(self, run_id: str, spec: RunSpec) -> _Run:
        """A run of the whole world laid out and started, whose passes the caller drives itself
        (`ringside bench` times them as nccl-tests do: no barrier, no events)."""
        validate(spec, self.world.world_size, self.world.backend)
        run = _Run(self, run_id, spec, group_of(spec, self.world.world_size), None)
        run.strategy.start()
        return run

    def run(self, run_id: str, spec: RunSpec) -> RunFinished | RunCancelled:
        world = self.world
        validate(spec, world.world_size, world.backend)  # the same verdict on every rank, before any talk
        ranks = group_of(spec, world.world_size)
        group = world.group(tuple(ranks))
        if world.rank not in ranks:
            return RunFinished(run_id=run_id, rank=world.rank, timings=Timings(iterations=[]))
        try:
            return _Run(self, run_id, spec, ranks, group).execute()
        except Cancelled as e:
            done, total = e.args
            cancelled = RunCancelled(run_id=run_id, rank=world.rank, done=done, total=total)
            self.emit(cancelled)
            return cancelled
        except Exception as e:  # a broken peer, a timeout, a backend that refuses: report, don't hang
            message = (
                f"rank {world.rank}: {spec.collective}/{spec.algorithm} failed: "
                f"{failure_reason(e, spec.timeout)}"
            )
            world.broken()  # before the report: whoever hears of the failure can find the group broken
            self.emit(ErrorEvent(run_id=run_id, rank=world.rank, message=message))
            raise RunFailed(message) from e


def failure_reason(e: Exception, timeout: float) -> str:
    lines = str(e).strip().splitlines()
    text = lines[0] if lines else type(e).__name__
    if "timed out" in text.lower():
        return f"a peer did not answer within the run's timeout of {timeout:g} s ({text})"
    if "closed by peer" in text or "reset by peer" in text:
        return f"a peer's connection dropped; that rank probably died ({text})"
    return text


class _Run:
    """The state of one run on one rank; its strategy runs its passes."""

    def __init__(self, runner: Runner, run_id: str, spec: RunSpec, ranks: list[int], group):
        world = runner.world
        self.runner, self.emit, self.run_id, self.spec, self.group = runner, runner.emit, run_id, spec, group
        self.rank, self.device, self.world_size = world.rank, world.device, world.world_size
        self.ranks, self.p = ranks, len(ranks)
        self.me, self.root = ranks.index(world.rank), ranks.index(spec.root)
        self.peer = ranks.index(peer_of(spec, ranks))
        self.collective = collective = get(spec.collective, spec.servers)
        self.count, self.op = collective.count(spec), collective.op(spec)
        self.timeout = timedelta(seconds=spec.timeout)
        self.next_ask = 1  # the iteration after which the group next asks whether to cancel
        self.bounds = chunk_bounds(spec, world.world_size)
        # the collective's blocks; a schedule's scratch lies after them
        self.own = collective.blocks(self.p) * self.count
        size = max(self.own, self.bounds[-1][1] if self.bounds else 0)
        self.initial = torch.zeros(size, dtype=TORCH_DTYPE[collective.dtype(spec)], device=world.device)
        mine = collective.input_blocks(self.me, self.p, self.root)
        self.in_range = (mine.start * self.count, mine.stop * self.count) if len(mine) else None
        if self.in_range is not None:
            self.initial[self.in_range[0] : self.in_range[1]] = torch_input(
                spec, self.me, world.world_size, world.device
            )
        self.buffer = self.initial.clone()
        out = collective.output_blocks(self.me, self.p, self.root, self.peer)
        self.out_range = (out.start * self.count, out.stop * self.count) if len(out) else None
        record = algorithm_of(spec.collective, spec.algorithm)
        self.strategy = STRATEGIES[record.kind](self, record)

    def execute(self) -> RunFinished:
        spec = self.spec
        self.strategy.start()
        times, total = [], spec.warmup + spec.iterations
        self.starts: list[float] = []  # when each timed iteration began, as the barrier let it go
        for i in range(total):
            timed = i - spec.warmup  # steps are reported from the first timed iteration
            began = time.perf_counter()
            result = self._iteration(report=timed == 0)
            if timed >= 0:
                times.append(result)
                self.starts.append(self.released)
            self._maybe_stop(i + 1, total, time.perf_counter() - began)
        return self._finish(times)

    def started(self, schedule: PlanDoc | None = None, calls: list | None = None) -> None:
        """RunStarted: the buffer before the first step (chunked as the schedule cuts it); the
        group's rank 0 brings the planned schedule."""
        spec = self.spec
        if schedule is None and self.me == 0:
            schedule = plan(spec, self.world_size)
        self.emit(
            RunStarted(
                run_id=self.run_id,
                rank=self.rank,
                group_rank=self.me,
                spec=spec,
                schedule=schedule,
                chunk_bounds=self.bounds,
                inputs=self._states(range(len(self.bounds))),
                input_chunks=self._chunks_within(self.in_range),
                calls=calls or [],
            )
        )

    def _finish(self, times: list) -> RunFinished:
        output = self._output()
        verdict = self._verify(output) if self.spec.verify and self.strategy.verifies else None
        sent, received = self.strategy.moved()
        steps = self.strategy.step_times(times[0][1]) if times else []
        finished = RunFinished(
            run_id=self.run_id,
            rank=self.rank,
            output=self._states(self._chunks_within(self.out_range)),
            checksum=capture.checksum(output) if output is not None else None,
            verified=verdict.verified if verdict else None,
            max_diff=verdict.max_diff if verdict else None,
            tolerance=verdict.tolerance if verdict else None,
            mismatches=list(verdict.mismatches) if verdict else [],
            timings=Timings(
                iterations=[t for t, _ in times],
                steps=[t1 - t0 for t0, t1 in steps],
                starts=[s - self.starts[0] for s in self.starts],
            ),
            bytes_sent=sent,
            bytes_received=received,
        )
        self.emit(finished)
        return finished

    def _iteration(self, report: bool) -> tuple[float, list[tuple[float, float]]]:
        """One timed pass from the run's input: (total seconds, per-step (t0, t1))."""
        self.buffer.copy_(self.initial)
        dist.barrier(self.group, async_op=True).wait(self.timeout)
        self.synchronize()
        self.released = time.perf_counter()
        return self.strategy.once(self.released, report)

    def once(self) -> float:
        """One pass straight after the last (no barrier, the buffer as it left it): seconds on
        this rank until it is done, the device included."""
        began = time.perf_counter()
        self.strategy.once(began, False)
        self.synchronize()
        return time.perf_counter() - began

    def output_once(self) -> torch.Tensor | None:
        """This rank's output after one pass from the run's input."""
        self.buffer.copy_(self.initial)
        self.once()
        return self._output()

    def synchronize(self) -> None:
        """Wait for the device: on a GPU, what was launched is not yet done."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _maybe_stop(self, done: int, total: int, seconds: float) -> None:
        """Ask the group whether any rank was told to cancel; if so, all stop here. Each ask
        also agrees on the slowest rank's last iteration time, and so on when to ask next
        (the same iteration on every rank): a cancel takes effect within about
        CANCEL_WITHIN_S, however short or long the iterations are."""
        if not self.runner.cancellable or done == total or done < self.next_ask:
            return
        asked = torch.tensor(
            [float(self.runner.cancelled == self.run_id), seconds], dtype=torch.float64, device=self.device
        )
        dist.all_reduce(asked, dist.ReduceOp.MAX, self.group, async_op=True).wait(self.timeout)
        cancel, slowest = asked.tolist()
        if cancel:
            raise Cancelled(done, total)
        self.next_ask = done + max(1, int(CANCEL_WITHIN_S / max(slowest, 1e-9)))

    def _output(self) -> torch.Tensor | None:
        """This rank's output, in the buffer's output blocks."""
        if self.out_range is None:
            return None
        return self.strategy.output(self.buffer[self.out_range[0] : self.out_range[1]])

    def _states(self, chunks) -> list:
        return capture.states(capture.chunk_views(self.buffer, self.bounds, chunks), self.spec.capture)

    def _chunks_within(self, span: tuple[int, int] | None) -> list[int]:
        if span is None:
            return []
        return [c for c, (a, b) in enumerate(self.bounds) if span[0] <= a and b <= span[1]]

    def _verify(self, output: torch.Tensor | None):
        """Run the collective's reference call once on the same input and compare."""
        reference = self.initial[: self.own].clone()
        call, want = native.prepare(
            self.collective,
            reference,
            self.count,
            self.ranks,
            self.me,
            self.root,
            self.peer,
            self.group,
            self.op,
            reference=True,
        )
        call(self.timeout)
        if output is None or want is None:
            return None
        return compare(self.collective.reduces, output, want, self.p)
