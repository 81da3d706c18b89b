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

import torch
import torch.distributed as dist
from pydantic import Field

from .algorithms import NATIVE, algorithms_for, build
from .catalog import MAX_CHUNKS, MIN_TIMEOUT, SpecError
from .gradient_sync import PARAMETER_SERVER, make_sync
from .protocol import Strict
from .training_data import CLASSES, FEATURES, TRAIN, Dataset, make_dataset

MAX_STEPS = 5000
MAX_HIDDEN = 4096  # two hidden layers of 4096: about 17 M parameters, 67 MB of float32 per buffer
MAX_BATCH = 4096


class TrainSpec(Strict):
    """One training run on every rank of the world. Checked by `check`."""

    method: str = Field("native", description="gradient sync: an all_reduce algorithm (native, ring, tree, ...) "
                                              "or parameter_server")
    servers: int = Field(1, description="parameter_server: ranks that hold a shard of the weights (the rest compute)")
    hidden: int = Field(64, description="width of the MLP's two hidden layers")
    steps: int = 100
    lr: float = 0.5
    batch: int = Field(64, description="samples per step over all the ranks that compute")
    seed: int = 0
    chunks: int = Field(1, description="a stepwise all_reduce's chunks per block")
    timeout: float = 30.0


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
        self.layers = torch.nn.Sequential(torch.nn.Linear(FEATURES, hidden), torch.nn.ReLU(),
                                          torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                          torch.nn.Linear(hidden, CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def parameters(hidden: int) -> int:
    """How many parameters the MLP of this width has."""
    return FEATURES * hidden + hidden + hidden * hidden + hidden + hidden * CLASSES + CLASSES


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


def methods() -> list[str]:
    """Every way a training run can sync its gradients."""
    return [*algorithms_for("all_reduce"), PARAMETER_SERVER]


def check(spec: TrainSpec, world_size: int) -> None:
    """Raise SpecError naming the first field that cannot train on this world."""
    if spec.method not in methods():
        raise SpecError("method", f"{spec.method!r} is not a way to sync gradients (known: {', '.join(methods())})")
    ps = spec.method == PARAMETER_SERVER
    if ps and world_size < 2:
        raise SpecError("servers", "a parameter server needs at least 2 ranks: one server and one worker")
    if ps and not 1 <= spec.servers <= world_size - 1:
        raise SpecError("servers", f"must be 1 to {world_size - 1} (P-1), leaving at least one worker, not {spec.servers}")
    if not 1 <= spec.hidden <= MAX_HIDDEN:
        raise SpecError("hidden", f"must be 1 to {MAX_HIDDEN}, not {spec.hidden}")
    if not 1 <= spec.steps <= MAX_STEPS:
        raise SpecError("steps", f"must be 1 to {MAX_STEPS}, not {spec.steps}")
    if not 0 < spec.lr <= 10:
        raise SpecError("lr", f"the learning rate must be above 0 and at most 10, not {spec.lr}")
    workers = world_size - spec.servers if ps else world_size
    if not workers <= spec.batch <= min(MAX_BATCH, TRAIN):
        raise SpecError("batch", f"must be {workers} (one sample per worker) to {min(MAX_BATCH, TRAIN)}, not {spec.batch}")
    if not 1 <= spec.chunks <= MAX_CHUNKS:
        raise SpecError("chunks", f"must be 1 to {MAX_CHUNKS}, not {spec.chunks}")
    shards = spec.servers if ps else 1 if spec.method == NATIVE else build("all_reduce", spec.method, world_size, 0,
                                                                            spec.chunks).pieces
    if shards > parameters(spec.hidden):
        raise SpecError("servers" if ps else "chunks", f"cuts {parameters(spec.hidden)} parameters into {shards} parts")
    if not MIN_TIMEOUT <= spec.timeout <= 3600:
        raise SpecError("timeout", f"must be between {MIN_TIMEOUT:g} and 3600 seconds, not {spec.timeout}")


class Trainer:
    """One rank's side of a training run; gradient_sync.py moves the gradients."""

    def __init__(self, spec: TrainSpec, rank: int, world_size: int, data: Dataset | None = None):
        check(spec, world_size)  # the same verdict on every rank, before any talk
        self.spec, self.rank = spec, rank
        self.data = data or make_dataset(spec.seed)
        torch.manual_seed(spec.seed)  # the same initial weights on every rank
        self.model = Mlp(spec.hidden)
        self.weights, self.grads = flatten(self.model)
        self.sync = make_sync(spec.method, spec.servers, rank, world_size, self.weights, self.grads, spec.chunks,
                              spec.timeout)
        self.order = torch.randperm(len(self.data.train_x), generator=torch.Generator().manual_seed(spec.seed + 1))

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
        return StepRecord(step, loss, accuracy, len(y), computed - began, time.perf_counter() - computed, sent, received)

    def run(self, on_step: Callable[[StepRecord], None] | None = None) -> list[StepRecord]:
        dist.barrier()
        records = []
        for i in range(self.spec.steps):
            records.append(self.step(i))
            if on_step is not None:
                on_step(records[-1])
        return records

    @torch.no_grad()
    def evaluate(self) -> tuple[float, float]:
        """(mean loss, accuracy) of the weights on the held-out samples."""
        logits = self.model(self.data.test_x)
        loss = torch.nn.functional.cross_entropy(logits, self.data.test_y).item()
        return loss, (logits.argmax(1) == self.data.test_y).float().mean().item()
