"""Every message (messages.py), to every viewer, without one slow viewer slowing anyone.

A message type that declares no audience (door/audience.py) is refused, loudly: nothing is sent
that no one said the room may hear. A message is serialised once for the presenter's pages and
once more for the room where what the room may hear differs (`screen`: polls/visibility.py says,
by the audience); each viewer has its own bounded
queue and its own sender task. A frame holds one message, or a JSON array of them. A viewer
whose queue fills up is dropped with close code 1013 (try again later): it
reconnects and gets a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from pydantic import BaseModel
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.door.audience import Audience, Undeclared, declared
from ringside.server.door.frames import close

DROPPED = 1013
log = logging.getLogger("ringside.server")
BATCH = 256  # messages at most in one frame
BATCH_BYTES = 256 << 10  # and bytes at most: what sits in a frame on its way out is beyond the queue's bound


class Viewer:
    def __init__(self, ws: WebSocket, limit: int, presenter: bool):
        self.ws, self.presenter = ws, presenter
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(limit)

    def offer(self, text: str) -> bool:
        try:
            self.queue.put_nowait(text)
            return True
        except asyncio.QueueFull:
            return False

    def offer_stop(self) -> None:
        """Tell the pump to end, even if the queue is full."""
        while self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        """Send until told to stop (None) or the socket goes. What piled up while the last
        frame was going out leaves as one JSON array: a burst of steps costs a few frames."""
        try:
            while (text := await self.queue.get()) is not None:
                batch, size = [text], len(text)
                while len(batch) < BATCH and size < BATCH_BYTES and not self.queue.empty():
                    if (text := self.queue.get_nowait()) is None:
                        break
                    batch.append(text)
                    size += len(text)
                await self.ws.send_text(batch[0] if len(batch) == 1 else f"[{','.join(batch)}]")
                if text is None:
                    return
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass


class Fanout:
    def __init__(self, limit: int):
        self.limit = limit
        self.viewers: set[Viewer] = set()
        self.closing: set[asyncio.Task] = set()
        # what the room hears of a message (None: nothing); the presenter's pages hear it whole
        self.screen: Callable[[BaseModel], BaseModel | None] = lambda message: message

    def add(self, ws: WebSocket, presenter: bool) -> Viewer:
        viewer = Viewer(ws, self.limit, presenter)
        self.viewers.add(viewer)
        return viewer

    def remove(self, viewer: Viewer) -> None:
        self.viewers.discard(viewer)

    def publish(self, message: BaseModel) -> None:
        """Every viewer hears `message`, the room as `screen` says; Undeclared where its type says not
        who may hear it, or that it is made for one page."""
        if declared(type(message)) is Audience.PAGE:
            raise Undeclared(f"{type(message).__qualname__} is made for one page: it is never published")
        if not self.viewers:  # a job of thousands of ranks is summarised each second for no one
            return
        whole = message.model_dump_json()
        heard = self.screen(message)
        room = whole if heard is message else heard.model_dump_json() if heard is not None else None
        for viewer in list(self.viewers):
            text = whole if viewer.presenter else room
            if text is not None and not viewer.offer(text):
                self._drop(viewer)

    def _drop(self, viewer: Viewer) -> None:
        """Routine (a laptop asleep, a slow link): one quiet line, and the viewer is told."""
        self.viewers.discard(viewer)
        viewer.offer_stop()
        client = viewer.ws.client
        log.info(
            "viewer %s dropped: %d messages behind",
            f"{client.host}:{client.port}" if client else "?",
            self.limit,
        )
        task = asyncio.get_running_loop().create_task(
            close(viewer.ws, DROPPED, "viewer fell behind; reconnect for a snapshot")
        )
        self.closing.add(task)  # held until done: the loop keeps only weak references to tasks
        task.add_done_callback(self.closing.discard)


async def fanout_of(conn: HTTPConnection) -> Fanout:
    return conn.app.state.fanout
