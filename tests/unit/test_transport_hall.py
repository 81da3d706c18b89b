"""A hall behind one address, counted in-process: the server's own protocol classes (transport.py) over
recorded transports from one client address. A viewer's socket whose token lets it watch is a page of
the address's hall, which its per-address cap does not count, up to the hall's own cap; every other
connection counts as before, and past the cap the address is refused (and counted so for /metrics)."""

from __future__ import annotations

import asyncio

import pytest
from door_in_process import HALL, accepting, connected
from uvicorn.config import Config

from ringside.server.door import files, transport

CAPS = files.Caps(files=1024, in_all=100, per_address=2, backlog=16, hall=3)


@pytest.fixture
def door(monkeypatch):
    """What the door holds, fresh, under small caps; a page watches with the token "v"."""
    config = Config(app=accepting, **transport.protocols(watches=lambda token: token == "v"))
    config.load()
    monkeypatch.setattr(transport, "_held", transport.Held())
    monkeypatch.setattr(transport, "_caps", CAPS)
    monkeypatch.setattr(transport, "_refused", transport.Counter(dict.fromkeys(transport.REFUSALS, 0)))
    return config


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
