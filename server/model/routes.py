"""Prediction at scales the cluster cannot run: GET /api/model/predict gives every algorithm
of a collective against the world size (2..1024) and against the message size, and names
the sizes where the fastest one changes, from this cluster's fit or from a named preset
(predict.PRESETS: two levels, inside a node and between nodes, each number with its source),
with native's curve: the cluster's measured line, or under a preset NCCL's own choice.
GET /api/model/fit: the fit and its errors. While a poll holds runs, the room waits for its
reveal (the fit takes in each run's time as it ends: polls/visibility.py)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.workers import cluster_of
from ringside.server.door.auth import need_viewer
from ringside.server.door.errors import refuse
from ringside.server.model import costs
from ringside.server.polls.visibility import model_readable
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import Collective, DType
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.core.vocabulary import ITEMSIZE

router = APIRouter(prefix="/api/model")
# the fit takes in each run's time as it ends: not for the room while a poll holds runs
watch = [Depends(need_viewer), Depends(model_readable)]
MAX_SIZES = 64  # sizes one request may ask for
DEFAULT_SIZES = [1 << k for k in range(10, 31, 2)]  # 1 KiB .. 1 GiB, factor 4
# Curves build schedules at the asked P, seconds for a new P near 1024: one at a time, on their
# own, so a stream of new P's keeps only this endpoint busy, never /api/model's BUILDS (sweeps).
# A cached curve takes milliseconds: a second asker waits that long, never a thread's life.
CURVES = threading.BoundedSemaphore(1)
CURVE_WAIT_S = 2.0


class PredictQuery(BaseModel):
    collective: Collective
    p: int = Field(
        64, ge=pm.MIN_P, le=pm.MAX_P, description="world size of the size curve and the crossovers"
    )
    sizes: str | None = Field(
        None,
        max_length=2000,
        description="bytes per rank, comma-separated (1K, 4M ... allowed); default 1 KiB to 1 GiB by 4",
    )
    size: int = Field(
        1 << 20, ge=pm.MIN_SIZE, le=pm.MAX_SIZE, description="bytes per rank of the curve against P"
    )
    preset: str | None = Field(
        None, max_length=80, description=f"one of {', '.join(pm.PRESETS)}; default: this cluster's fit"
    )
    per_node: int | None = Field(
        None, ge=1, le=pm.MAX_P, description="ranks per node under a preset (default: the preset's own)"
    )
    dtype: DType = "float32"


def parse_sizes(text: str | None) -> list[float]:
    if text is None:
        return list(map(float, DEFAULT_SIZES))
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    out = []
    for part in text.split(","):
        clean = part.strip().upper().removesuffix("B").removesuffix("I")
        try:
            value = float(clean[:-1]) * units[clean[-1]] if clean and clean[-1] in units else float(clean)
        except ValueError:
            raise SpecError(
                "sizes", f"{part.strip()[:20]!r} is not a size (bytes, or with K, M, G)"
            ) from None
        if not pm.MIN_SIZE <= value <= pm.MAX_SIZE:
            raise SpecError("sizes", f"each size must be {pm.MIN_SIZE} to {pm.MAX_SIZE} bytes, not {value:g}")
        out.append(value)
    if not 1 <= len(out) <= MAX_SIZES:
        raise SpecError("sizes", f"give 1 to {MAX_SIZES} sizes, not {len(out)}")
    return sorted(set(out))


def model_of(q: PredictQuery, fit: costs.Fit) -> tuple[pm.Model, dict]:
    """The cluster's fitted parameters, or a preset with its ranks per node (the query's, if it gives one)."""
    if q.preset is None:
        if q.per_node is not None:
            raise SpecError(
                "per_node",
                "ranks per node shape a preset's two levels; this cluster's fit "
                "has one level: choose a preset too",
            )
        return fit.model.params, {
            "kind": "cluster",
            "fitted_from_runs": fit.model.runs,
            "rms_error": fit.model.rms_error,
        }
    if q.preset not in pm.PRESETS:
        raise SpecError("preset", f"no preset {q.preset[:40]!r} (known: {', '.join(pm.PRESETS)})")
    preset = pm.PRESETS[q.preset]
    if q.per_node is not None:
        preset = replace(preset, per_node=q.per_node)
    return preset, {"kind": "preset", "name": q.preset, "per_node": preset.per_node}


def nccl_choice(preset: pm.Preset, collective: str) -> str:
    """Where native's curve under `preset` comes from, in words."""
    return (
        f"NCCL {preset.nccl}'s choice (src/enqueue.cc: the algorithm and protocol of least predicted time) "
        f"of {', '.join(pm.NCCL_ALGORITHMS[collective])}, with this preset"
    )


