"""Practice (server/practice/): a phone steps a run alone and predicts a cell before each step, on a
real `ringside up --ranks 4`. An answer counts only from a page connected to the lecture (its /ws
socket's ballot), once a step, graded against what the rank reported; the presenter's pages hear the
tally per step, the room's none; bad input changes nothing; and a run a poll holds cannot be
practised until its reveal."""

from __future__ import annotations

import contextlib
import secrets
import time

import pytest
from recorded import truth
from server_helpers import messages, posted_with_a_ballot
from websockets.sync.client import connect

LECTURE = {"collective": "all_reduce", "algorithm": "ring", "count": 8, "capture": "full"}


@pytest.fixture(scope="module")
def ring(up):
    return up.run(**LECTURE)


def heard(ws, match, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(TimeoutError):
            for message in messages(ws.recv(timeout=max(0.05, deadline - time.monotonic()))):
                if match(message):
                    return message
    raise AssertionError("not heard")


def unheard(ws, match, seconds: float = 0.6) -> None:
    with contextlib.suppress(TimeoutError):
        while True:
            for message in messages(ws.recv(timeout=seconds)):
                assert not match(message), message


@contextlib.contextmanager
def pages(up, n: int):
    """`n` audience pages connected to the lecture, each with its ballot: (socket, ballot) each."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(up.ws_url("/ws"))) for _ in range(n)]
        yield [(ws, heard(ws, lambda m: m["type"] == "snapshot")["ballot"]) for ws in sockets]


def answer(up, run_id: str, ballot: str, step: int, value):
    body = {"ballot": ballot, "step": step, "value": value}
    return up.call("POST", f"/api/practice/{run_id}/answers", body, token=None)


def tally(up, run_id: str) -> list[dict]:
    return up.call("GET", f"/api/practice/{run_id}")[1]["tally"]


def test_each_step_asks_a_cell_it_writes_graded_and_counted_once_a_page(up, ring):
    status, asked = up.call("GET", f"/api/practice/{ring['id']}", token=None)
    assert status == 200 and asked["tally"] is None, "the room reads the questions, not how it did"
    cells = asked["cells"]
    assert len(cells) == len(ring["steps"]) and all(cells), cells
    for k, cell in enumerate(cells):
        written = {(t[1], t[3]) for t in ring["steps"][k]["transfers"]}
        assert (cell["rank"], cell["chunk"]) in written and cell["step"] == k, "a cell the step writes"
    assert len({c["rank"] for c in cells}) > 1, "not the same rank every step"
    assert up.call("GET", f"/api/practice/{ring['id']}")[1]["cells"] == cells, "the same for every page"

    cell = cells[1]
    value = truth(ring, cell["rank"], cell["chunk"], 1)
    with pages(up, 2) as phones, connect(up.ws_url(f"/ws?token={up.presenter}")) as presenter:
        (room, right_ballot), (_, wrong_ballot) = phones
        status, graded = answer(up, ring["id"], right_ballot, 1, value)
        assert status == 201 and graded == {"right": True, "value": value}, graded
        status, graded = answer(up, ring["id"], wrong_ballot, 1, value + 1)
        assert status == 201 and graded == {"right": False, "value": value}, graded
        status, again = answer(up, ring["id"], wrong_ballot, 1, value)
        assert status == 409 and again["detail"]["field"] == "ballot", "a page answers a step once"
        told = heard(presenter, lambda m: m["type"] == "practice" and m["run_id"] == ring["id"])
        assert told["steps"] == [{"step": 1, "answered": 2, "right": 1}], told
        unheard(room, lambda m: m["type"] == "practice")
    assert tally(up, ring["id"]) == [{"step": 1, "answered": 2, "right": 1}]


def test_an_answer_without_a_connected_pages_ballot_adds_nothing(up, ring):
    before = tally(up, ring["id"])
    made_up = f"{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(16)[:22]}"
    status, body = answer(up, ring["id"], made_up, 0, 1.0)
    assert status == 403 and body["detail"]["field"] == "ballot", body
    with pages(up, 1) as [(_, ballot)]:
        pass  # its page went: the ballot is no longer held
    status, body = answer(up, ring["id"], ballot, 0, 1.0)
    assert status == 403 and body["detail"]["field"] == "ballot", "a page gone answers no more"
    with pages(up, 1) as [(_, ballot)]:
        for body, field in (
            ({"ballot": ballot, "step": 0, "value": "six"}, "value"),
            ({"ballot": ballot, "step": -1, "value": 1}, "step"),
            ({"ballot": ballot, "step": 0, "value": 1, "rank": 2}, "rank"),
            ({"ballot": ballot, "step": 0}, "value"),
        ):
            status, refused = up.call("POST", f"/api/practice/{ring['id']}/answers", body, token=None)
            assert status == 422 and refused["detail"]["field"] == field, (body, refused)
        status, refused = answer(up, ring["id"], ballot, len(ring["steps"]), 1.0)
        assert status == 422 and refused["detail"]["field"] == "step", refused
        assert "numbered from 0" in refused["detail"]["message"]
        status, refused = answer(up, "r-nothing", ballot, 0, 1.0)
        assert status == 404 and refused["detail"]["field"] == "run_id"
        body = b'{"ballot": "' + ballot.encode() + b'", "step": 0, "value": 1, "pad": "' + b"x" * 5000 + b'"}'
        assert up.call("POST", f"/api/practice/{ring['id']}/answers", body, token=None)[0] == 413
    assert tally(up, ring["id"]) == before, "nothing refused was counted"


def test_a_run_a_poll_holds_is_practised_only_after_its_reveal(up):
    with pages(up, 1) as [(_, ballot)]:
        status, poll = up.call(
            "POST", "/api/polls", {"question": "holds", "rank": 1, "step": 1, "run": {**LECTURE, "count": 12}}
        )
        assert status == 201, poll
        held = poll["run_id"]
        status, refused = up.call("GET", f"/api/practice/{held}", token=None)
        assert status == 409 and refused["detail"]["field"] == "run_id", "not while it runs held"
        run = up.wait(held)
        deadline = time.monotonic() + 30
        while up.call("GET", f"/api/polls/{poll['id']}")[1]["poll"]["state"] != "open":
            assert time.monotonic() < deadline, "the question opens"
            time.sleep(0.05)
        status, refused = up.call("GET", f"/api/practice/{held}", token=None)
        assert status == 409 and "after the reveal" in refused["detail"]["message"], refused
        value = truth(run, 1, 0, 1)
        status, refused = answer(up, held, ballot, 1, value)
        assert status == 409 and refused["detail"]["field"] == "run_id", "no grade gives the answer away"
        assert up.call("GET", f"/api/practice/{held}")[0] == 200, "the presenter reads it, to ask of it"
        assert tally(up, held) == [], "nothing counted"

        assert up.call("POST", f"/api/polls/{poll['id']}/reveal")[0] == 200
        status, asked = up.call("GET", f"/api/practice/{held}", token=None)
        assert status == 200 and len(asked["cells"]) == len(run["steps"])
        cell = asked["cells"][0]
        assert answer(up, held, ballot, 0, truth(run, cell["rank"], cell["chunk"], 0))[1]["right"] is True


def answer_from(up, source: str, run_id: str, step: int) -> tuple[int, dict]:
    return posted_with_a_ballot(up, source, f"/api/practice/{run_id}/answers", {"step": step, "value": 1})


def test_a_script_that_reconnects_for_each_answer_gives_no_more_than_its_address_keeps_pages(up, ring):
    """Each new page is handed a new ballot: a script that opened a socket, answered and closed it,
    over and over from one address, filled the presenter's chart with as many answers as it liked."""
    lines = up.call("GET", "/metrics", token=None)[1].splitlines()
    (line,) = [x for x in lines if x.startswith("ringside_connections_per_address_limit ")]
    most = int(float(line.split()[1]))
    step = next(cell["step"] for cell in up.call("GET", f"/api/practice/{ring['id']}")[1]["cells"] if cell)
    before = {s["step"]: s["answered"] for s in tally(up, ring["id"])}.get(step, 0)
    script = [answer_from(up, "127.0.0.33", ring["id"], step) for _ in range(most + 1)]
    assert [status for status, _ in script[:most]] == [201] * most
    status, refused = script[most]
    assert status == 409 and refused["detail"]["field"] == "ballot", refused
    assert answer_from(up, "127.0.0.34", ring["id"], step)[0] == 201, "another address answers as before"
    counted = {s["step"]: s["answered"] for s in tally(up, ring["id"])}
    assert counted[step] == before + most + 1
