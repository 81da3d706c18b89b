"""The training, as a kind of job: data-parallel training on every rank, holding the
cluster alone (it does not queue: it is refused while anything else holds the cluster).

Viewers hear of a training whenever it changes state (`training`) and of each step once
every rank has reported it (`train_step`). Each step's gradient sync is kept beside it
(store.py) and opens on the stage as a run (trainings.sync_run)."""

from __future__ import annotations

import time

from starlette.requests import HTTPConnection

from ringside.server.cluster.cluster import Cluster
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.dispatch.job import Job, JobState
from ringside.server.door.audience import Feed
from ringside.server.door.errors import NotReady
from ringside.server.runs.run import Run
from ringside.server.trainings.store import TrainingStore
from ringside.server.trainings.training import (
    SYNC_ID,
    Pending,
    Training,
    TrainingMessage,
    TrainStepMessage,
    new_training,
    sync_run,
)
from ringside.worker_agent.core.protocol import (
    ErrorEvent,
    RunCancelled,
    TrainCommand,
    TrainFinished,
    TrainSpec,
    TrainStep,
)
from ringside.worker_agent.training.rules import check as check_training
from ringside.worker_agent.training.rules import sync_every

KEPT_SYNCS = 16  # steps' syncs made into runs lately, kept for an audience that follows the presenter


class TrainingJob(Job):
    kind = "training"
    queues = False
    events = (TrainStep, TrainFinished, RunCancelled, ErrorEvent)

    def __init__(self, training: Training, trainings: Trainings):
        super().__init__(training)
        self.training, self.trainings = training, trainings
        self.pending = Pending(training.world_size)

    def save(self, landed) -> None:
        self.trainings.store.save(self.training, landed)

    def command(self) -> TrainCommand:
        return TrainCommand(run_id=self.training.id, spec=self.training.spec)

    def allowed_s(self) -> float:
        spec = self.training.spec
        return spec.timeout * (spec.steps + 2)

    def begin(self) -> None:
        training = self.training
        training.state, training.started_at = JobState.RUNNING, time.time()
        self.announce()

    def take(self, event) -> None:
        training = self.training
        if isinstance(event, RunCancelled):
            training.on_cancelled(event)
        elif not isinstance(event, TrainStep):
            (training.on_finished if isinstance(event, TrainFinished) else training.on_error)(event)
        elif not 0 <= event.step < training.spec.steps or not 0 <= event.rank < training.world_size:
            why = f"rank {event.rank} reported step {event.step} of {training.spec.steps}"
            training.on_error(ErrorEvent(run_id=training.id, rank=event.rank, message=why))
        elif (row := self.pending.add(training, event)) is not None:
            self.trainings.fanout.publish(TrainStepMessage(id=training.id, step=row))

    def end(self, state: JobState, error: str | None) -> None:
        self.training.conclude(state, error)
        self.trainings.store.save_syncs(self.training.id, self.pending.syncs)
        self.announce()

    def announce(self) -> None:
        self.trainings.store.save(self.training)
        self.trainings.fanout.publish(TrainingMessage(training=self.training.summary()))


class Trainings:
    """Starting and finding trainings, and opening a step's gradient sync as a run."""

    def __init__(self, store: TrainingStore, dispatcher: Dispatcher, cluster: Cluster, fanout: Feed):
        self.store, self.dispatcher, self.cluster, self.fanout = store, dispatcher, cluster, fanout
        self.next_id = store.last_number() + 1
        self.syncs: dict[tuple[str, int], Run] = {}  # steps' syncs made into runs lately (find_sync)

    def left_unfinished(self) -> list[TrainingJob]:
        return [TrainingJob(training, self) for training in self.store.unfinished()]

    async def submit(self, spec: TrainSpec) -> Training:
        """Start a training, or raise SpecError naming what is wrong (and start nothing)."""
        cluster = self.cluster
        self.dispatcher.check_whole("training")
        check_training(spec, cluster.world_size)
        backend = cluster.backend
        if backend is None:  # check_whole found every rank connected, and each says its backend
            raise NotReady("group", "no ranks are connected")
        training = new_training(f"t-{self.next_id:06d}", spec, backend, cluster.world_size)
        self.next_id += 1
        await self.dispatcher.submit(TrainingJob(training, self))  # refused (Busy) while the cluster is held
        self.fanout.publish(TrainingMessage(training=training.summary()))
        return training

    def cancel(self, training_id: str) -> Training | None:
        """Cancel a training (jobs.Dispatcher.cancel: its ranks stop together after their current step)."""
        job = self.dispatcher.find(training_id)
        if not isinstance(job, TrainingJob):
            return self.find(training_id)  # ended, or none: nothing to cancel
        self.dispatcher.cancel(job)
        if job.training.state == JobState.RUNNING:
            job.announce()  # every page hears that it is stopping
        return job.training

    def current(self) -> TrainingJob | None:
        job = self.dispatcher.current
        return job if isinstance(job, TrainingJob) else None

    def find(self, training_id: str) -> Training | None:
        job = self.dispatcher.find(training_id)
        return job.training if isinstance(job, TrainingJob) else self.store.get(training_id)

    def newest(self, limit: int) -> list:
        """The newest trainings' summaries, the one running as it is now."""
        live = self.current()
        return [
            live.training.summary() if live is not None and t.id == live.id else t
            for t in self.store.newest(limit)
        ]

    def find_sync_run(self, run_id: str) -> Run | None:
        """The run a training step's sync id names (trainings.sync_run names it so), or None."""
        sync = SYNC_ID.match(run_id)
        return self.find_sync(sync[1], int(sync[2]))[0] if sync is not None else None

    def find_sync(self, training_id: str, step: int) -> tuple[Run | None, str]:
        """A training step's gradient sync as a run for the stage, or None and why not. Made
        once and kept a while: an audience that follows the presenter onto it asks together."""
        key = (training_id, step)
        if key in self.syncs:
            return self.syncs[key], ""
        training = self.find(training_id)
        if training is None:
            return None, f"no training {training_id!r}"
        if not 0 <= step < len(training.steps):
            done = len(training.steps)
            return None, f"{training.id} has {done} finished steps, 0..{done - 1}"
        live = self.current()
        syncs = (
            live.pending.syncs.get(step)
            if live is not None and live.training is training
            else self.store.sync(training.id, step)
        )
        if not syncs:
            every = sync_every(training.spec)
            return (
                None,
                f"step {step}'s gradient sync was not kept (this training keeps one in {every}: "
                f"steps {step - step % every} and {step - step % every + every} are)",
            )
        self.syncs[key] = run = sync_run(training, step, syncs)
        while len(self.syncs) > KEPT_SYNCS:
            self.syncs.pop(next(iter(self.syncs)))
        return run, ""


async def trainings_of(conn: HTTPConnection) -> Trainings:
    return conn.app.state.trainings
