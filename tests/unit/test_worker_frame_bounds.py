"""A rank's frames are bounded by their kind before they are parsed (door/frames.py, as the worker
socket reads them: `events`): a step, a report or a hello larger than any real one is refused as it
arrives (1009), a frame that hides its kind or names it twice is refused too, and only that
rank's socket is closed. A recorded socket stands in for the rank's."""

from __future__ import annotations

import asyncio
import json

import pytest
from in_process import hello

from ringside.server.door.frames import events
from ringside.worker_agent.core.protocol import StepEvent


class RankSocket:
    """A rank's socket as the server reads it: the frames the rank sends, then its going; and how
    the server closed it, if it did."""

    def __init__(self, *frames: str):
        self.incoming = [{"type": "websocket.receive", "text": f} for f in frames]
        self.incoming.append({"type": "websocket.disconnect"})
        self.closed: tuple[int, str] | None = None

    async def receive(self) -> dict:
        return self.incoming.pop(0)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def heard(*frames: str) -> tuple[list, tuple[int, str] | None]:
    """The events the server takes from a rank 0 that sends `frames`, and how it closed the socket."""
    ws = RankSocket(*frames)

    async def read() -> list:
        return [event async for event in events(ws, hello(0, 1))]

    return asyncio.run(read()), ws.closed


def padded(head: dict, size: int, tail: dict | None = None) -> str:
    """A frame of about `size` bytes: `head`'s keys first, a long string, then `tail`'s (a key may be
    named twice: written as text, not as one dict)."""
    keys = [json.dumps(head)[1:-1], f'"pad": "{"x" * size}"', *([json.dumps(tail)[1:-1]] if tail else [])]
    return "{" + ", ".join(keys) + "}"


STEP = {"v": 1, "type": "step", "run_id": "r-1", "rank": 0, "step": 0, "t0": 0, "t1": 1}


@pytest.mark.parametrize(
    "frame, code, words",
    [
        (padded(STEP, 5 << 20), 1009, "a step frame takes at most 4096 KiB"),
        (padded({"v": 1, "rank": 0}, 200 << 10, {"type": "heartbeat"}), 1009, 'does not name its "type"'),
        (
            padded({"v": 1, "type": "heartbeat", "rank": 0}, 100 << 10),
            1009,
            "a heartbeat frame takes at most 64",
        ),
        (padded({"v": 1, "type": "run_started", "rank": 0}, 1 << 20, {"type": "step"}), 1007, "type twice"),
        (padded(STEP, 1 << 20), 1007, "malformed event"),  # large enough to be parsed aside, and checked
    ],
    ids=["step", "hidden-kind", "heartbeat", "kind-twice", "parsed-aside"],
)
def test_a_frame_past_its_kinds_bound_is_refused_before_it_is_parsed(frame, code, words):
    beat = json.dumps({"v": 1, "type": "heartbeat", "rank": 0})
    taken, closed = heard(beat, frame, beat)
    assert closed is not None and (closed[0], words in closed[1]) == (code, True), closed
    assert [e.type for e in taken] == ["heartbeat"], "what came before is taken; nothing after"


def test_a_large_frame_of_a_kind_that_may_be_large_is_taken():
    """A real step of 16,384 chunk summaries (about 2 MiB), parsed off the loop, then the rank goes on."""
    states = [{"chunk": i, "preview": [1.0] * 8, "min": 0.5, "max": 1.25, "sum": 3.5} for i in range(16384)]
    step = json.dumps({**STEP, "run_id": "r-none", "states": states})
    taken, closed = heard(step, json.dumps({"v": 1, "type": "heartbeat", "rank": 0}))
    assert closed is None, "neither closed nor answered: taken"
    assert isinstance(taken[0], StepEvent) and len(taken[0].states) == 16384
    assert [e.type for e in taken] == ["step", "heartbeat"]
