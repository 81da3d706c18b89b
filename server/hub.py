"""The hub: the cluster, the run queue and its dispatcher, the store and the viewers.

Runs execute one at a time, in the order accepted, on every rank (ranks
outside a run's group still take the command: torch makes every rank build
every subgroup). A run ends when every rank of its group has finished, when
one reports an error, when a rank of the world is lost, or at its deadline.
Everything happens on the server's event loop, so no locks are needed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque

from starlette.requests import Request
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.worker_agent.core.catalog import validate
from ringside.worker_agent.core.protocol import (Cancel, ErrorEvent, Heartbeat, Hello, RunCancelled, RunCommand, RunFinished, RunSpec,
                                            RunStarted, StepEvent, TrainCommand, TrainFinished, TrainSpec, TrainStep)
from ringside.worker_agent.core.simulate import Sharing
from ringside.worker_agent.training.rules import check as check_training, sync_every

from . import model, wavefront
from .config import Settings
from .errors import Busy, NotReady
from .fanout import Fanout
from .messages import ClusterMessage, EndedMessage, SnapshotMessage, StartedMessage, StepMessage, SummaryMessage
from .metrics import Metrics
from .registry import Cluster
from .runs import Run, RunState, fits, new_run
from .store import Store
from .training_store import TrainingStore
from .trainings import SYNC_ID, Pending, Training, TrainingMessage, TrainStepMessage, new_training, sync_run

TICK_S = 1.0
KEPT_SYNCS = 16
STOPPED = "the server stopped before this {} finished"
LOSS_GRACE_S = 1.5  # how long a failed run or training waits to see whether a rank died, to name it
MAX_SECONDS = 1e7  # a reported time (115 days); beyond it, microseconds in a trace overflow to infinity
MAX_BYTES = 1 << 64  # a rank's bytes moved, or a checksum (a 64-bit word)
log = logging.getLogger("ringside.server")


class Hub:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cluster = Cluster(settings.lost_after)
        self.store = Store(settings.db)
        self.fanout = Fanout(settings.viewer_queue)
        self.workers: dict[int, WebSocket] = {}
        self.queue: deque[Run] = deque()
        self.current: Run | None = None
        self.stopping = False  # Ctrl-C or SIGTERM arrived (serve.Server): what is cut short now is interrupted
        self.changed = asyncio.Event()  # something the dispatcher may be waiting for happened
        self.next_id = self.store.last_number() + 1
        self.tasks: list[asyncio.Task] = []
        self.telling: set[asyncio.Task] = set()
        for run in self.store.unfinished():  # what a previous server left running or queued
            run.conclude(RunState.INTERRUPTED, STOPPED.format("run"))
            self.store.save(run)
        if self.store.new_figures:  # a store from before figures were kept: its last done runs, once
            for run in self.store.finished(model.FIT_WINDOW):
                self.store.add_figures(run, model.row_of(run))
        # what /metrics and /api/model read, kept up to date as runs end (_save_ended)
        self.metrics = Metrics(self.store.last_busbw())
        self.fit = model.Fit(self.store.fit_rows(model.FIT_WINDOW))
        self.trainings = TrainingStore(self.store.db)
        self.training: Training | None = None  # the training that holds the cluster, if one does
        self.pending: Pending | None = None
        self.next_training = self.trainings.last_number() + 1
        self.syncs: dict[tuple[str, int], Run] = {}  # steps' syncs made into runs lately (find_sync)
        for training in self.trainings.unfinished():
            training.conclude(RunState.INTERRUPTED, STOPPED.format("training"))
            self.trainings.save(training)

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._dispatch()), asyncio.create_task(self._tick())]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for run in ([self.current] if self.current else []) + list(self.queue):
            run.conclude(RunState.INTERRUPTED, STOPPED.format("run"))
            self.store.save(run)
        if self.training is not None:
            self.training.conclude(RunState.INTERRUPTED, STOPPED.format("training"))
            self.trainings.save(self.training)
        self.store.close()

    # --- runs ----------------------------------------------------------------

    def submit(self, spec: RunSpec) -> Run:
        """Queue a run, or raise SpecError naming what is wrong (and change nothing)."""
        self._check_whole("run")
        placement = self.cluster.placement()
        spec, choice = model.resolve(spec, self.cluster.world_size, self.cluster.backend, self.fit, placement)  # `auto` made concrete
        validate(spec, self.cluster.world_size, self.cluster.backend)
        run = new_run(f"r-{self.next_id:06d}", spec, self.cluster.backend, self.cluster.world_size)
        run.choice, run.sharing = choice, Sharing.of(placement).to_json()
        run.perturbed = wavefront.record(run)
        self.next_id += 1
        self.queue.append(run)
        self.store.save(run)
        self.fanout.publish(SummaryMessage(run=run.summary()))
        self.changed.set()
        return run

    def _check_whole(self, what: str) -> None:
        """Every rank of the world takes part in every run and training: all must be here."""
        if not self.cluster.live():
            raise NotReady("group", "no ranks are connected")
        missing = self.cluster.missing()
        if missing:
            raise NotReady("group", f"ranks {missing} of the world are not connected; every rank takes part in every {what}")

    # --- trainings: data-parallel training on every rank, holding the cluster alone ---

    def submit_training(self, spec: TrainSpec) -> Training:
        """Start a training, or raise SpecError naming what is wrong (and start nothing)."""
        self._check_whole("training")
        check_training(spec, self.cluster.world_size)
        busy = self.training or self.current or (self.queue[0] if self.queue else None)
        if busy is not None:
            raise Busy("cluster", f"{busy.id} holds the cluster; train when it has ended")
        training = new_training(f"t-{self.next_training:06d}", spec, self.cluster.backend, self.cluster.world_size)
        self.next_training += 1
        self.training, self.pending = training, Pending(training.world_size)
        self.trainings.save(training)
        self.fanout.publish(TrainingMessage(training=training.summary()))
        task = asyncio.create_task(self._train(training))
        self.telling.add(task)
        task.add_done_callback(self.telling.discard)
        return training

    def find_training(self, training_id: str) -> Training | None:
        if self.training is not None and self.training.id == training_id:
            return self.training
        return self.trainings.get(training_id)

    async def _train(self, training: Training) -> None:
        try:
            training.state, training.started_at = RunState.RUNNING, time.time()
            self.trainings.save(training)
            self.fanout.publish(TrainingMessage(training=training.summary()))
            await self._tell_workers(TrainCommand(run_id=training.id, spec=training.spec).model_dump_json())
            training.conclude(*await self._await(training, "training", training.spec.timeout * (training.spec.steps + 2)))
        except Exception:  # a bug costs this training, never the cluster: runs wait for it to end
            log.exception("training %s: the server failed", training.id)
            training.conclude(RunState.FAILED, "the server failed while training (its log says why)")
        finally:
            self.trainings.save(training)
            self.trainings.save_syncs(training.id, self.pending.syncs)
            self.training = self.pending = None
            self.fanout.publish(TrainingMessage(training=training.summary()))
            self.changed.set()

    async def _nudged(self, seconds: float) -> None:
        """Until something a waiting run or training may care about happens, or `seconds` pass."""
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout=seconds)
        except asyncio.TimeoutError:
            pass

    async def _lost_within(self, seconds: float) -> list[int]:
        """The ranks of the world found missing within `seconds` (at once, if any are), first lost first."""
        deadline = time.monotonic() + seconds
        while not (lost := self.cluster.missing_in_order()) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return lost

    def _on_training_event(self, event) -> None:
        training = self.training
        if training is None or event.run_id != training.id:
            return  # late news of a training that has ended
        if isinstance(event, TrainStep):
            if not 0 <= event.step < training.spec.steps or not 0 <= event.rank < training.world_size:
                training.on_error(ErrorEvent(run_id=training.id, rank=event.rank,
                                             message=f"rank {event.rank} reported step {event.step} of {training.spec.steps}"))
            elif (row := self.pending.add(training, event)) is not None:
                self.fanout.publish(TrainStepMessage(id=training.id, step=row))
        elif isinstance(event, TrainFinished):
            training.on_finished(event)
        else:
            training.on_error(event)
        self.changed.set()

    def find_sync(self, training_id: str, step: int) -> tuple[Run | None, str]:
        """A training step's gradient sync as a run for the stage, or None and why not. Made
        once and kept a while: an audience that follows the presenter onto it asks together."""
        key = (training_id, step)
        if key in self.syncs:
            return self.syncs[key], ""
        training = self.find_training(training_id)
        if training is None:
            return None, f"no training {training_id!r}"
        if not 0 <= step < len(training.steps):
            return None, f"{training.id} has {len(training.steps)} finished steps, 0..{len(training.steps) - 1}"
        syncs = self.pending.syncs.get(step) if training is self.training else self.trainings.sync(training.id, step)
        if not syncs:
            every = sync_every(training.spec)
            return None, f"step {step}'s gradient sync was not kept (this training keeps one in {every}: " \
                         f"steps {step - step % every} and {step - step % every + every} are)"
        self.syncs[key] = run = sync_run(training, step, syncs)
        while len(self.syncs) > KEPT_SYNCS:
            self.syncs.pop(next(iter(self.syncs)))
        return run, ""

    def find(self, run_id: str) -> Run | None:
        if self.current is not None and self.current.id == run_id:
            return self.current
        if (sync := SYNC_ID.match(run_id)) is not None:  # a training step's sync (trainings.sync_run names it so)
            return self.find_sync(sync[1], int(sync[2]))[0]
        return next((r for r in self.queue if r.id == run_id), None) or self.store.get(run_id)

    def live(self) -> dict[str, Run]:
        """The runs not yet ended, by id: newer than what the store holds of them."""
        return {r.id: r for r in [self.current, *self.queue] if r is not None}

    def cancel(self, run_id: str) -> Run | None:
        """Queued: cancelled now. Running: the ranks are told, stop together at their next
        check between iterations (runner.py), and the run is marked cancelled when they have
        (or have finished: a single iteration is never cut short)."""
        run = self.find(run_id)
        if run is None or run.state.ended:
            return run
        if run.state == RunState.QUEUED:
            self.queue.remove(run)
            run.conclude(RunState.CANCELLED)
            self.store.save(run)
            self.fanout.publish(SummaryMessage(run=run.summary()))
        elif not run.cancel_requested:
            run.cancel_requested = True
            task = asyncio.create_task(self._tell_workers(Cancel(run_id=run_id).model_dump_json()))
            self.telling.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(self.telling.discard)
        return run

    async def _tell_workers(self, text: str) -> None:
        for ws in list(self.workers.values()):
            try:
                await ws.send_text(text)
            except (WebSocketDisconnect, RuntimeError, OSError):
                pass  # its loss is noticed by _await

    async def _dispatch(self) -> None:
        while True:
            while not self.queue or self.cluster.missing() or not self.cluster.live() or self.training is not None:
                self.changed.clear()
                await self.changed.wait()
            run = self.queue.popleft()
            try:
                await self._execute(run)
            except Exception:  # a bug must cost this run, never the dispatcher: every later run would wait forever
                log.exception("run %s: the dispatcher failed", run.id)
                self.current = None
                run.state, run.finished_at = RunState.FAILED, time.time()
                run.error = run.error or "the server failed while running it (its log says why)"
                self.store.save(run)
                self.fanout.publish(EndedMessage(run=run))

    async def _execute(self, run: Run) -> None:
        """Viewers hear of it once every rank has started (on_event), and when it ends."""
        run.state, run.started_at = RunState.RUNNING, time.time()
        self.current = run
        self.store.save(run)
        await self._tell_workers(RunCommand(run_id=run.id, spec=run.spec).model_dump_json())
        spec = run.spec
        state, error = await self._await(run, "run", spec.timeout * (spec.warmup + spec.iterations + 2))
        if state == RunState.FAILED:
            wavefront.blame(run, error)  # a hang: the run failed on the rank the others waited for
        run.conclude(state, error)
        self.current = None
        self._save_ended(run)
        self.fanout.publish(EndedMessage(run=run))

    def _save_ended(self, run: Run) -> None:
        """Store a run that has ended and, if done, its figures: the counters and the fit
        take it in now, so no read ever goes back over the stored runs."""
        done = run.state == RunState.DONE
        row = model.row_of(run) if done else None
        if row is not None:  # predicted before its own row joins the fit
            run.prediction = model.prediction_of(row, self.fit)
        self.store.save(run)
        if done:
            self.store.add_figures(run, row)
            self.metrics.observe(run)
            if row is not None:
                self.fit.add(row)

    async def _await(self, job: Run | Training, what: str, allowed: float) -> tuple[RunState, str | None]:
        """Until every rank of a run or training has finished, or one is lost or fails, or the
        time allowed passes, or the server stops: its end state and, if failed, why."""
        deadline = time.monotonic() + allowed
        while True:
            if self.stopping:  # Ctrl-C: the ranks go with the server, and what they were doing did not fail
                job.error = None
                return RunState.INTERRUPTED, STOPPED.format(what)
            lost = self.cluster.missing_in_order()
            if job.error is not None or lost:  # a peer's broken connection is often heard before its loss
                lost = lost or await self._lost_within(LOSS_GRACE_S)
                if not lost:
                    return RunState.FAILED, None
                said, job.error = job.error, None  # the rank that died goes first; what a survivor said of it follows
                return RunState.FAILED, lost_words(lost, what) + (f": {said}" if said else f"; ranks {job.unfinished()} did not finish")
            if not job.unfinished():
                return RunState.DONE, None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return RunState.FAILED, f"ranks {job.unfinished()} did not finish within {allowed:g} s"
            await self._nudged(min(remaining, TICK_S))

    # --- workers -------------------------------------------------------------

    def worker_joined(self, hello: Hello, ws: WebSocket) -> None:
        self.cluster.join(hello)
        self.workers[hello.rank] = ws
        self.changed.set()

    def worker_left(self, rank: int, ws: WebSocket) -> None:
        if self.workers.get(rank) is ws:
            del self.workers[rank]
            self.cluster.leave(rank)
            self.changed.set()

    def on_event(self, event) -> None:
        """One event from a worker; everything but a heartbeat belongs to the current run."""
        self.cluster.seen(event.rank)
        if isinstance(event, Heartbeat):
            self.cluster.beat(event)
            return
        if isinstance(event, (TrainStep, TrainFinished)) or (self.training is not None and isinstance(event, ErrorEvent)):
            self._on_training_event(event)
            return
        run = self.current
        if run is None or getattr(event, "run_id", None) != run.id:
            return  # late news of a run that has ended: nothing to update
        if isinstance(event, RunStarted):
            if not run.started():
                run.on_started(event)
                if run.started() and run.spec.purpose != "sweep":  # the last rank is in: the run goes on stage
                    self.fanout.publish(StartedMessage(run=run))
        elif (why := nonsense(event, run)) is not None:  # the run fails, saying so; nothing of it is taken in
            run.on_error(ErrorEvent(run_id=run.id, rank=event.rank, message=why))
        elif isinstance(event, StepEvent):
            entry = run.on_step(event)
            if run.started() and run.spec.purpose != "sweep":  # steps before that are in run_started's run; a sweep's stay off stage
                self.fanout.publish(StepMessage(run_id=run.id, step=event.step, rank=event.rank, t0=entry.t0, t1=entry.t1,
                                                states=entry.states))
        elif isinstance(event, RunFinished):
            run.on_finished(event)
        elif isinstance(event, RunCancelled):
            run.on_cancelled(event)
        elif isinstance(event, ErrorEvent):
            run.on_error(event)
        if (front := wavefront.observe(run, event)) is not None:  # a hang run's ranks report steps and arrivals live
            self.fanout.publish(wavefront.WavefrontMessage(run_id=run.id, wavefront=front))
        self.changed.set()

    async def _tick(self) -> None:
        """Once a second: the cluster to every viewer, and a nudge to notice lost ranks."""
        while True:
            await asyncio.sleep(TICK_S)
            if self.cluster.ranks:
                self.fanout.publish(ClusterMessage(**self.cluster.to_json()))
            self.changed.set()

    def snapshot(self, role: str) -> SnapshotMessage:
        return SnapshotMessage(role=role, cluster=self.cluster.to_json(), queue=[r.summary() for r in self.queue],
                               current=self.current)


def nonsense(event, run: Run) -> str | None:
    """Why a rank's step or result cannot be taken into the run, or None. Steps and chunks are
    the plan's (a step beyond it would make one small frame allocate a billion); a time that is not a number
    of seconds a run could take (NaN, 1e308) has no place in a trace, a chart or a fit."""
    if isinstance(event, StepEvent):
        if not 0 <= event.step < len(run.steps):
            return f"rank {event.rank} reported step {event.step}, outside the run's {len(run.steps)} planned steps"
        if not fits(event.states, run.chunk_bounds):
            return f"rank {event.rank} reported a chunk the run's buffer does not have (step {event.step})"
        times = (event.t0, event.t1)
    elif isinstance(event, RunFinished):
        if not fits(event.output, run.chunk_bounds):
            return f"rank {event.rank} ended with a chunk the run's buffer does not have"
        timings = event.timings
        if len(timings.iterations) > run.spec.iterations or len(timings.steps) > len(run.steps):
            return (f"rank {event.rank} reported {len(timings.iterations)} iterations and {len(timings.steps)} steps; "
                    f"the run has {run.spec.iterations} and {len(run.steps)}")
        if not all(0 <= n <= MAX_BYTES for n in (event.bytes_sent, event.bytes_received, event.checksum or 0)):
            return f"rank {event.rank} reported bytes or a checksum outside 0 to 2^64"
        if not all(t >= 0 for t in timings.iterations):
            return f"rank {event.rank} reported an iteration that took negative time"
        times = (*timings.iterations, *timings.steps)
    else:
        return None
    if not all(-MAX_SECONDS <= t <= MAX_SECONDS for t in times):  # NaN fails both
        return f"rank {event.rank} reported a time that is not a number of seconds within ±{MAX_SECONDS:g}"
    return None


def lost_words(lost: list[int], what: str) -> str:
    then = f" (then ranks {lost[1:]}, which gave up on it)" if lost[1:] else ""
    return f"rank {lost[0]} was lost during the {what}{then}"


async def hub_of(request: Request) -> Hub:
    """The app's hub, as a FastAPI dependency (async: resolved on the event loop)."""
    return request.app.state.hub
