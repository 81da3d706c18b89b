"""A question asked before its run is shown (a real `ringside up --ranks 4`): the presenter
asks, the run runs held, and until the reveal no page but the presenter's hears or reads
anything from which the answer follows: not over /ws (every message a room socket hears is
looked through: no run message of a held run, no values, traffic, times, no tally), not on any
route a viewer may read (the run, the list, the trace, /api/compare/*, /api/model/*, /metrics,
the polls). Then the reveal, and the room reads the run whole. The presenter is told when an
earlier run every page has seen answers the question already."""

from __future__ import annotations

import collections
import contextlib
import json
import time

import pytest
from server_helpers import messages
from websockets.sync.client import connect

LECTURE = {"collective": "all_reduce", "count": 8, "capture": "full", "pattern": "digits"}
TIMES = ("time", "algbw", "busbw", "started_at", "finished_at")


class Ear:
    """A viewer's socket, heard message by message (a frame may hold several)."""

    def __init__(self, ws):
        self.ws, self.pending = ws, collections.deque()

    def next(self, timeout: float) -> dict:
        if not self.pending:
            self.pending.extend(messages(self.ws.recv(timeout=timeout)))
        return self.pending.popleft()

    def until(self, match, timeout: float = 60) -> list[dict]:
        """Every message heard until one satisfies `match` (that one last)."""
        heard, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                heard.append(self.next(max(0.05, deadline - time.monotonic())))
                if match(heard[-1]):
                    return heard
        raise AssertionError(f"not heard in {timeout} s: {[m['type'] for m in heard]}")

    def quiet(self, seconds: float = 0.5) -> list[dict]:
        """What is heard until nothing has been for `seconds`."""
        heard = []
        with contextlib.suppress(TimeoutError):
            while True:
                heard.append(self.next(seconds))
        return heard


def poll_is(state: str, poll_id: str):
    return lambda m: m["type"] == "poll" and m["poll"]["id"] == poll_id and m["poll"]["state"] == state


def secrets_of(run: dict) -> list[str]:
    """What only the run as it ran says, written as JSON writes it: its times and every rank's
    step times (no other run has these floats)."""
    floats = [run[k] for k in TIMES if run.get(k)]
    floats += [t for step in run["steps"] for r in step["ranks"].values() for t in (r["t0"], r["t1"])]
    floats += [t for res in run["results"].values() for t in res["timings"]["iterations"]]
    return [json.dumps(f) for f in floats if f]


def told_nothing(text: str, runs: list[dict]) -> None:
    for run in runs:
        for secret in secrets_of(run):
            assert secret not in text, f"{run['id']}'s {secret} in {text[:300]}"


def room_reads(up, runs: list[dict], poll: dict) -> dict[str, tuple[int, object]]:
    """Every route a viewer may read that could carry what the held runs gave."""
    held = runs[0]["id"]
    paths = [
        "/api/runs?limit=50",
        f"/api/runs/{held}",
        f"/api/runs/{held}/trace",
        "/api/compare",
        f"/api/compare/formulas?run={held}",
        f"/api/compare/beside?run={held}",
        "/api/model?collective=all_reduce&algorithm=ring&count=8",
        "/api/model/fit",
        "/api/model/predict?collective=all_reduce&p=4",
        "/metrics",
        "/api/cluster",
        "/api/polls/current",
        f"/api/polls/{poll['id']}",
        f"/api/polls?run_id={held}",
    ]
    return {path: up.call("GET", path, token=None) for path in paths}


