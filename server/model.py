"""The alpha-beta cost model: a step costs alpha (latency) plus beta per byte
of its busiest rank (simulate.cost reads both terms from the schedule). alpha
and beta are given, or fitted by least squares to this cluster's last FIT_WINDOW
finished stepwise runs.

What one request may cost is bounded: a prediction builds and simulates the schedule
for the asked shape, so world_size² × chunks is capped (MAX_SHAPE: a quarter of a million
transfers at most; ~50 MB and ~0.25 s for the costliest), and at most BUILDS predictions
build at once, so many requests queue rather than add up. The fit itself is kept: one small row per
finished run, refitted on the event loop as each run ends (500 rows: microseconds)."""

from __future__ import annotations

import math
import threading
from collections import deque
from typing import Iterable, Optional

import numpy as np
from pydantic import BaseModel, Field

from ringside.worker_agent.algorithms import NATIVE, algorithms_for, build
from ringside.worker_agent.catalog import ITEMSIZE, SpecError
from ringside.worker_agent.collectives import get
from ringside.worker_agent.protocol import Collective, DType
from ringside.worker_agent.schedule import Schedule
from ringside.worker_agent.simulate import Cost, cost, traffic

from .runs import Run

DEFAULT_ALPHA, DEFAULT_BETA = 50e-6, 1e-9  # 50 us a step, 1 GB/s: a loopback-ish guess until runs are measured
FIT_WINDOW = 500  # runs the fit reads, newest first
# Every built-in schedule has at most 2·P²·chunks transfers (ring all-reduce's 2(P-1)·P·chunks);
# at this cap that is about 260 k transfers. The costliest shape it lets through (all_to_all over
# 362 ranks) takes ~0.25 s and ~50 MB to build, check and simulate on one laptop core.
MAX_SHAPE = 1 << 17
CACHED_SHAPE = 1 << 12  # shapes up to this use algorithms.build's cache; a larger one is built, used and let go
BUILDS = threading.BoundedSemaphore(2)  # predictions that build at once: memory stays bounded however many ask

Row = tuple[int, int, float]  # (steps, busiest rank's bytes summed over steps, measured seconds)


class ModelQuery(BaseModel):
    collective: Collective
    algorithm: str
    world_size: int = Field(4, ge=1, le=1024)
    count: int = Field(1024, ge=1, le=1 << 28)
    dtype: DType = "float32"
    chunks: int = Field(1, ge=1, le=1024)
    root: int = Field(0, ge=0)
    alpha: Optional[float] = Field(None, ge=0, description="seconds per step; fitted when omitted")
    beta: Optional[float] = Field(None, ge=0, description="seconds per byte; fitted when omitted")


def features(collective: str, algorithm: str, p: int, root: int, chunks: int, count: int, itemsize: int):
    """(steps, bytes on the busiest rank summed over steps) for one run's shape."""
    terms = cost(build(collective, algorithm, p, root, chunks), count, itemsize)
    return terms.steps, terms.bytes


def row_of(run: Run) -> Row | None:
    """The fit's row for a run that ended done, read from its own schedule (a custom one
    too); None for a native run or one without a sensible measured time (ranks report it)."""
    if run.schedule is None or run.time is None or not 0 < run.time < math.inf:
        return None
    collective = get(run.spec.collective)
    terms = cost(Schedule.from_json(run.schedule, run.world_size), collective.count(run.spec), ITEMSIZE[collective.dtype(run.spec)])
    return terms.steps, terms.bytes, run.time


def solve(rows: Iterable[Row]) -> tuple[float, float, int]:
    """(alpha, beta, rows used) by least squares; the defaults when the rows cannot tell."""
    rows = list(rows)
    if len({r[:2] for r in rows}) < 2:
        return DEFAULT_ALPHA, DEFAULT_BETA, 0
    data = np.asarray(rows, dtype=float)
    (alpha, beta), *_ = np.linalg.lstsq(data[:, :2], data[:, 2], rcond=None)
    if alpha < 0 or beta <= 0:  # noise can tip a fit over: keep the model physical
        return DEFAULT_ALPHA, DEFAULT_BETA, 0
    return float(alpha), float(beta), len(rows)


def fit(runs: list[Run]) -> tuple[float, float, int]:
    return solve(filter(None, map(row_of, runs)))


class Fit:
    """The fit over the last FIT_WINDOW rows, redone when a row is added (on the event loop);
    `params` is one tuple, replaced whole, so a request in the threadpool reads it safely."""

    def __init__(self, rows: Iterable[Row] = ()):
        self.rows: deque[Row] = deque(rows, maxlen=FIT_WINDOW)
        self.params = solve(self.rows)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        self.params = solve(self.rows)


def predict(q: ModelQuery, fitted: tuple[float, float, int]) -> dict:
    if q.algorithm not in algorithms_for(q.collective) or q.algorithm == NATIVE:
        stepwise = ", ".join(algorithms_for(q.collective)[1:])
        raise SpecError("algorithm", f"the model needs a stepwise algorithm of {q.collective} ({stepwise})")
    if q.root >= q.world_size:
        raise SpecError("root", f"rank {q.root} is outside a world of {q.world_size}")
    shape = q.world_size ** 2 * q.chunks
    if shape > MAX_SHAPE:
        raise SpecError("chunks", f"world_size² × chunks is {shape}, over the model's cap of {MAX_SHAPE} "
                        f"(a prediction builds the whole schedule): at world_size {q.world_size}, "
                        f"chunks can be at most {max(MAX_SHAPE // q.world_size ** 2, 0)}")
    collective = get(q.collective)
    count, itemsize = collective.count(q), ITEMSIZE[collective.dtype(q)]  # a barrier's own, whatever was asked
    with BUILDS:
        try:
            schedule = (build if shape <= CACHED_SHAPE else build.__wrapped__)(q.collective, q.algorithm, q.world_size, q.root, q.chunks)
        except ValueError as e:
            raise SpecError("chunks", str(e)) from None
        if schedule.pieces > count:
            raise SpecError("count", f"{q.algorithm} needs at least {schedule.pieces} elements")
        moved = traffic(schedule, count, itemsize)  # once: the cost's terms and the answer's traffic
        terms = Cost(len(schedule.steps), int(moved.step_bytes.sum()), int(moved.step_reduced.sum()))
        moved = moved.to_json()
    alpha, beta, n = fitted if q.alpha is None or q.beta is None else (q.alpha, q.beta, 0)
    alpha, beta = (q.alpha if q.alpha is not None else alpha), (q.beta if q.beta is not None else beta)
    seconds = terms.time(alpha, beta)
    size = collective.message_bytes(count, itemsize, q.world_size)
    return {
        "collective": q.collective, "algorithm": q.algorithm, "world_size": q.world_size, "count": count,
        "dtype": collective.dtype(q), "bytes": size, "steps": terms.steps, "time": seconds,
        "algbw": size / seconds if seconds > 0 else None, "alpha": alpha, "beta": beta,
        "fitted_from_runs": n, "traffic": moved,
    }
