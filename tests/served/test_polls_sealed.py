"""A question asked before its run is shown (a real `ringside up --ranks 4`): the presenter
asks, the run runs held, and until the reveal no page but the presenter's hears or reads
anything from which the answer follows: not over /ws (every message a room socket hears is
looked through: no run message of a held run, no values, traffic, times, no tally), not on any
route a viewer may read (the run, the list, the trace, /api/compare/*, /api/model/*, /metrics,
the polls). Then the reveal, and the room reads the run whole: the whole path once. And a question
asked after a public rehearsal of the same spec, on real ranks: its answer differs from the
rehearsal's, or the rehearsal is held. What the polls and visibility decide on the way is tested
in-process (tests/unit/test_poll_service.py, test_poll_rehearsals.py and test_visibility.py)."""

from __future__ import annotations

import collections
import contextlib
import json
import time

from server_helpers import messages
from websockets.sync.client import connect

from ringside.server.polls.mistakes import shown

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


def holds(run: dict, rank: int, step: int) -> str:
    """What rank `rank` holds after step `step`, as a choice shows it: its inputs, each step's chunks
    laid over."""
    chunks = {c["chunk"]: c["values"] for c in run["inputs"][str(rank)]}
    for done in run["steps"][: step + 1]:
        chunks.update({c["chunk"]: c["values"] for c in done["ranks"][str(rank)]["states"]})
    return shown([v for _, values in sorted(chunks.items()) for v in values])


def held_from_the_room(up, rehearsal: dict, poll: dict) -> None:
    """The rehearsal as the room reads it while the poll holds it: its plan and inputs, no answer."""
    status, seen = up.call("GET", f"/api/runs/{rehearsal['id']}", token=None)
    assert status == 200 and seen["held_for"] == poll["id"] and seen["results"] == {}, seen
    assert seen["steps"][2]["ranks"] == {} and seen["inputs"], "its plan and inputs, no answer"


def test_a_question_asked_after_a_public_rehearsal_reads_another_answer_or_holds_it(up):
    asked = {"question": "holds", "rank": 1, "step": 2, "numeric": True}
    seeded = {"algorithm": "ring", **LECTURE, "pattern": "random_int", "seed": 11}
    typed = {"algorithm": "ring", **LECTURE, "inputs": [[10 * r + i for i in range(8)] for r in range(4)]}
    with connect(up.ws_url(f"/ws?token={up.presenter}"), max_size=None) as ws:
        presenter = Ear(ws)
        presenter.until(lambda m: m["type"] == "snapshot")
        rehearsal = up.run(**seeded)  # pressed R: every page read it whole
        status, poll = up.call("POST", "/api/polls", {**asked, "run": seeded})
        assert status == 201 and poll["fresh_seed"] not in (None, 11) and poll["rehearsals"] == [], poll
        presenter.until(poll_is("open", poll["id"]))  # its held run has run
        run = up.call("GET", f"/api/runs/{poll['run_id']}")[1]
        assert run["spec"]["seed"] == poll["fresh_seed"]
        status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
        right = revealed["choices"][revealed["answers"][0]]
        assert right == holds(run, 1, 2) != holds(rehearsal, 1, 2), "another answer than the rehearsal's"

        rehearsal = up.run(**typed)  # a lesson's stage, its inputs typed in, rehearsed in public
        status, poll = up.call("POST", "/api/polls", {**asked, "run": typed})
        assert status == 201 and poll["rehearsals"] == [rehearsal["id"]] and poll["fresh_seed"] is None, poll
        held_from_the_room(up, rehearsal, poll)  # while its run runs
        presenter.until(poll_is("open", poll["id"]))
        held_from_the_room(up, rehearsal, poll)  # and once it is open
    assert up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]["rehearsals"] == []
    status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
    assert revealed["choices"][revealed["answers"][0]] == holds(rehearsal, 1, 2)
    assert up.call("GET", f"/api/runs/{rehearsal['id']}", token=None)[1] == rehearsal, "released"
