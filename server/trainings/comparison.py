"""Trainings of different methods on the same data, side by side: each method's loss curve and
the traffic each rank moved a step, so a lecture shows that every method makes the same SGD steps
and only where the bytes go differs (the parameter server's server against ring's every rank).

Trainings compare when everything but the method is the same: the world, the model's width, the
steps, the batch, the learning rate and the seed (the same initial weights and batches). Their
losses then agree up to the order in which each method sums the gradients (float addition is not
associative), which `loss_spread` measures."""

from __future__ import annotations

import math

from pydantic import BaseModel

from ringside.server.dispatch.job import JobState
from ringside.server.trainings.training import Training, TrainRow
from ringside.worker_agent.core.protocol import Real
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.training.rules import through_servers

# the spec's fields that make the same data, model and batches; the method (and S) may differ
SAME = ("hidden", "steps", "lr", "batch", "seed")
MOST = 16  # trainings one comparison takes: every method, the parameter server with a few S


class RankTraffic(BaseModel):
    """What one rank moved, a step on average (None: the method's backend does not say)."""

    rank: int
    server: bool
    sent: Real | None
    received: Real | None


class MethodCompared(BaseModel):
    training: str
    method: str
    servers: int | None  # the parameter server's S; None for an all_reduce
    losses: list[Real]
    ranks: list[RankTraffic]
    busiest: RankTraffic | None  # the rank whose busier direction carried the most a step
    total_sent: Real | None  # bytes every rank sent in a step, together


class Comparison(BaseModel):
    world_size: int
    parameters: int
    hidden: int
    steps: int
    lr: Real
    batch: int
    seed: int
    methods: list[MethodCompared]
    loss_spread: Real | None  # the largest difference between two methods' losses at one step


def _mean(values: list[int | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def traffic(training: Training) -> list[RankTraffic]:
    """Every rank's bytes sent and received a step, averaged over the training's steps."""
    rows: list[TrainRow] = training.steps
    return [
        RankTraffic(
            rank=r,
            server=r in training.servers,
            sent=_mean([row.ranks[str(r)].bytes_sent for row in rows]),
            received=_mean([row.ranks[str(r)].bytes_received for row in rows]),
        )
        for r in range(training.world_size)
    ]


def _busiest(ranks: list[RankTraffic]) -> RankTraffic | None:
    known = [r for r in ranks if r.sent is not None and r.received is not None]
    return max(known, key=lambda r: max(r.sent or 0, r.received or 0), default=None)


def method_of(training: Training) -> MethodCompared:
    spec, ranks = training.spec, traffic(training)
    ps = through_servers(spec.method)
    sent = [r.sent for r in ranks]
    return MethodCompared(
        training=training.id,
        method=f"{spec.method} S={spec.servers}" if ps else spec.method,
        servers=spec.servers if ps else None,
        losses=[row.loss for row in training.steps],
        ranks=ranks,
        busiest=_busiest(ranks),
        total_sent=None if None in sent else sum(s or 0 for s in sent),
    )


def spread(curves: list[list[float]]) -> float | None:
    """The largest gap between two curves at one step, over the steps where every loss is finite."""
    gaps = [max(at) - min(at) for at in zip(*curves, strict=True) if all(math.isfinite(v) for v in at)]
    return max(gaps, default=None)


def check(trainings: list[Training]) -> None:
    """Raise SpecError (field "ids") unless these are finished trainings of the same data."""
    if not 2 <= len(trainings) <= MOST:
        raise SpecError("ids", f"compares 2 to {MOST} trainings, not {len(trainings)}")
    ids = [t.id for t in trainings]
    if len(set(ids)) < len(ids):
        raise SpecError("ids", f"names a training twice: {', '.join(ids)}")
    first = trainings[0]
    for t in trainings:
        if t.state != JobState.DONE or len(t.steps) != t.spec.steps:
            raise SpecError("ids", f"{t.id} is {t.state.value}: only finished trainings compare")
        if t.world_size != first.world_size:
            raise SpecError("ids", f"{t.id} ran on {t.world_size} ranks and {first.id} on {first.world_size}")
        for field in SAME:
            mine, theirs = getattr(t.spec, field), getattr(first.spec, field)
            if mine != theirs:
                raise SpecError(
                    "ids", f"{t.id} has {field} {mine} and {first.id} {theirs}: not the same data"
                )


def compare(trainings: list[Training]) -> Comparison:
    """The trainings side by side, in the order given; SpecError where they do not compare."""
    check(trainings)
    first, methods = trainings[0], [method_of(t) for t in trainings]
    return Comparison(
        world_size=first.world_size,
        parameters=first.parameters,
        hidden=first.spec.hidden,
        steps=first.spec.steps,
        lr=first.spec.lr,
        batch=first.spec.batch,
        seed=first.spec.seed,
        methods=methods,
        loss_spread=spread([m.losses for m in methods]),
    )