def test_a_question_asked_before_its_run_is_held_from_the_room_until_the_reveal(up):
    with (
        connect(up.ws_url(f"/ws?token={up.presenter}"), max_size=None) as presenter_ws,
        connect(up.ws_url("/ws"), max_size=None) as room_ws,
    ):
        presenter, room = Ear(presenter_ws), Ear(room_ws)
        assert room.until(lambda m: m["type"] == "snapshot")[-1]["ballot"], "a page connected holds a ballot"
        presenter.until(lambda m: m["type"] == "snapshot")
        status, poll = up.call(
            "POST",
            "/api/polls",
            {"question": "busiest_link", "numeric": True, "run": {"algorithm": "ring", **LECTURE}},
        )
        assert status == 201 and poll["state"] == "running" and poll["choices"] == [], poll
        held = poll["run_id"]
        assert poll["runs"] == [held]
        said = up.call("GET", f"/api/runs/{held}", token=None)
        assert said[0] == 409, "while it runs, the room reads not even its state"
        view = {"type": "presenter", "run_id": held, "step": -1, "playing": False, "speed": 1.0}
        presenter_ws.send(json.dumps(view))  # the presenter's page shows the held run at its inputs

        # the presenter hears the run as it runs, then the question
        whole = presenter.until(poll_is("open", poll["id"]))
        assert {"run_started", "step", "run_ended"} <= {
            m["type"] for m in whole if m.get("run_id", held) == held
        }
        run = up.call("GET", f"/api/runs/{held}")[1]
        assert run["state"] == "done" and run["traffic"]["busiest_link"]["bytes"] > 0
        heard = room.until(poll_is("open", poll["id"]))
        assert "presenter" not in [m["type"] for m in heard], "not when the held run came on stage"
        opened = heard[-1]["poll"]
        assert opened["answers"] == [] and opened["number"] is None and opened["counts"] is None, opened
        assert len(opened["choices"]) >= 3 and opened["text"].startswith("How many bytes cross")

        reads = room_reads(up, [run], poll)
        heard += room.quiet()
        for m in heard:
            if m["type"] in ("run", "run_started", "step", "run_ended", "wavefront"):
                assert held not in (m.get("run_id"), m.get("run", {}).get("id")), (
                    f"the room heard {m['type']}"
                )
            assert m["type"] != "step", "no run's step while its question is open"
            if m["type"] == "poll":
                assert m["poll"]["answers"] == [] and m["poll"]["counts"] is None
        told_nothing(json.dumps(heard), [run])
        assert [m["run_id"] for m in heard if m["type"] == "presenter"] == [held], "then the room follows"
        for _, body in reads.values():
            told_nothing(json.dumps(body), [run])
        seen = reads[f"/api/runs/{held}"][1]
        assert seen["held_for"] == poll["id"], seen
        assert seen["traffic"] is None and seen["results"] == {} and seen["display"]["formula"] is None
        assert all(step["ranks"] == {} for step in seen["steps"]) and seen["inputs"], (
            "the plan and inputs only"
        )
        line = next(r for r in reads["/api/runs?limit=50"][1]["runs"] if r["id"] == held)
        assert all(line[k] is None for k in TIMES)
        for path in (
            f"/api/runs/{held}/trace",
            "/api/compare",
            f"/api/compare/formulas?run={held}",
            f"/api/compare/beside?run={held}",
            "/api/model?collective=all_reduce&algorithm=ring&count=8",
            "/api/model/fit",
            "/api/model/predict?collective=all_reduce&p=4",
        ):
            assert reads[path][0] == 409, (path, reads[path])
        assert 'collective="all_reduce"' not in reads["/metrics"][1], "no count, time or bandwidth of it"
        assert reads[f"/api/polls/{poll['id']}"][1]["poll"]["counts"] is None
        assert up.call("GET", "/api/compare")[0] == 200, "the presenter reads everything"

        status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
        assert status == 200 and revealed["number"] == run["traffic"]["busiest_link"]["bytes"]
        on_phone = room.until(poll_is("revealed", poll["id"]))[-1]["poll"]
        assert on_phone["answers"] == revealed["answers"] and on_phone["number"] == revealed["number"]
        assert up.call("GET", f"/api/runs/{held}", token=None)[1] == run, "then the room reads it whole"
        assert up.call("GET", "/api/compare/formulas?run=" + held, token=None)[0] == 200


def test_while_its_run_runs_the_room_reads_not_even_that_it_runs(up):
    """A straggler makes the held run take seconds: meanwhile the room's every read and a page
    that joins say nothing of it (its state would say when it ends), nor of the poll."""
    slow = {"algorithm": "ring", **LECTURE, "perturb": {"straggler": {"rank": 3, "delay_s": 0.4}}}
    with connect(up.ws_url("/ws"), max_size=None) as room_ws:
        room = Ear(room_ws)
        room.until(lambda m: m["type"] == "snapshot")
        status, poll = up.call("POST", "/api/polls", {"question": "bottleneck", "run": slow})
        if status == 409:  # a ring's ranks all move the same: the question of bytes instead
            status, poll = up.call("POST", "/api/polls", {"question": "busiest_link", "run": slow})
        assert status == 201, poll
        held = poll["run_id"]
        assert up.call("GET", f"/api/runs/{held}")[1]["state"] in ("queued", "running")
        assert up.call("GET", f"/api/runs/{held}", token=None)[0] == 409
        assert up.call("GET", f"/api/polls/{poll['id']}", token=None)[0] == 409
        assert (up.call("GET", "/api/polls/current", token=None)[1]["poll"] or {}).get("id") != poll["id"]
        assert held not in [r["id"] for r in up.call("GET", "/api/runs?limit=50", token=None)[1]["runs"]]
        with connect(up.ws_url("/ws"), max_size=None) as late:
            joined = Ear(late).until(lambda m: m["type"] == "snapshot")[-1]
        assert joined["current"] is None and joined["presenter"] is None, joined
        assert held not in [r["id"] for r in joined["queue"]] and joined["queued"] == 0
        heard = room.until(poll_is("open", poll["id"]))
        assert up.call("GET", f"/api/runs/{held}")[1]["state"] == "done"
        assert [m for m in heard if m["type"] == "poll" and m["poll"]["id"] == poll["id"]] == heard[-1:], (
            "the room hears of the poll when it opens, not before"
        )
        assert not [m for m in heard if held in (m.get("run_id"), m.get("run", {}).get("id"))]
    up.call("POST", f"/api/polls/{poll['id']}/reveal")


