"""What the stage needs to draw a run that differs by collective, given as data so that the page
names none: which chunks are each rank's output, the labelled parts of a buffer (all_to_all's
input and output halves), the division AVG ends with, the element size, and the traffic
formula of the algorithm on show beside what the run measured (algorithms/formulas.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel

from ringside.server.door.audience import ANSWER, only
from ringside.worker_agent.core import run_shape, vocabulary
from ringside.worker_agent.core.algorithms import formulas, parameter_server
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import RunSpec


class Region(BaseModel):
    """A labelled part of every rank's buffer (all_to_all's input and output halves)."""

    label: str
    chunks: list[int]


class Formula(BaseModel):
    """The algorithm's traffic formula for this run (formulas.evaluate), and, once every rank has
    finished, what the ranks measured of its quantity."""

    formula: str
    what: str
    measure: str
    unit: str
    unit_bytes: int
    value: int
    measured: Annotated[int | None, ANSWER] = None


class Display(BaseModel):
    """What the stage draws that differs by collective, in global ranks."""

    output_chunks: dict[str, list[int]] = {}
    regions: list[Region] = []
    divisor: int | None = None  # AVG's schedules add; the ranks divide by P at the end
    itemsize: int | None = None
    # a question of bytes is answered by the formula's count itself
    formula: Annotated[Formula | None, only("busiest_link", "bottleneck")] = None
    # the parameter server's update under SUM, its arithmetic drawn as the seed writes it
    update: str | None = None
    # its lesson is each rank's arrival at its first step and leaving after its last (a barrier's)
    arrivals: bool = False


def _chunks_in(bounds: list[tuple[int, int]], blocks: range, count: int) -> list[int]:
    lo, hi = blocks.start * count, blocks.stop * count
    return [c for c, (a, b) in enumerate(bounds) if len(blocks) and lo <= a and b <= hi]


def _regions(collective, p: int, root: int, bounds, count: int) -> list[Region]:
    """Labelled parts of every rank's buffer: only where each rank's input and output are the
    same two disjoint spans (one buffer holding a send half and a receive half)."""
    spans = {
        (tuple(collective.input_blocks(r, p, root)), tuple(collective.output_blocks(r, p, root, root)))
        for r in range(p)
    }
    if len(spans) != 1:
        return []
    ((ins, outs),) = spans
    if not ins or not outs or set(ins) & set(outs):
        return []
    return [
        Region(label="input", chunks=_chunks_in(bounds, range(ins[0], ins[-1] + 1), count)),
        Region(label="output", chunks=_chunks_in(bounds, range(outs[0], outs[-1] + 1), count)),
    ]


# the seed's, each worker's buffer holding −η·g (η = 1): collectives/parameter_server.py
UPDATE = "w ← w − η·Σg"


def _server_regions(collective, bounds, count: int) -> list[Region]:
    """A parameter server's buffer: the weights' shards, then the gradient's (what a worker pushes)."""
    s = collective.servers
    return [
        Region(label="weights w", chunks=_chunks_in(bounds, range(0, s), count)),
        Region(label="−η·g (η = 1)", chunks=_chunks_in(bounds, range(s, 2 * s), count)),
    ]


def display(spec: RunSpec, world_size: int) -> Display:
    """The run's stage data (global ranks)."""
    collective, group = get(spec.collective, spec.servers), run_shape.group_of(spec, world_size)
    p, root = len(group), group.index(spec.root)
    peer = group.index(run_shape.peer_of(spec, group))
    count, itemsize = collective.count(spec), vocabulary.ITEMSIZE[collective.dtype(spec)]
    bounds = run_shape.chunk_bounds(spec, world_size)
    schedule = run_shape.schedule_of(spec, world_size)
    formula = None
    if schedule is not None and collective.has_servers:  # N is the model: a block is one of its S shards
        formula = parameter_server.formula(spec.count * itemsize, p, spec.servers or 1)
    elif schedule is not None:
        # count is one block: N for a buffer of one block, B for a buffer of a block per rank
        formula = formulas.evaluate(
            spec.collective, spec.algorithm, count * itemsize, p, schedule.pieces, elements=count
        )
    return Display(
        output_chunks={
            str(r): _chunks_in(bounds, collective.output_blocks(me, p, root, peer), count)
            for me, r in enumerate(group)
        },
        regions=_server_regions(collective, bounds, count)
        if collective.has_servers
        else _regions(collective, p, root, bounds, count),
        divisor=p if collective.op(spec) == "AVG" else None,
        itemsize=itemsize,
        formula=Formula(**formula) if formula else None,
        update=UPDATE if collective.has_servers and collective.op(spec) == "SUM" else None,
        arrivals=collective.arrivals,
    )


def measure(
    data: Display | None,
    root: int,
    steps: list[list[list[int]]],
    bounds,
    sent: dict[int, int],
    received: dict[int, int],
) -> Display | None:
    """The stage data with the formula's measurement filled in from what the ranks reported
    (`sent`, `received`: by global rank, every rank of the group)."""
    if data is None or data.formula is None or {str(r) for r in sent} != set(data.output_chunks):
        return data  # no formula, or not every rank of the group finished: nothing to set beside it
    chunk_bytes = [(b - a) * data.itemsize for a, b in bounds]
    got = formulas.measured(data.formula.measure, sent, received, root, steps, chunk_bytes)
    return data.model_copy(update={"formula": data.formula.model_copy(update={"measured": got})})
