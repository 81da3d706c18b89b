"""The server's own protocol classes (server/door/transport.py) driven in-process: a connection is a
recorded transport from one client address, its bytes handed to the protocol by the test, and its
timers fired by the test; the route behind it accepts every socket and answers every request."""

from __future__ import annotations

import asyncio
import base64
import os

from uvicorn.config import Config
from uvicorn.server import ServerState

HALL = "127.0.0.7"  # the client address every connection comes from


class Recorded(asyncio.Transport):
    """A client's connection from HALL: what the server wrote, whether it closed it, its protocol."""

    def __init__(self):
        super().__init__()
        self.written = bytearray()
        self.dropped = False
        self.protocol = None

    def write(self, data) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.dropped

    def close(self) -> None:
        self.dropped = True

    abort = close

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol) -> None:
        self.protocol = protocol

    def get_protocol(self):
        return self.protocol

    def get_extra_info(self, name, default=None):
        return {"peername": (HALL, 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


async def accepting(scope, receive, send) -> None:
    """A route that accepts every socket and answers every request."""
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass
    else:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def connected(config: Config, path: str | None = None, bearer: str | None = None) -> Recorded:
    """A connection from HALL; with `path`, upgraded to a websocket on it (answered 101)."""
    wire = Recorded()
    http = config.http_protocol_class(config, ServerState(), {}, _loop=asyncio.get_running_loop())
    wire.set_protocol(http)
    http.connection_made(wire)
    if path is None or wire.dropped:
        return wire
    key = base64.b64encode(os.urandom(16)).decode()
    auth = f"Authorization: Bearer {bearer}\r\n" if bearer else ""
    http.data_received(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{auth}\r\n".encode()
    )
    while b"101" not in wire.written and not wire.dropped:  # the route's answer to the handshake
        await asyncio.sleep(0)
    assert b"101" in wire.written, bytes(wire.written)
    return wire
