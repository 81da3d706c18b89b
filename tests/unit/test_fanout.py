"""The fan-out (server/viewers/fanout.py) in-process, over recorded sockets: what piles up leaves as
one JSON array, the room hears what the screen lets through, and a viewer that stops reading is
dropped with 1013 while every other one hears everything."""

from __future__ import annotations

import asyncio
import json
from typing import ClassVar, Literal

import pytest
from pydantic import BaseModel

from ringside.server.door.audience import Audience, Undeclared
from ringside.server.viewers.fanout import DROPPED, Fanout
from ringside.server.viewers.messages import SnapshotMessage


class Said(BaseModel):
    audience: ClassVar[Audience] = Audience.EVERYONE
    type: Literal["said"] = "said"
    n: int


class RecordedSocket:
    """A viewer's socket: keeps each frame it is sent; a stalled one never finishes a send (a
    laptop asleep), until released."""

    client = None

    def __init__(self, stalled: bool = False):
        self.frames: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.moving = asyncio.Event()
        self.arrived = asyncio.Condition()
        if not stalled:
            self.moving.set()

    async def send_text(self, text: str) -> None:
        await self.moving.wait()
        async with self.arrived:
            self.frames.append(text)
            self.arrived.notify_all()

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    def heard(self) -> list[dict]:
        """Every message, a frame's array taken apart."""
        out: list[dict] = []
        for frame in self.frames:
            said = json.loads(frame)
            out += said if isinstance(said, list) else [said]
        return out

    async def hears(self, n: int) -> None:
        """Until `n` messages have arrived."""
        async with self.arrived:
            await self.arrived.wait_for(lambda: len(self.heard()) >= n)


async def stop(fanout: Fanout, *viewers) -> None:
    for viewer, pump in viewers:
        fanout.remove(viewer)
        viewer.offer_stop()
        await pump


def test_what_piles_up_while_a_frame_goes_out_leaves_as_one_json_array():
    async def main():
        fanout, ws = Fanout(limit=64), RecordedSocket()
        viewer = fanout.add(ws, presenter=False)
        for n in range(5):
            fanout.publish(Said(n=n))  # before its pump runs: all five wait in its queue
        pump = asyncio.create_task(viewer.pump())
        await ws.hears(5)
        fanout.publish(Said(n=5))
        await ws.hears(6)
        await stop(fanout, (viewer, pump))
        return ws

    ws = asyncio.run(main())
    assert [json.loads(f) if f.startswith("{") else "array" for f in ws.frames] == [
        "array",
        {"type": "said", "n": 5},
    ]
    assert [m["n"] for m in ws.heard()] == [0, 1, 2, 3, 4, 5], "in the order published"


def test_a_slow_viewer_is_dropped_with_1013_while_the_others_hear_everything():
    async def main():
        fanout = Fanout(limit=4)
        fast, slow = RecordedSocket(), RecordedSocket(stalled=True)
        viewers = [
            (v, asyncio.create_task(v.pump())) for v in (fanout.add(fast, False), fanout.add(slow, False))
        ]
        for n in range(20):
            fanout.publish(Said(n=n))
            await fast.hears(n + 1)  # the fast one keeps up; the slow one's queue fills behind its send
        await asyncio.gather(*fanout.closing)
        still = set(fanout.viewers)
        slow.moving.set()
        await stop(fanout, *viewers)
        return fast, slow, still, viewers

    fast, slow, still, viewers = asyncio.run(main())
    assert [m["n"] for m in fast.heard()] == list(range(20)) and fast.closed is None
    assert slow.closed is not None and slow.closed[0] == DROPPED and "reconnect" in slow.closed[1]
    assert still == {viewers[0][0]}, "the slow one is gone from the fan-out"
    assert len(slow.heard()) < 20, "what it could not take was never queued for it"


def test_the_presenter_hears_a_message_whole_and_the_room_as_the_screen_says():
    async def main():
        fanout = Fanout(limit=16)
        fanout.screen = lambda m: None if m.n == 1 else Said(n=-m.n) if m.n == 2 else m
        socks = {"presenter": RecordedSocket(), "room": RecordedSocket()}
        viewers = [
            (v, asyncio.create_task(v.pump()))
            for v in (fanout.add(socks["presenter"], True), fanout.add(socks["room"], False))
        ]
        for n in range(4):
            fanout.publish(Said(n=n))
        await socks["presenter"].hears(4)
        await socks["room"].hears(3)
        await stop(fanout, *viewers)
        return {who: [m["n"] for m in ws.heard()] for who, ws in socks.items()}

    heard = asyncio.run(main())
    assert heard == {"presenter": [0, 1, 2, 3], "room": [0, -2, 3]}


def test_a_snapshot_is_never_published_to_every_page():
    snapshot = SnapshotMessage(role="viewer", cluster={}, queue=[], current=None)
    with pytest.raises(Undeclared, match="made for one page"):
        Fanout(limit=4).publish(snapshot)