def test_a_race_runs_each_algorithm_held_and_tells_the_room_no_time(up):
    """A question of which algorithm finishes first runs one held run per algorithm at the
    shape: while they run the room hears of none of them (not when each ends: that is its
    time), sees none in the list, and /metrics counts none of them."""
    with connect(up.ws_url("/ws"), max_size=None) as room_ws:
        room = Ear(room_ws)
        room.until(lambda m: m["type"] == "snapshot")
        status, race = up.call(
            "POST", "/api/polls", {"question": "faster", "run": {"algorithm": "ring", **LECTURE}}
        )
        assert status == 201 and len(race["runs"]) >= 3, race
        listed = [r["id"] for r in up.call("GET", "/api/runs?limit=50", token=None)[1]["runs"]]
        assert not set(race["runs"]) & set(listed), "no line of a held run while it runs"
        during = up.call("GET", "/metrics", token=None)[1]
        heard = room.until(poll_is("open", race["id"]))
        runs = [up.call("GET", f"/api/runs/{i}")[1] for i in race["runs"]]
        assert all(r["state"] == "done" for r in runs)
        for m in heard:
            ids = {m.get("run_id"), m.get("run", {}).get("id")}
            assert not ids & set(race["runs"]), f"the room heard {m['type']} of a held run"
        told_nothing(json.dumps(heard), runs)
        assert [ln for ln in during.splitlines() if "all_reduce" in ln] == [], "nor counted it"
        opened = heard[-1]["poll"]
        assert sorted(opened["choices"]) == sorted(r["spec"]["algorithm"] for r in runs)
        for r in runs[1:]:
            assert r["spec"]["purpose"] == "sweep", "the race's others stay off every stage"
        revealed = up.call("POST", f"/api/polls/{race['id']}/reveal")[1]
        fastest = min(runs, key=lambda r: r["time"])["spec"]["algorithm"]
        assert revealed["choices"][revealed["answers"][0]] == fastest, "the fastest, as measured"


def test_the_presenter_is_told_when_a_run_every_page_has_seen_answers_already(up):
    shown = up.run(algorithm="tree", **LECTURE)  # pressed R: every page heard it whole
    status, poll = up.call(
        "POST", "/api/polls", {"question": "busiest_link", "run": {"algorithm": "tree", **LECTURE}}
    )
    assert status == 201 and poll["answered_by"][0] == shown["id"], poll
    up.wait(poll["run_id"])
    room = up.call("GET", f"/api/polls/{poll['id']}", token=None)
    deadline = time.monotonic() + 30
    while room[0] == 409 and time.monotonic() < deadline:  # the question opens as its run ends
        time.sleep(0.1)
        room = up.call("GET", f"/api/polls/{poll['id']}", token=None)
    assert room[1]["poll"]["answered_by"] == [], "the room is not told where the answer is"

    other = {**LECTURE, "pattern": "rank"}  # other inputs: the same bytes, other values
    status, holds = up.call(
        "POST",
        "/api/polls",
        {"question": "holds", "rank": 1, "step": 0, "run": {"algorithm": "tree", **other}},
    )
    assert status == 201 and holds["answered_by"] == [], "what a rank holds depends on the inputs"
    for p in (poll, holds):
        up.wait(p["runs"][-1])
    for p in (poll, holds):
        deadline = time.monotonic() + 30
        while up.call("POST", f"/api/polls/{p['id']}/reveal")[0] != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)


@pytest.mark.parametrize(
    ("ask", "field"),
    [
        ({"question": "holds", "run": {"algorithm": "ring", **LECTURE}}, "rank"),
        ({"question": "holds", "rank": 0, "step": 99, "run": {"algorithm": "ring", **LECTURE}}, "step"),
        (
            {
                "question": "holds",
                "rank": 0,
                "step": 0,
                "run": {"algorithm": "ring", "collective": "all_reduce"},
            },
            "run",
        ),
        ({"question": "busiest_link", "run": {"algorithm": "native", **LECTURE}}, "run"),
        ({"question": "faster", "numeric": True, "run": {"algorithm": "ring", **LECTURE}}, "numeric"),
        ({"question": "busiest_link"}, "run"),
        ({"question": "busiest_link", "run": {"algorithm": "ring", **LECTURE}, "seconds": 1}, "seconds"),
    ],
)
def test_a_question_its_run_cannot_answer_is_refused_before_anything_runs(up, ask, field):
    before = up.call("GET", "/api/runs?limit=1")[1]["total"]
    status, body = up.call("POST", "/api/polls", ask)
    assert status in (409, 422) and body["detail"]["field"] == field, body
    assert up.call("GET", "/api/runs?limit=1")[1]["total"] == before, "nothing was run"
