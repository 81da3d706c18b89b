"""A hall behind one address, counted in-process: the server's own protocol classes (transport.py) over
recorded transports from one client address. A viewer's socket whose token lets it watch is a page of
the address's hall, which its per-address cap does not count, up to the hall's own cap; every other
connection counts as before, and past the cap the address is refused (and counted so for /metrics)."""

from __future__ import annotations

import asyncio
import base64
import os

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from ringside.server.door import files, transport

HALL = "127.0.0.7"
CAPS = files.Caps(files=1024, in_all=100, per_address=2, backlog=16, hall=3)


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


@pytest.fixture
def door(monkeypatch):
    """What the door holds, fresh, under small caps; a page watches with the token "v"."""
    config = Config(app=accepting, **transport.protocols(watches=lambda token: token == "v"))
    config.load()
    monkeypatch.setattr(transport, "_held", transport.Held())
    monkeypatch.setattr(transport, "_caps", CAPS)
    monkeypatch.setattr(transport, "_refused", transport.Counter(dict.fromkeys(transport.REFUSALS, 0)))
    return config


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


def test_a_hall_of_pages_is_served_past_the_per_address_cap_and_bounded_by_its_own(door):
    async def scenario() -> None:
        held = transport._held
        pages = [await connected(door, "/ws?token=v") for _ in range(CAPS.hall)]
        assert held.hall[HALL] == CAPS.hall and held.by_address[HALL] == CAPS.hall
        assert held.by_kind["viewer"] == CAPS.hall
        past = await connected(door, "/ws?ballot=b&token=v")  # the hall is full: it counts as a connection
        plain = await connected(door)  # a request's connection
        assert not past.dropped and not plain.dropped and held.hall[HALL] == CAPS.hall
        refused = await connected(door, "/ws?token=v")
        assert refused.dropped, "the address holds its cap's connections beyond its hall"
        assert transport._refused["per_address"] == 1 and transport._refused["in_all"] == 0
        pages[0].protocol.connection_lost(None)  # a phone leaves: its place in the hall is free
        assert held.hall[HALL] == CAPS.hall - 1 and held.by_address[HALL] == CAPS.hall + 1
        # but a page is a connection until its path is read: it needs room under the cap to arrive
        assert (await connected(door)).dropped
        plain.protocol.connection_lost(None)
        again = await connected(door, "/ws", bearer="v")  # the token as a header
        assert not again.dropped and held.hall[HALL] == CAPS.hall
        assert transport._refused["per_address"] == 2
        for wire in [*pages[1:], past, again]:
            wire.protocol.connection_lost(None)
        assert not held.by_address and not held.hall and held.in_all == 0, "every count given back"

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/ws", "no token"),
        ("/ws?token=w", "a token that does not let it watch"),
        ("/ws/watch?token=v", "a rank's socket"),
        ("/%77s?token=v", "the viewers' path, as the router unquotes it"),
    ],
)
def test_only_a_viewers_socket_with_a_token_that_watches_is_a_page_of_the_hall(door, path, why):
    async def scenario() -> tuple[int, int]:
        await connected(door, path)
        return transport._held.hall[HALL], transport._held.by_address[HALL]

    hall, held = asyncio.run(scenario())
    assert held == 1
    assert hall == (1 if path.startswith("/%77s") else 0), why


def test_the_global_bound_holds_for_a_hall():
    held, caps = transport.Held(), files.Caps(files=64, in_all=4, per_address=2, backlog=16, hall=8)
    for _ in range(4):
        held.take(HALL)
        assert held.into_hall(HALL, caps)
    assert held.refuses(HALL, caps) and not held.past_address(HALL, caps), "refused in all, not per address"


def test_the_hall_cap_is_sized_from_the_open_files():
    caps = files.raised(transport.MAX_PER_CLIENT, transport.MAX_HALL)
    assert 2 <= caps.hall <= min(transport.MAX_HALL, caps.in_all // 2)
    assert caps.hall + caps.per_address < caps.in_all, "one address never fills the server"