def native_of(
    q: PredictQuery, fit: costs.Fit, chosen: pm.Model, sizes: list[float], itemsize: int
) -> dict | None:
    """Native's curve: the line fitted to this cluster's native runs, or under a preset the algorithm and
    protocol NCCL would choose at each size (None where neither can say)."""
    if isinstance(chosen, pm.Preset):
        picks = pm.nccl_native(q.collective, q.p, sizes, itemsize, chosen)
        return (
            None
            if picks is None
            else {
                "times": [o.time(n) for o, n in zip(picks, sizes)],
                "kind": "nccl",
                "chosen": [o.to_json() for o in picks],
                "source": nccl_choice(chosen, q.collective),
            }
        )
    line = fit.native.get((q.collective, q.p))
    return (
        None
        if line is None
        else {"times": [line.time(n) for n in sizes], "runs": line.runs, "kind": "measured"}
    )


def curves(q: PredictQuery, fit: costs.Fit, placement: Sequence[tuple[str, int]] = ()) -> dict:
    """Every algorithm's time against size at P (on the cluster's ranks as they share cores when
    P is its world size, and with a preset never) and against P (every rank with a core of its own),
    each cut into the chunks (and under a preset with the protocol) it runs fastest with."""
    chosen, origin = model_of(q, fit)
    sharing = costs.sharing_at(placement if q.preset is None else [], q.p)
    sizes = parse_sizes(q.sizes)
    if not get(q.collective).payload:
        raise SpecError(
            "collective",
            f"{q.collective} moves no message of the user's: there is no size to predict against",
        )
    itemsize = ITEMSIZE[q.dtype]
    # one written for another world size (an MSCCL file) is left out
    algorithms = pm.stepwise(q.collective, q.p)
    ways = {a: pm.curve(q.collective, a, q.p, sizes, itemsize, chosen, sharing) for a in algorithms}
    # every schedule up to P=1024, once: cached; a fixed-size one only at its own P
    by_p = pm.versus_p(q.collective, pm.stepwise(q.collective), q.size, itemsize, chosen)
    crossings = pm.crossovers(q.collective, algorithms, q.p, itemsize, chosen, sizes[0], sizes[-1], sharing)
    return {
        "collective": q.collective,
        "dtype": q.dtype,
        "params": chosen.to_json(),
        "origin": origin,
        "p": q.p,
        "sizes": sizes,
        "sharing": sharing.to_json(),
        "versus_size": {a: [o.time(n) for o, n in zip(w, sizes)] for a, w in ways.items()},
        "ways": {a: [o.to_json() for o in w] for a, w in ways.items()},
        "native": native_of(q, fit, chosen, sizes, itemsize),
        "size": q.size,
        "ps": list(pm.P_POINTS),
        "versus_p": by_p,
        "crossovers": crossings,
    }


@router.get("", dependencies=watch)
def get_model(
    query: Annotated[costs.ModelQuery, Query()],
    fit: costs.Fit = Depends(costs.fit_of),
    cluster: Cluster = Depends(cluster_of),
) -> dict:
    """The model's answer for one run's shape on this cluster, and the fit it comes from."""
    # not async: building the asked schedule takes up to a few tenths of a second (costs.MAX_SHAPE),
    # off the event loop; the fit is kept in memory and read here as one tuple, no store access
    sharing = costs.sharing_at(cluster.placement(), query.world_size)
    return {**costs.predict(query, fit.model, sharing), "fit": fit.to_json()}


@router.get("/predict", dependencies=watch)
def get_prediction(
    query: Annotated[PredictQuery, Query()],
    fit: costs.Fit = Depends(costs.fit_of),
    cluster: Cluster = Depends(cluster_of),
) -> dict:
    # not async: the first curve against P for a collective builds its schedules up to P=1024
    if not CURVES.acquire(timeout=CURVE_WAIT_S):
        raise refuse(503, "p", "another curve is being built (a new P takes seconds); ask again in a moment")
    try:
        return curves(query, fit, cluster.placement())
    finally:
        CURVES.release()


@router.get("/fit", dependencies=watch)
def get_fit(fit: costs.Fit = Depends(costs.fit_of)) -> dict:
    """alpha, beta, gamma with their error over the runs fitted and on sizes held out, the native lines, the
    presets."""
    return {**fit.to_json(), "presets": {name: p.to_json() for name, p in pm.PRESETS.items()}}
