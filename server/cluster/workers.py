"""The ranks' sockets: who has joined the cluster, and telling every rank a command. What a
rank says is routed by its socket (socket.py): a heartbeat to the cluster, the rest to the
dispatcher."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.cluster.cluster import Cluster
from ringside.server.dispatch.dispatcher import TICK_S
from ringside.server.door.audience import Audience, Feed
from ringside.worker_agent.core.protocol import Hello


class ClusterMessage(BaseModel):
    """Cluster.to_json's fields (cluster/cluster.py), whatever it adds besides these."""

    audience: ClassVar[Audience] = Audience.EVERYONE
    model_config = ConfigDict(extra="allow")
    type: Literal["cluster"] = "cluster"
    backend: str | None
    world_size: int
    ranks: list[dict]


class Workers:
    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.sockets: dict[int, WebSocket] = {}

    def join(self, hello: Hello, ws: WebSocket) -> None:
        self.cluster.join(hello)
        self.sockets[hello.rank] = ws

    def leave(self, rank: int, ws: WebSocket) -> bool:
        """Whether this socket was the rank's (a rank that joined again has a newer one)."""
        if self.sockets.get(rank) is not ws:
            return False
        del self.sockets[rank]
        self.cluster.leave(rank)
        return True

    async def tell_rank(self, rank: int, text: str) -> None:
        """One rank's own command (a resize gives each its place); a rank not connected hears nothing."""
        ws = self.sockets.get(rank)
        if ws is not None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await ws.send_text(text)

    async def tell(self, text: str) -> None:
        for ws in list(self.sockets.values()):
            # a socket that fails is a rank lost: the dispatcher notices
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await ws.send_text(text)


async def announce(cluster: Cluster, fanout: Feed, nudge: Callable[[], None]) -> None:
    """Once a tick: the cluster to every viewer, and a nudge to notice lost ranks."""
    while True:
        await asyncio.sleep(TICK_S)
        if cluster.ranks:
            fanout.publish(ClusterMessage(**cluster.to_json()))
        nudge()


async def cluster_of(conn: HTTPConnection) -> Cluster:
    return conn.app.state.cluster


async def workers_of(conn: HTTPConnection) -> Workers:
    return conn.app.state.workers
