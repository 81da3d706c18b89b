"""How a training step's gradients meet: the part of training that is communication.

Each sync leaves the batch's summed gradient where the update is made and makes it:

- all_reduce, native or any stepwise schedule: every rank computes, every rank gets
  the sum and makes the same update, so every rank holds the same weights.
- parameter server with S servers (the first S ranks): the others compute; each
  pushes each shard of its gradient to that shard's server, reduced in (aggregate),
  the server updates its shard of the weights, and every worker pulls every shard.
  Push and pull are schedules, run by the same executor as every collective.

`apply` returns the bytes this rank sent and received (None, None where the backend
does not say: a native call).
"""

from __future__ import annotations

import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist

from .algorithms import NATIVE, build
from .capture import chunk_views, states
from .executor import Executor
from .protocol import SyncCapture, SyncStep
from .schedule import Schedule, Step
from .training_rules import PARAMETER_SERVER


def _moved(executor: Executor) -> tuple[int, int]:
    return sum(p.bytes_sent for p in executor.plans), sum(p.bytes_received for p in executor.plans)


class AllReduceSync:
    """With `capture`, each sync is kept at summary level (`captured`): the gradient before,
    the chunks every schedule step wrote, the sum after, so any step can go on the stage."""

    def __init__(self, method: str, rank: int, world_size: int, grads: torch.Tensor, chunks: int, timeout: float,
                 capture: bool = False):
        self.worker, self.workers = rank, world_size
        self.timeout, self.capture = timeout, capture
        self.wait = timedelta(seconds=timeout)
        self.executor = None
        self.bounds = [(0, grads.numel())]
        self.captured: SyncCapture | None = None
        if method != NATIVE:
            schedule = build("all_reduce", method, world_size, 0, chunks)
            self.executor = Executor(schedule, grads.numel(), grads, list(range(world_size)), None, "SUM",
                                     record_states=capture)
            self.bounds = self.executor.bounds

    def apply(self, weights: torch.Tensor, grads: torch.Tensor, lr: float) -> tuple[int | None, int | None]:
        before = self._states(grads) if self.capture else []
        steps: list[SyncStep] = []
        if self.executor is None:
            dist.all_reduce(grads, async_op=True).wait(self.wait)
            moved = (None, None)
        else:
            self.executor.run(time.perf_counter(), self.timeout, self._recorder(steps) if self.capture else None)
            moved = _moved(self.executor)
        if self.capture:
            self.captured = SyncCapture(inputs=before, steps=steps, output=self._states(grads))
        weights.add_(grads, alpha=-lr)
        return moved

    def _states(self, grads: torch.Tensor) -> list:
        return states(chunk_views(grads, self.bounds, range(len(self.bounds))), "summary")

    def _recorder(self, steps: list[SyncStep]):
        executor = self.executor

        def on_step(index: int, t0: float, t1: float) -> None:
            written = ((c, executor.state(index, c)) for c in executor.plans[index].written)
            steps.append(SyncStep(step=index, t0=t0, t1=t1, states=states(written, "summary")))

        return on_step


def push_schedule(p: int, servers: int) -> Schedule:
    """Every worker reduces shard s of its gradient into server s, all at once."""
    table = [(w, s, s, s, 1) for w in range(servers, p) for s in range(servers)]
    step = Step("push", "every worker pushes each shard of its gradient to that shard's server, which sums them",
                np.array(table, dtype=np.int64))
    return Schedule("all_reduce", PARAMETER_SERVER, p, 0, blocks=1, pieces=servers, steps=(step,), layout="servers")


def pull_schedule(p: int, servers: int) -> Schedule:
    """Every server sends its shard of the weights to every worker, all at once."""
    table = [(s, w, s, s, 0) for s in range(servers) for w in range(servers, p)]
    step = Step("pull", "every worker pulls each shard of the weights from its server",
                np.array(table, dtype=np.int64))
    return Schedule("broadcast", PARAMETER_SERVER, p, 0, blocks=1, pieces=servers, steps=(step,), layout="servers")


class ParameterServerSync:
    def __init__(self, servers: int, rank: int, world_size: int, weights: torch.Tensor, grads: torch.Tensor,
                 timeout: float):
        self.servers, self.rank, self.timeout = servers, rank, timeout
        self.workers = world_size - servers
        self.worker = rank - servers if rank >= servers else None
        ranks = list(range(world_size))
        self.push = Executor(push_schedule(world_size, servers), grads.numel(), grads, ranks, None, "SUM")
        self.pull = Executor(pull_schedule(world_size, servers), weights.numel(), weights, ranks, None, None)
        self.shard = slice(*self.push.bounds[rank]) if rank < servers else None
        self.captured = None  # its two phases move two buffers: not one run to put on the stage

    def apply(self, weights: torch.Tensor, grads: torch.Tensor, lr: float) -> tuple[int, int]:
        self.push.run(time.perf_counter(), self.timeout)
        if self.shard is not None:  # the server's own step: update its shard with the summed gradient
            weights[self.shard].add_(grads[self.shard], alpha=-lr)
        self.pull.run(time.perf_counter(), self.timeout)
        pushed, pulled = _moved(self.push), _moved(self.pull)
        return pushed[0] + pulled[0], pushed[1] + pulled[1]


def make_sync(method: str, servers: int, rank: int, world_size: int, weights: torch.Tensor, grads: torch.Tensor,
              chunks: int, timeout: float, capture: bool = False):
    if method == PARAMETER_SERVER:
        return ParameterServerSync(servers, rank, world_size, weights, grads, timeout)
    return AllReduceSync(method, rank, world_size, grads, chunks, timeout, capture)
