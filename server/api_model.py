"""Prediction at scales the cluster cannot run: GET /api/model/predict gives every algorithm
of a collective against the world size (2..1024) and against the message size, and names
the sizes where the fastest one changes, from this cluster's fit or from a named preset
(predict.PRESETS, each number with its source). GET /api/model/fit: the fit and its errors."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field
from ringside.worker_agent.core import predict as pm
from ringside.worker_agent.core.validation import SpecError
from ringside.worker_agent.core.vocabulary import ITEMSIZE
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.protocol import Collective, DType

from . import model
from .auth import need_viewer
from .errors import refuse
from .hub import Hub, hub_of

router = APIRouter(prefix="/api/model")
watch = Depends(need_viewer)
MAX_SIZES = 64  # sizes one request may ask for
DEFAULT_SIZES = [1 << k for k in range(10, 31, 2)]  # 1 KiB .. 1 GiB, factor 4
# Curves build schedules at the asked P, seconds for a new P near 1024: one at a time, on their
# own, so a stream of new P's keeps only this endpoint busy, never /api/model's BUILDS (sweeps).
# A cached curve takes milliseconds: a second asker waits that long, never a thread's life.
CURVES = threading.BoundedSemaphore(1)
CURVE_WAIT_S = 2.0


class PredictQuery(BaseModel):
    collective: Collective
    p: int = Field(64, ge=pm.MIN_P, le=pm.MAX_P,
                   description="world size of the size curve and the crossovers")
    sizes: str | None = Field(None, max_length=2000,
                              description="bytes per rank, comma-separated (1K, 4M ... allowed); "
                                          "default 1 KiB to 1 GiB by 4")
    size: int = Field(1 << 20, ge=pm.MIN_SIZE, le=pm.MAX_SIZE,
                      description="bytes per rank of the curve against P")
    preset: str | None = Field(None, max_length=80,
                               description=f"one of {', '.join(pm.PRESETS)}; default: this cluster's fit")
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
            raise SpecError("sizes",
                            f"{part.strip()[:20]!r} is not a size (bytes, or with K, M, G)") from None
        if not pm.MIN_SIZE <= value <= pm.MAX_SIZE:
            raise SpecError("sizes", f"each size must be {pm.MIN_SIZE} to {pm.MAX_SIZE} bytes, not {value:g}")
        out.append(value)
    if not 1 <= len(out) <= MAX_SIZES:
        raise SpecError("sizes", f"give 1 to {MAX_SIZES} sizes, not {len(out)}")
    return sorted(set(out))


def params_of(preset: str | None, fit: model.Fit) -> tuple[pm.Params, dict]:
    if preset is None:
        return fit.model.params, {"kind": "cluster", "fitted_from_runs": fit.model.runs,
                                  "rms_error": fit.model.rms_error}
    if preset not in pm.PRESETS:
        raise SpecError("preset", f"no preset {preset[:40]!r} (known: {', '.join(pm.PRESETS)})")
    return pm.PRESETS[preset], {"kind": "preset", "name": preset}


def curves(q: PredictQuery, fit: model.Fit, placement: list[tuple[str, int]] = ()) -> dict:
    """Every algorithm's time against size at P (on the cluster's ranks as they share cores when
    P is its world size, and with a preset never) and against P (every rank with a core of its own)."""
    params, origin = params_of(q.preset, fit)
    sharing = model.sharing_at(placement if q.preset is None else [], q.p)
    sizes = parse_sizes(q.sizes)
    if not get(q.collective).payload:
        raise SpecError("collective",
                        f"{q.collective} moves no message of the user's: there is no size to predict against")
    itemsize = ITEMSIZE[q.dtype]
    # one written for another world size (an MSCCL file) is left out
    algorithms = pm.stepwise(q.collective, q.p)
    by_size = pm.versus_size(q.collective, algorithms, q.p, sizes, itemsize, params, sharing)
    # every schedule up to P=1024, once: cached; a fixed-size one only at its own P
    by_p = pm.versus_p(q.collective, pm.stepwise(q.collective), q.size, itemsize, params)
    crossings = pm.crossovers(q.collective, algorithms, q.p, itemsize, params, sizes[0], sizes[-1], sharing)
    native = fit.native.get((q.collective, q.p)) if q.preset is None else None
    return {
        "collective": q.collective, "dtype": q.dtype, "params": params.to_json(), "origin": origin,
        "p": q.p, "sizes": sizes, "versus_size": by_size, "sharing": sharing.to_json(),
        "native": None if native is None else {"times": [native.time(n) for n in sizes], "runs": native.runs},
        "size": q.size, "ps": list(pm.P_POINTS), "versus_p": by_p, "crossovers": crossings,
    }


@router.get("/predict", dependencies=[watch])
def get_prediction(query: Annotated[PredictQuery, Query()], hub: Hub = Depends(hub_of)) -> dict:
    # not async: the first curve against P for a collective builds its schedules up to P=1024
    if not CURVES.acquire(timeout=CURVE_WAIT_S):
        raise refuse(503, "p", "another curve is being built (a new P takes seconds); ask again in a moment")
    try:
        return curves(query, hub.fit, hub.cluster.placement())
    finally:
        CURVES.release()


@router.get("/fit", dependencies=[watch])
def get_fit(hub: Hub = Depends(hub_of)) -> dict:
    """alpha, beta, gamma with their error over the runs fitted and on sizes held out, the native lines, the
    presets."""
    return {**hub.fit.to_json(), "presets": {name: p.to_json() for name, p in pm.PRESETS.items()}}
