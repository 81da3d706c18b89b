"""The figures a run's results give when it ends: whether it verified, its time, algbw
and busbw (as nccl-tests reads them: the slowest rank's median iteration), the traffic
the simulator counts over its schedule, where a traced code's wrong result began, and
the stage's traffic formula set beside what the ranks measured."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ringside.server.runs import stage_data
from ringside.worker_agent.core import provenance, run_shape, simulate, vocabulary
from ringside.worker_agent.core.collectives import get

if TYPE_CHECKING:
    from ringside.server.runs.run import Run


class LinkBytes(BaseModel):
    src: int
    dst: int
    bytes: int


class RunTraffic(BaseModel):
    """Bytes per rank (keyed by global rank), in all, and on the busiest link."""

    sent: dict[str, int]
    received: dict[str, int]
    total: int
    busiest_link: LinkBytes | None


class Departure(BaseModel):
    """Where a wrong result began (provenance.first_departure): the step (0-based), the rank
    (global) and the chunk, and the words a viewer reads."""

    step: int
    rank: int
    chunk: int
    words: str


def fill(run: Run) -> None:
    """Set every figure of a run from what its ranks reported."""
    results = list(run.results.values())
    verdicts = [r.verified for r in results if r.verified is not None]
    run.verified = all(verdicts) if verdicts else None
    run.time, run.algbw, run.busbw = timing(run)
    run.traffic = traffic(run)
    run.departure = departure(run)
    run.display = stage_data.measure(
        run.display,
        run.spec.root,
        [s.transfers for s in run.steps],
        run.chunk_bounds,
        {int(r): res.bytes_sent for r, res in run.results.items()},
        {int(r): res.bytes_received for r, res in run.results.items()},
    )


def timing(run: Run) -> tuple[float | None, float | None, float | None]:
    """(time, algbw, busbw): the slowest rank's median iteration, and the bandwidths it gives."""
    per_iteration = [r.timings.iterations for r in run.results.values() if r.timings.iterations]
    if not per_iteration or len({len(t) for t in per_iteration}) != 1:
        return None, None, None
    seconds = statistics.median(max(ts) for ts in zip(*per_iteration))
    collective, p = get(run.spec.collective, run.spec.servers), len(run.group)
    itemsize = vocabulary.ITEMSIZE[collective.dtype(run.spec)]
    size = collective.message_bytes(collective.count(run.spec), itemsize, p)
    algbw = size / seconds if seconds > 0 else None
    return seconds, algbw, algbw * collective.bus_factor(p) if algbw is not None else None


def traffic(run: Run) -> RunTraffic | None:
    """Counted by the simulator over the run's schedule in global ranks. None for a native
    run: only the backend knows its wires."""
    schedule = run.stepwise()
    if schedule is None:
        return None
    collective = get(run.spec.collective)
    itemsize = vocabulary.ITEMSIZE[collective.dtype(run.spec)]
    moved = simulate.traffic(schedule, collective.count(run.spec), itemsize).to_json()
    return RunTraffic(
        sent={str(r): moved["sent"][r] for r in run.group},
        received={str(r): moved["received"][r] for r in run.group},
        total=moved["total"],
        busiest_link=moved["busiest_link"],
    )


def departure(run: Run) -> Departure | None:
    """For traced code whose result is wrong: the first step where a rank's buffer departs
    from what the collective requires (provenance.first_departure), in global ranks. Other
    schedules are checked before they run, so their results are never wrong this way."""
    if run.verified is not False or not run.algorithm.traced:
        return None
    schedule = run.stepwise(in_group=True)
    if schedule is None:  # its ranks never brought the schedule their code made
        return None
    peer = run.group.index(run_shape.peer_of(run.spec, run.group))
    found = provenance.first_departure(schedule, run.group, peer)
    return None if found is None else Departure(**vars(found))
