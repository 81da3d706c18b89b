"""The alpha-beta cost model: a step costs alpha (latency) plus beta per byte
of its busiest rank (simulate.cost reads both terms from the schedule). alpha
and beta are given, or fitted by least squares to this cluster's finished
stepwise runs."""

from __future__ import annotations

from typing import Optional

import numpy as np
from pydantic import BaseModel, Field

from ringside.worker_agent.algorithms import NATIVE, algorithms_for, build
from ringside.worker_agent.catalog import ITEMSIZE, SpecError, group_of
from ringside.worker_agent.collectives import get
from ringside.worker_agent.protocol import Collective, DType
from ringside.worker_agent.simulate import cost, traffic

from .runs import Run

DEFAULT_ALPHA, DEFAULT_BETA = 50e-6, 1e-9  # 50 us a step, 1 GB/s: a loopback-ish guess until runs are measured


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


def fit(runs: list[Run]) -> tuple[float, float, int]:
    rows, times = [], []
    for run in runs:
        spec = run.spec
        if spec.algorithm == NATIVE or run.time is None:
            continue
        collective, group = get(spec.collective), group_of(spec, run.world_size)
        rows.append(features(spec.collective, spec.algorithm, len(group), group.index(spec.root), spec.chunks,
                             collective.count(spec), ITEMSIZE[collective.dtype(spec)]))
        times.append(run.time)
    if len(set(rows)) < 2:
        return DEFAULT_ALPHA, DEFAULT_BETA, 0
    (alpha, beta), *_ = np.linalg.lstsq(np.asarray(rows, dtype=float), np.asarray(times), rcond=None)
    if alpha < 0 or beta <= 0:  # noise can tip a fit over: keep the model physical
        return DEFAULT_ALPHA, DEFAULT_BETA, 0
    return float(alpha), float(beta), len(rows)


def predict(q: ModelQuery, runs: list[Run]) -> dict:
    if q.algorithm not in algorithms_for(q.collective) or q.algorithm == NATIVE:
        stepwise = ", ".join(algorithms_for(q.collective)[1:])
        raise SpecError("algorithm", f"the model needs a stepwise algorithm of {q.collective} ({stepwise})")
    if q.root >= q.world_size:
        raise SpecError("root", f"rank {q.root} is outside a world of {q.world_size}")
    collective = get(q.collective)
    count, itemsize = collective.count(q), ITEMSIZE[collective.dtype(q)]  # a barrier's own, whatever was asked
    try:
        schedule = build(q.collective, q.algorithm, q.world_size, q.root, q.chunks)
    except ValueError as e:
        raise SpecError("chunks", str(e)) from None
    if schedule.pieces > count:
        raise SpecError("count", f"{q.algorithm} needs at least {schedule.pieces} elements")
    fitted = q.alpha is None or q.beta is None
    alpha, beta, n = fit(runs) if fitted else (q.alpha, q.beta, 0)
    alpha, beta = (q.alpha if q.alpha is not None else alpha), (q.beta if q.beta is not None else beta)
    seconds = cost(schedule, count, itemsize).time(alpha, beta)
    size = collective.message_bytes(count, itemsize, q.world_size)
    return {
        "collective": q.collective, "algorithm": q.algorithm, "world_size": q.world_size, "count": count,
        "dtype": collective.dtype(q), "bytes": size, "steps": len(schedule.steps), "time": seconds,
        "algbw": size / seconds if seconds > 0 else None, "alpha": alpha, "beta": beta,
        "fitted_from_runs": n, "traffic": traffic(schedule, count, itemsize).to_json(),
    }
