"""Data-parallel training on the ranks: the system the collectives come from.

Every rank builds the same MLP from the same seed. Each step takes the next global
batch of a fixed synthetic data set (`data.py`), splits it among the ranks that
compute gradients, and each of those computes the gradient of its part of the
batch's mean loss (its loss sum over the global batch size), so that the SUM of the
parts is the batch's mean gradient, whoever computed which part. The gradient sync
(`sync.py`: native all_reduce, any stepwise all_reduce schedule, or a parameter
server) leaves that sum where the update is made, and one SGD step follows. The
mathematics is the same for every method: only where the bytes go differs.

Gradients and weights each live in one flat buffer (the parameters' .grad and .data
are views of it), so a sync moves one tensor and the update is one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.protocol import RunCancelled, TrainFinished, TrainSpec, TrainStep
from .data import CLASSES, FEATURES, Dataset, make_dataset
from .gradient_sync import make_sync
from .rules import check, sync_every


@dataclass
class StepRecord:
    """What one rank did in one step. loss and accuracy: over its part of the batch (None
    on a parameter server's server, which computes no gradient)."""

    step: int
    loss: float | None
    accuracy: float | None
    samples: int
    compute_s: float
    comm_s: float
    bytes_sent: int | None  # None: the backend does not say (native)
    bytes_received: int | None


class Mlp(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(FEATURES, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, CLASSES),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def flatten(model: torch.nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    """One flat buffer for the weights and one for the gradients; every parameter's
    .data and .grad become views of them."""
    params = list(model.parameters())
    weights = torch.cat([p.detach().reshape(-1) for p in params])
    grads = torch.zeros_like(weights)
    offset = 0
    for p in params:
        n = p.numel()
        p.data = weights[offset : offset + n].view_as(p)
        p.grad = grads[offset : offset + n].view_as(p)
        offset += n
    return weights, grads


def part(batch: int, workers: int, me: int) -> slice:
    """Worker `me`'s near-equal share of a batch's positions."""
    base, extra = divmod(batch, workers)
    start = me * base + min(me, extra)
    return slice(start, start + base + (me < extra))


class Stopped(Exception):
    """The ranks agreed to stop the training after `done` steps (a cancel)."""

    def __init__(self, done: int):
        super().__init__(f"stopped after {done} steps")
        self.done = done


class Trainer:
    """One rank's side of a training run; gradient_sync.py moves the gradients."""

    def __init__(
        self, spec: TrainSpec, rank: int, world_size: int, data: Dataset | None = None, capture: bool = False
    ):
        check(spec, world_size)  # the same verdict on every rank, before any talk
        self.keep_every = sync_every(spec)
        self.spec, self.rank = spec, rank
        self.data = data or make_dataset(spec.seed)
        torch.manual_seed(spec.seed)  # the same initial weights on every rank
        self.model = Mlp(spec.hidden)
        self.weights, self.grads = flatten(self.model)
        self.sync = make_sync(
            spec.method,
            spec.servers,
            rank,
            world_size,
            self.weights,
            self.grads,
            spec.chunks,
            spec.timeout,
            capture,
        )
        self.order = torch.randperm(
            len(self.data.train_x), generator=torch.Generator().manual_seed(spec.seed + 1)
        )

    def batch(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        """This rank's part of step `step`'s global batch (empty on a rank that computes none)."""
        n, b = len(self.order), self.spec.batch
        positions = self.order[(step * b + torch.arange(b)) % n]
        if self.sync.worker is None:
            return self.data.train_x[:0], self.data.train_y[:0]
        mine = positions[part(b, self.sync.workers, self.sync.worker)]
        return self.data.train_x[mine], self.data.train_y[mine]

    def step(self, step: int) -> StepRecord:
        began = time.perf_counter()
        self.sync.keep = self.sync.capture and step % self.keep_every == 0  # the same steps on every rank
        pulled = self.sync.prepare(self.weights)  # a parameter server's workers pull the weights first
        x, y = self.batch(step)
        self.grads.zero_()
        loss = accuracy = None
        if len(y):
            logits = self.model(x)
            total = torch.nn.functional.cross_entropy(logits, y, reduction="sum")
            (total / self.spec.batch).backward()  # this part's share of the batch's mean gradient
            loss, accuracy = total.item() / len(y), (logits.argmax(1) == y).float().mean().item()
        computed = time.perf_counter()
        sent, received = self.sync.apply(self.weights, self.grads, self.spec.lr)
        return StepRecord(
            step,
            loss,
            accuracy,
            len(y),
            computed - began - pulled,
            pulled + time.perf_counter() - computed,
            sent,
            received,
        )

    def run(
        self, on_step: Callable[[StepRecord], None] | None = None, stop: Callable[[], bool] | None = None
    ) -> list[StepRecord]:
        """Every step; with `stop`, the ranks ask each other after each step whether any was told
        to stop, and raise Stopped together if one was."""
        dist.barrier()
        records = []
        for i in range(self.spec.steps):
            records.append(self.step(i))
            if on_step is not None:
                on_step(records[-1])
            if stop is not None and i + 1 < self.spec.steps and self._anyone(stop()):
                raise Stopped(i + 1)
        self.sync.finish(self.weights)
        return records

    def _anyone(self, wants: bool) -> bool:
        """Whether any rank wants to stop: one element's all_reduce, outside the step's timing, so every
        rank stops after the same step."""
        asked = torch.tensor([float(wants)], device=self.weights.device)
        dist.all_reduce(asked, dist.ReduceOp.MAX, async_op=True).wait(timedelta(seconds=self.spec.timeout))
        return bool(asked.item())

    @torch.no_grad()
    def evaluate(self) -> tuple[float, float]:
        """(mean loss, accuracy) of the weights on the held-out samples."""
        logits = self.model(self.data.test_x)
        loss = torch.nn.functional.cross_entropy(logits, self.data.test_y).item()
        return loss, (logits.argmax(1) == self.data.test_y).float().mean().item()


def reporter(trainer: Trainer, run_id: str, rank: int, emit: Callable) -> Callable[[StepRecord], None]:
    """on_step for Trainer.run: each step as a TrainStep, with its gradient sync if it was kept."""

    def report(r: StepRecord) -> None:
        emit(
            TrainStep(
                run_id=run_id,
                rank=rank,
                step=r.step,
                loss=r.loss,
                accuracy=r.accuracy,
                samples=r.samples,
                compute_s=r.compute_s,
                comm_s=r.comm_s,
                bytes_sent=r.bytes_sent,
                bytes_received=r.bytes_received,
                sync=trainer.sync.captured,
            )
        )

    return report


def train_and_report(
    world, run_id: str, spec: TrainSpec, emit: Callable, stop: Callable[[], bool] | None = None
) -> None:
    """A training run for a server: every step as a TrainStep (with its gradient sync at
    summary level, one in sync_every(spec)), then TrainFinished with the held-out figures
    (a server's are None); or, once `stop` says so on any rank, RunCancelled after that step."""
    trainer = Trainer(spec, world.rank, world.world_size, capture=True)
    try:
        trainer.run(reporter(trainer, run_id, world.rank, emit), stop)
    except Stopped as e:
        emit(RunCancelled(run_id=run_id, rank=world.rank, done=e.done, total=spec.steps))
        return
    test_loss, test_accuracy = trainer.evaluate() if trainer.sync.worker is not None else (None, None)
    emit(TrainFinished(run_id=run_id, rank=world.rank, test_loss=test_loss, test_accuracy=test_accuracy))
