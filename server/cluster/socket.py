"""/ws/worker: where a rank joins the cluster (a hello, then its events until it goes)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.workers import Workers, cluster_of, workers_of
from ringside.server.dispatch.dispatcher import Dispatcher, dispatcher_of
from ringside.server.door.frames import CONFLICT, close, events, worker_hello
from ringside.worker_agent.core.protocol import Heartbeat

router = APIRouter()


@router.websocket("/ws/worker")
async def worker_socket(
    ws: WebSocket,
    cluster: Cluster = Depends(cluster_of),
    workers: Workers = Depends(workers_of),
    dispatcher: Dispatcher = Depends(dispatcher_of),
):
    hello = await worker_hello(ws)
    if hello is None:
        return
    problem = cluster.conflict(hello)
    if problem:
        await close(ws, CONFLICT, problem)
        return
    workers.join(hello, ws)
    dispatcher.nudge()
    try:
        async for event in events(ws, hello):
            cluster.seen(event.rank)
            if isinstance(event, Heartbeat):
                cluster.beat(event)
            else:
                dispatcher.on_event(event)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if workers.leave(hello.rank, ws):
            dispatcher.nudge()
