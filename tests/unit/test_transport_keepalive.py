"""A websocket's keepalive in-process: the server's own protocol class (transport.py) over a
recorded transport, its timers fired by the test. A peer in the middle of a long frame cannot
answer a ping until the frame's last byte: it is kept while the frame's bytes come, and dropped
once they stop, as one that answers no ping is."""

from __future__ import annotations

import asyncio
import base64
import os

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode

from ringside.server.door import transport

FRAME = 1 << 20


class Recorded(asyncio.Transport):
    """What the protocol wrote, and whether it dropped the connection."""

    def __init__(self):
        super().__init__()
        self.written = bytearray()
        self.dropped = False

    def write(self, data) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.dropped

    def abort(self) -> None:
        self.dropped = True

    def close(self) -> None:
        self.dropped = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


async def accepting(scope, receive, send) -> None:
    """A route that takes every message until the socket ends."""
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


async def opened() -> tuple:
    """The protocol after its handshake on a rank's path, and its transport."""
    config = Config(
        app=accepting, **{k: v for k, v in transport.protocols(ping_every_s=1).items() if k != "http"}
    )
    config.load()
    protocol = config.ws_protocol_class(config, ServerState(), {}, _loop=asyncio.get_running_loop())
    wire = Recorded()
    protocol.connection_made(wire)
    key = base64.b64encode(os.urandom(16)).decode()
    protocol.data_received(
        f"GET /ws/dumps HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    while b"101" not in wire.written and not wire.dropped:  # the route's answer to the handshake
        await asyncio.sleep(0)
    assert b"101" in wire.written, bytes(wire.written)
    return protocol, wire


def pong_due(protocol) -> None:
    """The ping's answer overdue now: its timer fired (the one it armed cancelled)."""
    if protocol.pong_timer is not None:
        protocol.pong_timer.cancel()
    protocol.keepalive_timeout()


def test_a_peer_sending_a_long_frame_is_kept_until_its_bytes_stop():
    async def scenario() -> list[bool]:
        protocol, wire = await opened()
        frame = Frame(Opcode.BINARY, os.urandom(FRAME)).serialize(mask=True, extensions=[])
        parts = [frame[i : i + FRAME // 4] for i in range(0, len(frame), FRAME // 4)]
        protocol.data_received(parts[0])
        protocol.send_keepalive_ping()
        seen = []
        for part in parts[1:3]:
            protocol.data_received(part)  # the frame comes on: its pong can only follow it
            pong_due(protocol)
            seen.append(wire.dropped)
        pong_due(protocol)  # nothing more came of it
        seen.append(wire.dropped)
        return seen

    assert asyncio.run(scenario()) == [False, False, True]


def test_a_peer_whose_frame_ended_and_that_answers_no_ping_is_dropped():
    async def scenario() -> bool:
        protocol, wire = await opened()
        protocol.data_received(Frame(Opcode.BINARY, b"x" * 100).serialize(mask=True, extensions=[]))
        protocol.send_keepalive_ping()
        pong_due(protocol)
        return wire.dropped

    assert asyncio.run(scenario()) is True
