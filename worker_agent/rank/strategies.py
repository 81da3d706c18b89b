"""How one run's passes go on this rank, one strategy per kind of algorithm (registry.Kind):
the backend's own call, a schedule's steps through the executor, or traced send/recv code
(traced_run.py), which runs once recorded first and so learns its schedule. The runner
(runner.py) keeps the rest: the buffer, the events, verification and cancelling.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

import torch

from ..core.algorithms import Algorithm, Kind
from ..core.perturb import native_delay, on_rank
from ..core.protocol import Arrived, StepEvent
from ..core.run_shape import perturb_plan, schedule_of, schedule_ranks
from ..core.vocabulary import OPS
from ..user.traced_run import TracedRun
from . import capture, native
from .executor import Executor

if TYPE_CHECKING:
    from .runner import _Run

Pass = tuple[float, list[tuple[float, float]]]  # seconds, and every step's (t0, t1)


class Strategy(ABC):
    """What the stepwise kinds share: the output is what the steps left in the buffer's output
    blocks, verified against native (AVG: the steps added, the mean is the sum over the group)."""

    verifies = True

    def __init__(self, run: _Run, record: Algorithm):
        self.run = run

    def start(self) -> None:
        """Before the first pass: every rank's RunStarted."""
        self.run.started()

    @abstractmethod
    def once(self, start: float, report: bool) -> Pass:
        """One pass from the run's input, begun at `start`; `report`: its steps go out as events."""

    def output(self, out: torch.Tensor) -> torch.Tensor | None:
        if self.run.op is not None and OPS[self.run.op].mean:
            out.div_(self.run.p)
        return out

    def step_times(self, first: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """Every step's (t0, t1) as the run reports them: the first timed pass's."""
        return first

    def moved(self) -> tuple[int, int]:
        """Bytes this rank sent and received in one pass; 0 where the backend does not say."""
        return 0, 0


class NativeCall(Strategy):
    """The backend's own call, timed whole: the reference, so it verifies nothing."""

    verifies = False

    def __init__(self, run: _Run, record: Algorithm):
        super().__init__(run, record)
        self.call, self.out = native.prepare(
            run.collective, run.buffer, run.count, run.ranks, run.me, run.root, run.peer, run.group, run.op
        )

    def once(self, start: float, report: bool) -> Pass:
        run = self.run
        time.sleep(native_delay(run.spec.perturb, run.rank, run.ranks))  # a late arrival at the call
        self.call(run.timeout)
        run.synchronize()
        return time.perf_counter() - start, []

    def output(self, out: torch.Tensor) -> torch.Tensor | None:
        """The call's output, left in the buffer's output blocks (it may write elsewhere)."""
        if self.out is None:  # a native barrier leaves nothing behind
            return None
        if self.out.data_ptr() != out.data_ptr():
            out.copy_(self.out)
        return out


class ScheduleSteps(Strategy):
    """A schedule known before the run (built, or sent as data), run step by step."""

    def __init__(self, run: _Run, record: Algorithm):
        super().__init__(run, record)
        spec, world_size = run.spec, run.world_size
        schedule = schedule_of(spec, world_size)
        if schedule is None:  # a planned algorithm has one before it runs
            raise ValueError(f"{spec.algorithm} has no schedule to run step by step")
        # a hung rank is held back until a peer gives up on it: that peer says so on the store
        perturbation = None
        if spec.perturb is not None:
            steps, chunk_bytes = perturb_plan(spec, world_size)  # a schedule's steps: never None here
            perturbation = on_rank(
                spec.perturb, run.rank, steps or [], chunk_bytes, run.ranks, run.runner.world.regroup_asked
            )
        self.executor = Executor(
            schedule,
            run.count,
            run.buffer,
            schedule_ranks(spec, run.ranks),
            run.group,
            run.op,
            record_states=spec.capture != "none",
            perturbation=perturbation,
        )

    def once(self, start: float, report: bool) -> Pass:
        perturb = self.run.spec.perturb
        live = report and perturb is not None and perturb.live
        steps = self.executor.run(
            start, self.run.spec.timeout, self._on_step if report else None, self._on_arrive if live else None
        )
        # the collective is over when its last step is; steps reported after it take none of its time
        return (steps[-1][1] if steps else time.perf_counter() - start), steps

    def moved(self) -> tuple[int, int]:
        plans = self.executor.plans
        return sum(p.bytes_sent for p in plans), sum(p.bytes_received for p in plans)

    def _on_arrive(self, index: int, t0: float) -> None:
        self.run.emit(Arrived(run_id=self.run.run_id, rank=self.run.rank, step=index, t0=t0))

    def _on_step(self, index: int, t0: float, t1: float) -> None:
        run, executor = self.run, self.executor
        written = ((c, executor.state(index, c)) for c in executor.plans[index].written)
        run.emit(
            StepEvent(
                run_id=run.run_id,
                rank=run.rank,
                step=index,
                t0=t0,
                t1=t1,
                states=capture.states(written, run.spec.capture),
            )
        )


class TracedCode(Strategy):
    """Send/recv code: one recorded pass teaches every rank the schedule it made; then the run
    starts as a schedule's does (every rank sends it: the server plans none) and reports its
    steps as that pass left them. The timed passes run the code unrecorded."""

    def __init__(self, run: _Run, record: Algorithm):
        super().__init__(run, record)
        self.traced = TracedRun(
            record,
            run.spec,
            run.collective,
            run.buffer,
            run.me,
            run.ranks,
            run.group,
            run.root,
            run.count,
            run.world_size,
            run.peer,
        )

    def start(self) -> None:
        run = self.run
        schedule = self.traced.learn(run.run_id)
        run.bounds = schedule.chunk_bounds(run.count)
        run.buffer.copy_(run.initial)
        run.started(schedule.to_doc(run.ranks), self.traced.calls())
        for index, (t0, t1) in enumerate(self.traced.times()):
            run.emit(
                StepEvent(
                    run_id=run.run_id,
                    rank=run.rank,
                    step=index,
                    t0=t0,
                    t1=t1,
                    states=capture.states(self.traced.states(index), run.spec.capture),
                )
            )

    def once(self, start: float, report: bool) -> Pass:
        self.traced.run_once()
        return time.perf_counter() - start, []

    def step_times(self, first: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The recorded pass's: the timed passes are not recorded."""
        return self.traced.times()

    def moved(self) -> tuple[int, int]:
        return self.traced.bytes()


STRATEGIES: dict[Kind, type[Strategy]] = {
    Kind.NATIVE: NativeCall,
    Kind.SCHEDULE: ScheduleSteps,
    Kind.CUSTOM: ScheduleSteps,
    Kind.TRACED: TracedCode,
}
