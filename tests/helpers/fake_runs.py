"""The runs a service asks of (polls, visibility), in-process and without ranks: planned as the server
plans them (runs/run.new_run, on a world of four gloo ranks), kept in memory, and run by the test:
`ran` fills a run as its ranks would have reported it and ends it done."""

from __future__ import annotations

import time

import numpy as np

from ringside.server.dispatch.job import JobState
from ringside.server.runs.messages import RECENT
from ringside.server.runs.run import RankResult, RankStep, Run, RunSummary, new_run
from ringside.server.runs.service import PLANNED
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.preview import input_states
from ringside.worker_agent.core.protocol import ChunkState, RunSpec, Timings
from ringside.worker_agent.core.schedule import Schedule
from ringside.worker_agent.core.validation import SpecError, validate

WORLD = 4
LECTURE = {"collective": "all_reduce", "count": 8, "capture": "full", "pattern": "digits"}


def ran(run: Run, seconds: float = 0.001) -> Run:
    """`run` as its ranks report it, ended done with its figures: every rank's inputs, its whole buffer
    after each step (simulated, at capture full), and `seconds` an iteration on every rank."""
    run.state, run.started_at = JobState.RUNNING, time.time()
    run.inputs = {str(r): states for r, states in input_states(run.spec, run.world_size).items()}
    if run.schedule is not None and run.spec.capture == "full":
        schedule = Schedule.from_doc(run.schedule, run.world_size)
        count = get(run.spec.collective, run.spec.servers).count(run.spec)
        rows = [[v for s in run.inputs[str(r)] for v in s.values or []] for r in range(run.world_size)]
        buffers = np.array(rows)
        for step, after in zip(run.steps, simulate.states(schedule, buffers, count, run.op)):
            step.ranks = {
                str(r): RankStep(
                    t0=0.0,
                    t1=seconds,
                    states=[
                        ChunkState(chunk=c, values=after[r, a:b].tolist())
                        for c, (a, b) in enumerate(run.chunk_bounds)
                    ],
                )
                for r in run.group
            }
    run.results = {str(r): RankResult(timings=Timings(iterations=[seconds])) for r in run.group}
    run.conclude(JobState.DONE)
    return run


class FakeRuns:
    """What polls ask of runs.service.Runs, and its store's reads of done runs."""

    def __init__(self) -> None:
        self.runs: dict[str, Run] = {}  # every run queued, by id, oldest first
        self.on_end: list = []
        self.store = self
        self.number = 0
        self.refusing: str | None = None  # queue() refuses, saying this

    def plan(self, spec: RunSpec) -> Run:
        validate(spec, WORLD, "gloo")
        return new_run(PLANNED, spec, "gloo", WORLD)

    def name(self, run: Run) -> str:
        if run.id == PLANNED:
            self.number += 1
            run.id = f"r-{self.number:06d}"
        return run.id

    async def queue(self, run: Run) -> Run:
        if self.refusing is not None:
            raise SpecError("run", self.refusing)
        self.name(run)
        self.runs[run.id] = run
        return run

    def cancel(self, run_id: str) -> Run | None:
        run = self.runs.get(run_id)
        if run is not None and not run.state.ended:
            run.state = JobState.CANCELLED
        return run

    def find(self, run_id: str) -> Run | None:
        return self.runs.get(run_id)

    get = find

    def live(self) -> dict[str, Run]:
        return {i: r for i, r in self.runs.items() if not r.state.ended}

    def queued(self) -> list[Run]:
        return [r for r in self.runs.values() if r.state is JobState.QUEUED]

    def recent(self) -> list[RunSummary]:
        return [r.summary() for r in reversed(self.runs.values())][:RECENT]

    def current(self) -> Run | None:
        return next((r for r in self.runs.values() if r.state is JobState.RUNNING), None)

    def end(self, run_id: str, seconds: float = 0.001, state: JobState = JobState.DONE) -> Run:
        """The run ends as its ranks report it (done: every figure; else cut short), heard by on_end."""
        run = self.runs[run_id]
        if state is JobState.DONE:
            ran(run, seconds)
        else:
            run.conclude(state, "a rank went")
        for hear in self.on_end:
            hear(run)
        return run

    def pressed(self, seconds: float = 0.001, **spec) -> Run:
        """A run every page saw: queued, run and ended done."""
        run = self.plan(RunSpec(**{**LECTURE, **spec}))
        self.name(run)
        self.runs[run.id] = run
        return self.end(run.id, seconds)

    # --- the store's reads of done runs -----------------------------------------------------------

    def _done(self, collective: str, algorithm: str, count: int | None, dtype: str | None, ranks: int | None):
        """Done runs of this collective by this algorithm (of this count, dtype and ranks where given),
        newest first."""
        for run in reversed(self.runs.values()):
            s = run.spec
            asked = ((collective, s.collective), (algorithm, s.algorithm), (count, s.count), (dtype, s.dtype))
            if run.state is JobState.DONE and all(
                w is None or w == v for w, v in (*asked, (ranks, len(run.group)))
            ):
                yield run

    def newest_done(self, collective, algorithm, count=None, dtype=None, ranks=None) -> Run | None:
        return next(self._done(collective, algorithm, count, dtype, ranks), None)

    def done_of_shape(self, collective, algorithm, count, dtype, ranks, limit) -> list[Run]:
        return list(self._done(collective, algorithm, count, dtype, ranks))[:limit]
