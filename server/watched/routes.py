"""Watched jobs (ringside.watch): /ws/watch, where a job's ranks report, and /api/watched,
where anyone who may watch lists them, reads one (its ranks, groups, totals, links and
a page of its collectives) and exports one to Perfetto. /api/jobs is the same, under the name
it had while "job" meant two things: answered for a release, deprecated."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.door.auth import need_viewer
from ringside.server.door.errors import refuse
from ringside.server.door.frames import CONFLICT, close, events, worker_hello
from ringside.server.watched.record import WatchedCollective, WatchedJob
from ringside.server.watched.service import Watching, watching_of
from ringside.server.watched.trace import job_trace
from ringside.worker_agent.core.watch_protocol import WATCH_MESSAGE, WatchHello

router = APIRouter()
watch = Depends(need_viewer)
WatchedId = Path(max_length=40)
PAGE_BYTES = 2 << 20  # a page of a job's collectives, about
MAX_LINKS_SHOWN = 4096  # the busiest links a job's GET shows (links_total: how many it has)


def found(watching: Watching, watched_id: str) -> WatchedJob:
    job, _ = watching.find(watched_id)
    if job is None:
        raise refuse(404, "watched_id", f"no watched job {watched_id}")
    return job


@router.get("/api/watched", dependencies=[watch])
@router.get("/api/jobs", dependencies=[watch], deprecated=True)
async def list_watched(
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=1 << 31),
    watching: Watching = Depends(watching_of),
) -> dict:
    jobs, total = watching.store.page(limit, offset)
    live = {w.job.id: w.job.summary() for w in watching.live.values()}
    return {"jobs": [live.get(j.id, j) for j in jobs], "total": total}


@router.get("/api/watched/{watched_id}", dependencies=[watch])
@router.get("/api/jobs/{watched_id}", dependencies=[watch], deprecated=True)
async def get_watched(
    watched_id: str = WatchedId,
    limit: int = Query(500, ge=1, le=2000),
    before: int | None = Query(None, ge=0, le=1 << 62),
    watching: Watching = Depends(watching_of),
) -> dict:
    job = found(watching, watched_id)
    collectives = within_bytes(watching.collectives(watched_id, limit, before))
    busiest = sorted(job.links.values(), key=lambda link: link.bytes, reverse=True)[:MAX_LINKS_SHOWN]
    return {
        "job": job.summary(),
        "ranks": list(job.ranks.values()),
        "groups": job.groups,
        "group_descs": job.group_descs,
        "totals": [t.shown() for t in job.totals.values()],
        "links": busiest,
        "links_total": len(job.links),
        "collectives": collectives,
        # where the next page begins: a page ends at `limit` collectives or PAGE_BYTES, whichever first
        "before": collectives[0].index if collectives else None,
        "events": job.events,
    }


def within_bytes(collectives: list[WatchedCollective]) -> list[WatchedCollective]:
    """The newest of `collectives` (oldest first) that fit in about PAGE_BYTES: a collective of a
    65,536-rank group names every rank, and 500 of them made a page of hundreds of MB."""
    kept: list[WatchedCollective] = []
    size = 0
    for collective in reversed(collectives):
        size += 200 + 24 * (len(collective.ranks) + len(collective.issued) + len(collective.durations))
        if kept and size > PAGE_BYTES:
            break
        kept.append(collective)
    return kept[::-1]


@router.get("/api/watched/{watched_id}/trace", dependencies=[watch])
@router.get("/api/jobs/{watched_id}/trace", dependencies=[watch], deprecated=True)
async def get_watched_trace(watched_id: str = WatchedId, watching: Watching = Depends(watching_of)) -> dict:
    job = found(watching, watched_id)
    return job_trace(job, watching.collectives(watched_id, 20_000, None))


@router.websocket("/ws/watch")
async def watch_socket(ws: WebSocket, watching: Watching = Depends(watching_of)):
    hello = await worker_hello(ws, WatchHello, WATCH_MESSAGE)
    if hello is None:
        return
    watched, problem = watching.join(hello, ws)
    if watched is None:  # and problem says why
        await close(ws, CONFLICT, problem or "")
        return
    try:
        async for said in events(ws, hello, WATCH_MESSAGE):
            watching.report(watched, said)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watching.left(watched, hello.rank, ws)
