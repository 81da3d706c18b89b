"""Predict, then reveal (server/polls/): real runs on `ringside up --ranks 4`, polls
opened by the presenter, votes from pages that are only viewers, the tally heard over /ws,
and the answer, hidden until the reveal, checked against what the ranks' buffers held: the whole path
once. What the polls decide (questions, ballots, the tally, the timer, closing) is tested in-process,
tests/unit/test_poll_service.py."""

from __future__ import annotations

import contextlib
import time

import pytest
import segno
from server_helpers import messages, start_up
from websockets.sync.client import connect

LECTURE = {"collective": "all_reduce", "count": 8, "capture": "full", "pattern": "digits"}


@pytest.fixture(scope="module")
def ring(up):
    return up.run(algorithm="ring", **LECTURE)


def heard(viewer, match, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in messages(viewer.recv(timeout=max(0.1, deadline - time.monotonic()))):
            if match(message):
                return message
    raise AssertionError("not heard")


def vote(up, poll_id: str, ballot: str, choice: int | None = None, number: float | None = None):
    body = {"ballot": ballot, **({"choice": choice} if number is None else {"number": number})}
    return up.call("POST", f"/api/polls/{poll_id}/votes", body, token=None)


def shown(values) -> str:
    return " · ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


@contextlib.contextmanager
def pages(up, n: int, kept: str | None = None):
    """`n` audience pages connected to the lecture (their /ws sockets, from this one address),
    each with the ballot its snapshot handed it: (socket, ballot) each."""
    with contextlib.ExitStack() as stack:
        query = f"?ballot={kept}" if kept else ""
        sockets = [stack.enter_context(connect(up.ws_url("/ws" + query))) for _ in range(n)]
        yield [(ws, heard(ws, lambda m: m["type"] == "snapshot")["ballot"]) for ws in sockets]


def test_a_poll_is_voted_once_per_page_told_to_every_page_and_revealed_right(up, ring):
    with (
        pages(up, 3) as phones,
        connect(up.ws_url(f"/ws?token={up.presenter}")) as presenter,
    ):
        (phone, _), ballots = phones[0], [b for _, b in phones]
        assert len(set(ballots)) == 3, "a ballot a page"
        status, poll = up.call(
            "POST", "/api/polls", {"run_id": ring["id"], "question": "holds", "rank": 2, "step": 2}
        )
        assert status == 201, poll
        assert (
            poll["answers"] == []
            and poll["state"] == "open"
            and poll["text"] == "What does rank 2 hold after step 3?"
        )
        told = heard(phone, lambda m: m["type"] == "poll")
        assert told["poll"]["id"] == poll["id"] and told["poll"]["answers"] == [], (
            "no page learns the answer early"
        )

        for ballot, choice in zip(ballots, (0, 1, 1)):
            assert vote(up, poll["id"], ballot, choice)[0] == 202
        status, again = vote(up, poll["id"], ballots[0], 1)
        assert status == 409 and again["detail"]["field"] == "ballot", "a page votes once"
        tally = heard(presenter, lambda m: m["type"] == "tally" and m["votes"] == 3)
        assert tally["counts"][:2] == [1, 2] and sum(tally["counts"]) == 3 and tally["pages"] >= 3
        said = heard(phone, lambda m: m["type"] == "tally" and m["votes"] == 3)
        assert said["counts"] is None and said["pages"] is None, "the room: how many, not for what"

        status, reloaded = up.call("GET", f"/api/polls/current?ballot={ballots[1]}", token=None)
        assert reloaded["poll"]["id"] == poll["id"] and reloaded["voted"] == {"choice": 1}, (
            "a reloaded page finds its vote"
        )

        assert up.call("POST", f"/api/polls/{poll['id']}/reveal", token=None)[0] == 401
        status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
        assert status == 200 and len(revealed["answers"]) == 1
        on_phone = heard(phone, lambda m: m["type"] == "poll" and m["poll"]["state"] == "revealed")
        assert on_phone["poll"]["answers"] == revealed["answers"]
        assert on_phone["poll"]["counts"][:2] == [1, 2], "voting closed: the room sees the tally"
        assert vote(up, poll["id"], ballots[2], 0)[0] == 409, "a revealed poll takes no more votes"
    held = {s["chunk"]: s["values"] for s in ring["inputs"]["2"]}  # a step reports the chunks it changed
    for step in ring["steps"][:3]:
        held.update({s["chunk"]: s["values"] for s in step["ranks"]["2"]["states"]})
    right = shown([v for _, values in sorted(held.items()) for v in values])
    assert len(right.split(" · ")) == 8 and revealed["choices"][revealed["answers"][0]] == right, (
        "the answer is rank 2's whole buffer after step 3"
    )
    listed = up.call("GET", f"/api/polls?run_id={ring['id']}", token=None)[1]["polls"]
    assert [p["id"] for p in listed] == [poll["id"]]


def test_lecture_mode_listens_for_the_hall_and_hands_the_presenter_its_link(tmp_path):
    hall = start_up(tmp_path, ranks=1, flags=("--lecture",))
    try:
        log = hall.log_text()
        assert "Ringside is listening on 0.0.0.0" in log and "K on the presenter's page" in log
        status, lecture = hall.call("GET", "/api/lecture")
        assert status == 200 and lecture["exposed"] is True
        link = lecture["audience"][0]
        token = link.rsplit("?token=", 1)[1]
        assert len(token) >= 16 and token != hall.presenter, (
            "the link carries the viewer token, not the presenter's"
        )
        svg = segno.make(link, error="m").svg_inline(
            scale=8, border=2, dark="#000", light="#fff", omitsize=True
        )
        assert lecture["qr_svg"] == svg
        assert hall.call("GET", "/api/lecture", token=None)[0] == 401, (
            "watching needs the token the link carries"
        )
        assert hall.call("GET", "/api/lecture", token=token)[0] == 403, (
            "and the link is the presenter's to hand out"
        )
        assert hall.call("GET", "/api/cluster", token=token)[0] == 200
        assert hall.call("GET", "/api/cluster", token=None)[0] == 401
    finally:
        hall.stop()
