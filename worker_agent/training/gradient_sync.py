"""How a training step's gradients meet: the part of training that is communication.

Each sync makes the step's update from the batch's summed gradient:

- all_reduce, native or any stepwise schedule: every rank computes, every rank gets
  the sum and makes the same update, so every rank holds the same weights.
- parameter server with S servers (the first S ranks): the `parameter_server`
  collective, step by step. The others, the workers, pull every shard of the weights
  before they compute, and push each shard of -lr times their gradient to its server
  after, which adds them into its weights (aggregate and update).
  Both are the collective's schedule, run by the same executor as every collective.

`prepare` runs before the gradient is computed (the pull) and says how long it took;
`apply` after, returning the bytes this rank sent and received in the step (None,
None where the backend does not say: a native call); `finish` after the last step.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import timedelta

import torch
import torch.distributed as dist

from ..core.algorithms import Algorithm, build
from ..core.algorithms.parameter_server import NAME as PULL_PUSH
from ..core.collectives import get
from ..core.protocol import SyncCapture, SyncStep
from ..rank.capture import chunk_views, states
from ..rank.executor import Executor, OnStep
from .rules import PARAMETER_SERVER, methods, through_servers


def _moved(executor: Executor) -> tuple[int, int]:
    return sum(p.bytes_sent for p in executor.plans), sum(p.bytes_received for p in executor.plans)


class AllReduceSync:
    """With `capture`, each sync is kept at summary level (`captured`): the gradient before,
    the chunks every schedule step wrote, the sum after, so any step can go on the stage."""

    def __init__(
        self,
        method: Algorithm,
        rank: int,
        world_size: int,
        grads: torch.Tensor,
        chunks: int,
        timeout: float,
        capture: bool = False,
    ):
        self.worker, self.workers = rank, world_size
        self.timeout, self.capture = timeout, capture
        self.keep = capture  # this step's sync is kept (the trainer says which steps are)
        self.wait = timedelta(seconds=timeout)
        self.executor = None
        self.bounds = [(0, grads.numel())]
        self.captured: SyncCapture | None = None
        if not method.reference:
            schedule = build(method.collective, method.name, world_size, 0, chunks)
            self.executor = Executor(
                schedule, grads.numel(), grads, list(range(world_size)), None, "SUM", record_states=capture
            )
            self.bounds = self.executor.bounds

    def prepare(self, weights: torch.Tensor) -> float:
        return 0.0  # every rank holds the weights already

    def finish(self, weights: torch.Tensor) -> None:
        pass

    def apply(self, weights: torch.Tensor, grads: torch.Tensor, lr: float) -> tuple[int | None, int | None]:
        before = self._states(grads) if self.keep else []
        steps: list[SyncStep] = []
        moved: tuple[int | None, int | None]
        if self.executor is None:
            dist.all_reduce(grads, async_op=True).wait(self.wait)
            moved = (None, None)
        else:
            recorder = self._recorder(self.executor, steps) if self.keep else None
            self.executor.run(time.perf_counter(), self.timeout, recorder)
            moved = _moved(self.executor)
        self.captured = (
            SyncCapture(inputs=before, steps=steps, output=self._states(grads)) if self.keep else None
        )
        weights.add_(grads, alpha=-lr)
        return moved

    def _states(self, grads: torch.Tensor) -> list:
        return states(chunk_views(grads, self.bounds, range(len(self.bounds))), "summary")

    def _recorder(self, executor: Executor, steps: list[SyncStep]) -> OnStep:
        def on_step(index: int, t0: float, t1: float) -> None:
            written = ((c, executor.state(index, c)) for c in executor.plans[index].written)
            steps.append(SyncStep(step=index, t0=t0, t1=t1, states=states(written, "summary")))

        return on_step


class ParameterServerSync:
    """The chapter's step, on the `parameter_server` collective's buffer and schedule: 2S
    shards of the (padded) model, S of weights then S of gradient. Before computing, every
    worker pulls every shard of the weights (the schedule's pull step); after, it writes
    -lr times its gradient share into its gradient shards and pushes them (the push step),
    which every server adds into its shard of the weights: aggregate and update at once."""

    def __init__(
        self,
        servers: int,
        rank: int,
        world_size: int,
        weights: torch.Tensor,
        timeout: float,
        capture: bool = False,
    ):
        self.servers, self.rank, self.timeout, self.capture = servers, rank, timeout, capture
        self.keep = capture
        self.workers = world_size - servers
        self.worker = rank - servers if rank >= servers else None
        self.n = weights.numel()
        self.shard = -(-self.n // servers)  # the model padded to S equal shards, as the collective takes it
        self.buffer = torch.zeros(2 * servers * self.shard, dtype=weights.dtype)
        self.buffer[: self.n] = weights  # every rank starts from the same weights (the seed)
        schedule = build(PARAMETER_SERVER, PULL_PUSH, world_size, 0, 1, servers)
        pull, push = (replace(schedule, steps=(s,)) for s in schedule.steps)
        ranks = list(range(world_size))
        self.pull = Executor(pull, self.shard, self.buffer, ranks, None, None, record_states=capture)
        self.push = Executor(push, self.shard, self.buffer, ranks, None, "SUM", record_states=capture)
        self.bounds = self.pull.bounds
        self.gradient = self.buffer[servers * self.shard : servers * self.shard + self.n]
        self.captured: SyncCapture | None = None
        self.before: list = []
        self.steps: list[SyncStep] = []

    def prepare(self, weights: torch.Tensor) -> float:
        """Pull: the weights as the servers hold them; returns the seconds it took."""
        began = time.perf_counter()
        if self.keep:  # the weights' shards as they stand before the pull
            self.before = states(chunk_views(self.buffer, self.bounds, range(self.servers)), "summary")
            self.steps = []
        self.pull.run(began, self.timeout, self._recorder(self.pull, 0) if self.keep else None)
        if self.worker is not None:
            weights.copy_(self.buffer[: self.n])
        return time.perf_counter() - began

    def apply(self, weights: torch.Tensor, grads: torch.Tensor, lr: float) -> tuple[int, int]:
        if self.worker is not None:
            torch.mul(grads, -lr, out=self.gradient)
        if self.keep:  # the gradient's shards as the push finds them
            gradient = states(
                chunk_views(self.buffer, self.bounds, range(self.servers, 2 * self.servers)), "summary"
            )
        self.push.run(time.perf_counter(), self.timeout, self._recorder(self.push, 1) if self.keep else None)
        self.captured = (
            SyncCapture(inputs=self.before + gradient, steps=self.steps, output=self._output())
            if self.keep
            else None
        )
        pulled, pushed = _moved(self.pull), _moved(self.push)
        return pulled[0] + pushed[0], pulled[1] + pushed[1]

    def finish(self, weights: torch.Tensor) -> None:
        """The last pull: the workers take the last update too."""
        self.prepare(weights)

    def _output(self) -> list:
        collective = get(PARAMETER_SERVER, self.servers)
        blocks = collective.output_blocks(self.rank, self.servers + self.workers, 0, 0)
        return states(chunk_views(self.buffer, self.bounds, blocks), "summary")

    def _recorder(self, executor: Executor, step: int):
        def on_step(index: int, t0: float, t1: float) -> None:
            written = ((c, executor.state(index, c)) for c in executor.plans[index].written)
            self.steps.append(SyncStep(step=step, t0=t0, t1=t1, states=states(written, "summary")))

        return on_step


def make_sync(
    method: str,
    servers: int,
    rank: int,
    world_size: int,
    weights: torch.Tensor,
    grads: torch.Tensor,
    chunks: int,
    timeout: float,
    capture: bool = False,
):
    if through_servers(method):
        return ParameterServerSync(servers, rank, world_size, weights, timeout, capture)
    return AllReduceSync(methods()[method], rank, world_size, grads, chunks, timeout, capture)
