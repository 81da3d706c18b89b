"""A websocket's keepalive in-process: the server's own protocol classes (transport.py) over a
recorded transport (door_in_process.py), their timers fired by the test. A peer in the middle of a
long frame cannot answer a ping until the frame's last byte: it is kept while the frame's bytes
come, and dropped once they stop, as one that answers no ping is."""

from __future__ import annotations

import asyncio
import os

import pytest
from door_in_process import accepting, connected
from uvicorn.config import Config
from websockets.frames import Frame, Opcode

from ringside.server.door import transport

FRAME = 1 << 20


@pytest.fixture
def rank_socket(monkeypatch):
    """A rank's socket opened, pinged each second: its protocol and its transport."""
    monkeypatch.setattr(transport, "_held", transport.Held())

    async def opened():
        config = Config(app=accepting, **transport.protocols(ping_every_s=1))
        config.load()
        wire = await connected(config, "/ws/dumps")
        return wire.protocol, wire

    return opened


def pong_due(protocol) -> None:
    """The ping's answer overdue now: its timer fired (the one it armed cancelled)."""
    if protocol.pong_timer is not None:
        protocol.pong_timer.cancel()
    protocol.keepalive_timeout()


def test_a_peer_sending_a_long_frame_is_kept_until_its_bytes_stop(rank_socket):
    async def scenario() -> list[bool]:
        protocol, wire = await rank_socket()
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


def test_a_peer_whose_frame_ended_and_that_answers_no_ping_is_dropped(rank_socket):
    async def scenario() -> bool:
        protocol, wire = await rank_socket()
        protocol.data_received(Frame(Opcode.BINARY, b"x" * 100).serialize(mask=True, extensions=[]))
        protocol.send_keepalive_ping()
        pong_due(protocol)
        return wire.dropped

    assert asyncio.run(scenario()) is True
