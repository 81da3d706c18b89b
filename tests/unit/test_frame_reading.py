"""A rank's frame read in one pass (frames.well_formed: pydantic's own parser, strict) says what
the exact reading (json.loads, the version, then lax validation: what parse_event does with any
frame the one pass leaves to it) says, frame for frame: the same event where both take it, the
same refusal, code and words, where the exact reading refuses it."""

from __future__ import annotations

import json

import pytest

from ringside.server.door import frames
from ringside.server.door.frames import Refused, parse_event, well_formed
from ringside.worker_agent.core.watch_protocol import WATCH_MESSAGE

ISSUED = {"group": "0", "seq": 7, "op": "all_reduce", "dtype": "float32", "count": 4, "t_ns": 5}
REPORT = {"type": "watch_report", "v": 1, "rank": 3, "t_ns": 10, "where": "train.py:87", "issued": [ISSUED]}


def text(**fields) -> str:
    return json.dumps({**REPORT, **fields})


FRAMES = {
    "a report": text(),
    "a report with every list": text(
        groups={"0": [0, 1, 2, 3]},
        group_descs={"0": "default_pg"},
        pending={"0": 7},
        links=[{"peer": 1, "sent": 8, "sends": 1, "sends_total": 1, "receives_total": 0}],
        waits=[{"peer": 1, "send": True, "nth": 1, "t_ns": 4}],
    ),
    "NaN in a time": text(issued=[{**ISSUED, "duration_s": 1}]).replace(": 1}", ": NaN}"),
    "Infinity in a count": text().replace('"count": 4', '"count": Infinity'),
    "NaN as a word in a line": text(where="NaN.py:3"),
    "another version": text(v=2),
    "the version as a string": text(v="1"),
    "a rank as a string": text(rank="3"),
    "a count as a float": text(issued=[{**ISSUED, "count": 4.0}]),
    "a lone surrogate": text(where="x").replace('"where": "x"', '"where": "\\ud800"'),
    "a key twice": text()[:-1] + ', "rank": 4}',
    "an unknown field": text(extra=1),
    "a negative count": text(issued=[{**ISSUED, "count": -1}]),
    "a list": json.dumps([REPORT]),
    "not JSON": text()[:-1],
    "nested too deep": text(where="x").replace('"x"', "[" * 5000 + "]" * 5000),
    "a hello": json.dumps(
        {
            "type": "watch_hello",
            "job": "k",
            "rank": 0,
            "world_size": 2,
            "host": "h",
            "pid": 1,
            "launcher": "torchrun",
            "backend": "gloo",
            "started_ns": 1,
        }
    ),
    "a goodbye": json.dumps({"type": "watch_bye", "rank": 3, "exit_code": 0}),
}


def read(frame: str):
    """The event, or the refusal's (code, reason)."""
    try:
        return parse_event({"text": frame}, WATCH_MESSAGE)
    except Refused as e:
        return (e.code, e.reason)


@pytest.mark.parametrize("frame", FRAMES.values(), ids=FRAMES.keys())
def test_a_frame_read_in_one_pass_says_what_the_exact_reading_says(frame, monkeypatch):
    got = read(frame)
    monkeypatch.setattr(frames, "well_formed", lambda text, adapter: None)  # the exact reading alone
    assert got == read(frame)


def test_the_one_pass_takes_the_common_frames_and_leaves_the_rest_to_the_exact_reading():
    taken = [name for name, frame in FRAMES.items() if well_formed(frame, WATCH_MESSAGE) is not None]
    assert taken == ["a report", "a report with every list", "a key twice", "a hello", "a goodbye"]
