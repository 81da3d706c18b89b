"""The cluster and what it offers: health, ranks, its size (set where the server started the
ranks: resize.py), the catalog of collectives (and of run states), Prometheus metrics (the runs',
and the server's own)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Depends, Request
from fastapi.responses import PlainTextResponse
from pydantic import Field, StrictInt

from ringside.server.cluster import metrics, server_metrics
from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.resize import Resizer, resizer_of
from ringside.server.cluster.workers import cluster_of
from ringside.server.db.database import Database, database_of
from ringside.server.dispatch.dispatcher import Dispatcher, dispatcher_of
from ringside.server.dispatch.job import ENDED_STATES, JobState
from ringside.server.door import transport
from ringside.server.door.auth import is_presenter, need_presenter, need_viewer
from ringside.server.polls.visibility import Visibility, visibility_of
from ringside.server.runs.service import Runs, runs_of
from ringside.server.runs.store import RunStore, run_store_of
from ringside.server.watched import job_metrics
from ringside.server.watched.service import Watching, watching_of
from ringside.worker_agent.core.catalog import catalog
from ringside.worker_agent.core.protocol import MAX_WORLD, PROTOCOL_VERSION, Strict
from ringside.worker_agent.training import rules as training_rules

router = APIRouter()
watch = Depends(need_viewer)


@router.get("/api/health")
async def health(
    cluster: Cluster = Depends(cluster_of),
    dispatcher: Dispatcher = Depends(dispatcher_of),
    database: Database = Depends(database_of),
) -> dict:
    """The process answers; the dispatcher runs (and how often it was restarted); the store's
    writes that wait (a file another process holds locked makes them wait, and for how long)."""
    writer = database.writer
    stuck = writer.stuck_since
    return {
        "status": "ok" if dispatcher.running() and stuck is None else "degraded",
        "protocol": PROTOCOL_VERSION,
        "world_size": cluster.world_size,
        "live_ranks": len(cluster.live()),
        "dispatcher": {"running": dispatcher.running(), "restarts": dispatcher.restarts},
        "store": {
            "waiting_writes": writer.waiting(),
            "locked_for_s": round(time.monotonic() - stuck, 1) if stuck else 0,
        },
    }


@router.get("/api/cluster", dependencies=[watch])
async def get_cluster(cluster: Cluster = Depends(cluster_of)) -> dict:
    return cluster.to_json()


class Size(Strict):
    ranks: StrictInt = Field(ge=1, le=MAX_WORLD, description="the world size wanted")


@router.post("/api/cluster/size", dependencies=[Depends(need_presenter)])
async def set_size(
    size: Size, cluster: Cluster = Depends(cluster_of), resizer: Resizer = Depends(resizer_of)
) -> dict:
    """The world grown or shrunk to `ranks` in place (the ranks `ringside up` started; a world the
    server did not start is refused, 422), answered once it is whole: the cluster, as GET says it."""
    await resizer.resize(size.ranks)
    return cluster.to_json()


@router.get("/api/catalog", dependencies=[watch])
async def get_catalog(cluster: Cluster = Depends(cluster_of), resizer: Resizer = Depends(resizer_of)) -> dict:
    """What the page offers; `max_ranks`: the most ranks the world may be resized to (null where
    the server did not start its ranks and cannot resize it)."""
    return catalog(cluster.backend or "gloo", cluster.world_size) | {
        "run_states": {"all": [s.value for s in JobState], "ended": [s.value for s in ENDED_STATES]},
        "training": training_rules.catalog(),
        "max_ranks": resizer.max_ranks,
    }


@router.get("/metrics", response_class=PlainTextResponse, dependencies=[watch])
async def get_metrics(
    request: Request,
    kept: metrics.Metrics = Depends(metrics.metrics_of),
    own: server_metrics.ServerMetrics = Depends(server_metrics.server_metrics_of),
    database: Database = Depends(database_of),
    store: RunStore = Depends(run_store_of),
    cluster: Cluster = Depends(cluster_of),
    dispatcher: Dispatcher = Depends(dispatcher_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
    runs: Runs = Depends(runs_of),
    watching: Watching = Depends(watching_of),
) -> str:
    # a viewer's scrape while a poll holds runs leaves out what would tell their times: the
    # counts, times and bandwidths of their collective, and the held runs waiting in the queue
    withheld = visibility.withheld_collectives(presenter)
    queued = runs.queued()
    held_runs = len(queued) - len(visibility.queue(queued, presenter))
    ranks = cluster.to_json()["ranks"]
    runs_text = metrics.render(kept, store.counts(), ranks, len(dispatcher.queue) - held_runs, withheld)
    held, refused, caps = transport.seen()
    state = request.app.state
    server = server_metrics.render(
        own,
        held,
        refused,
        caps,
        database.writer.waiting(),
        state.pruner.pruned,
        state.access_log.dropped,
        presenter,
    )
    notifier = state.notifier
    watched = [*job_metrics.render(watching.figures()), *(notifier.metrics() if notifier else [])]
    return runs_text + server + "\n".join(watched) + "\n"
