"""A rank's frames are bounded by their kind before they are parsed: a step, a report or a hello
larger than any real one is refused as it arrives (1009), a frame that hides its kind or names it
twice is refused too, and the server goes on with its other ranks."""

from __future__ import annotations

import json

import pytest
from server_helpers import ScriptedRank, start_serve
from websockets.exceptions import ConnectionClosed


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    up = start_serve(tmp_path_factory.mktemp("frames"))
    yield up
    up.proc.terminate()
    up.proc.wait(timeout=30)


def closed_with(rank: ScriptedRank, frame: str) -> tuple[int, str]:
    rank.beating.clear()
    rank.ws.send(frame)
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            rank.ws.recv(timeout=30)
    return closed.value.rcvd.code, closed.value.rcvd.reason


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
def test_a_frame_past_its_kinds_bound_is_refused_before_it_is_parsed(serve, frame, code, words):
    rank = ScriptedRank(serve, 0, 1)
    try:
        got, reason = closed_with(rank, frame)
    finally:
        rank.close()
    assert (got, words in reason) == (code, True), (got, reason)
    assert serve.call("GET", "/api/health")[0] == 200


def test_a_large_frame_of_a_kind_that_may_be_large_is_taken(serve):
    """A real step of 16,384 chunk summaries (about 2 MiB), parsed off the loop, then the rank goes on."""
    rank = ScriptedRank(serve, 0, 1)
    try:
        states = [
            {"chunk": i, "preview": [1.0] * 8, "min": 0.5, "max": 1.25, "sum": 3.5} for i in range(16384)
        ]
        rank.send(type="step", run_id="r-none", step=0, t0=0, t1=1, states=states)
        with pytest.raises(TimeoutError):
            rank.ws.recv(timeout=3)  # neither closed nor answered: taken
        assert [r["status"] for r in serve.cluster()["ranks"]] == ["idle"]
    finally:
        rank.close()
