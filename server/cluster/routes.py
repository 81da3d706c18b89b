"""The cluster and what it offers: health, ranks, the catalog of collectives (and of
run states), the cost model, Prometheus metrics."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse

from ringside.server.cluster import metrics
from ringside.server.cluster.workers import Hub, hub_of
from ringside.server.door.auth import need_viewer, role_of, settings_of
from ringside.server.model import costs as model
from ringside.server.runs.run import ENDED_STATES, RunState
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.protocol import PROTOCOL_VERSION
from ringside.worker_agent.training import rules as training_rules

router = APIRouter()
watch = Depends(need_viewer)


@router.get("/api/health")
async def health(hub: Hub = Depends(hub_of)) -> dict:
    """The process answers; the dispatcher runs (and how often it was restarted); the store's
    writes that wait (a file another process holds locked makes them wait, and for how long)."""
    cluster, writer = hub.cluster, hub.store.writer
    stuck = writer.stuck_since
    return {
        "status": "ok" if hub.dispatching() and stuck is None else "degraded",
        "protocol": PROTOCOL_VERSION,
        "world_size": cluster.world_size,
        "live_ranks": len(cluster.live()),
        "dispatcher": {"running": hub.dispatching(), "restarts": hub.restarts},
        "store": {
            "waiting_writes": writer.waiting(),
            "locked_for_s": round(time.monotonic() - stuck, 1) if stuck else 0,
        },
    }


@router.get("/api/cluster", dependencies=[watch])
async def get_cluster(hub: Hub = Depends(hub_of)) -> dict:
    return hub.cluster.to_json()


@router.get("/api/catalog", dependencies=[watch])
async def get_catalog(hub: Hub = Depends(hub_of)) -> dict:
    cluster = hub.cluster
    return catalog(cluster.backend or "gloo", cluster.world_size) | {
        "run_states": {"all": [s.value for s in RunState], "ended": [s.value for s in ENDED_STATES]},
        "training": training_rules.catalog(),
    }


@router.get("/api/model", dependencies=[watch])
def get_model(query: Annotated[model.ModelQuery, Query()], hub: Hub = Depends(hub_of)) -> dict:
    # not async: building the asked schedule takes up to a few tenths of a second (model.MAX_SHAPE),
    # off the event loop; the fit is kept by the hub and read here as one tuple, no store access
    sharing = model.sharing_at(hub.cluster.placement(), query.world_size)
    return {**model.predict(query, hub.fit.model, sharing), "fit": hub.fit.to_json()}


@router.get("/metrics", response_class=PlainTextResponse, dependencies=[watch])
async def get_metrics(request: Request, hub: Hub = Depends(hub_of)) -> str:
    presenter = role_of(request, settings_of(request)) == "presenter"
    # a viewer's scrape while a poll is open leaves out the times that would answer it
    return metrics.render(hub, set() if presenter else request.app.state.polls.held_collectives())
