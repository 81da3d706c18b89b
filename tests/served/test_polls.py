"""Predict, then reveal (server/polls/): real runs on `ringside up --ranks 4`, polls
opened by the presenter, votes from pages that are only viewers, the tally heard over /ws,
and the answer, hidden until the reveal, checked against what the ranks' buffers held."""

from __future__ import annotations

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


def vote(up, poll_id: str, voter: str, choice: int):
    return up.call("POST", f"/api/polls/{poll_id}/votes", {"choice": choice, "voter": voter}, token=None)


def shown(values) -> str:
    return " · ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def test_a_poll_is_voted_once_per_page_told_to_every_page_and_revealed_right(up, ring):
    with connect(up.ws_url("/ws")) as phone:
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

        votes = {"phone-aaaa-1": 0, "phone-bbbb-2": 1, "phone-cccc-3": 1}
        for voter, choice in votes.items():
            assert vote(up, poll["id"], voter, choice)[0] == 202
        status, again = vote(up, poll["id"], "phone-aaaa-1", 1)
        assert status == 409 and again["detail"]["field"] == "voter", "a page votes once, reload or not"
        tally = heard(phone, lambda m: m["type"] == "tally" and m["votes"] == 3)
        assert tally["counts"][:2] == [1, 2] and sum(tally["counts"]) == 3

        status, reloaded = up.call("GET", "/api/polls/current?voter=phone-bbbb-2", token=None)
        assert reloaded["poll"]["id"] == poll["id"] and reloaded["voted"] == 1, (
            "a reloaded page finds its vote"
        )

        assert up.call("POST", f"/api/polls/{poll['id']}/reveal", token=None)[0] == 401
        status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
        assert status == 200 and len(revealed["answers"]) == 1
        on_phone = heard(phone, lambda m: m["type"] == "poll" and m["poll"]["state"] == "revealed")
        assert on_phone["poll"]["answers"] == revealed["answers"]
    held = {s["chunk"]: s["values"] for s in ring["inputs"]["2"]}  # a step reports the chunks it changed
    for step in ring["steps"][:3]:
        held.update({s["chunk"]: s["values"] for s in step["ranks"]["2"]["states"]})
    right = shown([v for _, values in sorted(held.items()) for v in values])
    assert len(right.split(" · ")) == 8 and revealed["choices"][revealed["answers"][0]] == right, (
        "the answer is rank 2's whole buffer after step 3"
    )
    assert vote(up, poll["id"], "phone-dddd-4", 0)[0] == 409, "a revealed poll takes no more votes"
    listed = up.call("GET", f"/api/polls?run_id={ring['id']}", token=None)[1]["polls"]
    assert [p["id"] for p in listed] == [poll["id"]]


def test_questions_of_bytes_ranks_and_speed_come_from_the_runs(up, ring):
    tree = up.run(algorithm="tree", **LECTURE)
    master = up.run(algorithm="master_worker", **LECTURE)
    status, link = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link"})
    right = ring["traffic"]["busiest_link"]["bytes"]
    up.call("POST", f"/api/polls/{link['id']}/reveal")
    revealed = up.call("GET", f"/api/polls/{link['id']}", token=None)[1]["poll"]
    assert revealed["choices"][revealed["answers"][0]] == f"{right:,} B" and len(revealed["choices"]) >= 3

    status, busiest = up.call("POST", "/api/polls", {"run_id": master["id"], "question": "bottleneck"})
    assert status == 201 and sorted(busiest["choices"]) == ["rank 0", "rank 1", "rank 2", "rank 3"]
    answers = up.call("POST", f"/api/polls/{busiest['id']}/reveal")[1]["answers"]
    assert answers == [busiest["choices"].index("rank 0")]
    status, even = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "bottleneck"})
    assert status == 409 and "no one bottleneck" in even["detail"]["message"], (
        "a ring's ranks all move the same"
    )

    status, race = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "faster"})
    assert status == 201 and sorted(race["choices"]) == ["master_worker", "ring", "tree"], (
        "what ran at this shape"
    )
    revealed = up.call("POST", f"/api/polls/{race['id']}/reveal")[1]
    times = {r["spec"]["algorithm"]: r["time"] for r in (ring, tree, master)}
    assert revealed["choices"][revealed["answers"][0]] == min(times, key=times.get), (
        "the fastest, as measured"
    )


def test_bad_polls_and_votes_are_refused_naming_what_was_wrong(up, ring):
    assert up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "holds"}, token=None)[0] == 401
    for spec, field in (
        ({"run_id": ring["id"], "question": "holds"}, "rank"),
        ({"run_id": ring["id"], "question": "holds", "rank": 9, "step": 0}, "rank"),
        ({"run_id": ring["id"], "question": "holds", "rank": 0, "step": 99}, "step"),
        ({"run_id": ring["id"], "question": "colour"}, "question"),
        ({"run_id": ring["id"], "question": "holds", "rank": True, "step": 0}, "rank"),
    ):
        status, body = up.call("POST", "/api/polls", spec)
        assert status == 422 and body["detail"]["field"] == field, (spec, body)
    assert up.call("POST", "/api/polls", {"run_id": "r-999999", "question": "holds"})[0] == 404
    status, poll = up.call(
        "POST", "/api/polls", {"run_id": ring["id"], "question": "holds", "rank": 1, "step": 0}
    )
    for bad, field in (
        ({"choice": 9, "voter": "phone-eeee-5"}, "choice"),
        ({"choice": 0, "voter": "x"}, "voter"),
        ({"choice": "1", "voter": "phone-eeee-5"}, "choice"),
        ({"choice": 0}, "voter"),
    ):
        status, body = up.call("POST", f"/api/polls/{poll['id']}/votes", bad, token=None)
        assert status == 422 and body["detail"]["field"] == field, (bad, body)
    assert vote(up, "p-999999", "phone-eeee-5", 0)[0] == 404
    assert up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]["votes"] == 0, (
        "nothing refused counted"
    )


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


def test_one_address_casts_at_most_as_many_votes_as_it_may_hold_pages(up, ring):
    """A viewer token is in every student's link: fresh page ids from one address stop at 256
    votes, so no one fills a poll's 5,000 and locks the hall out."""
    from ringside.server.polls.poll import MAX_PER_ADDRESS

    status, poll = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link"})
    assert status == 201, poll
    for i in range(MAX_PER_ADDRESS):
        assert vote(up, poll["id"], f"stuffer-{i:05d}", 0)[0] == 202
    status, refused = vote(up, poll["id"], "stuffer-99999", 0)
    assert status == 409 and refused["detail"]["field"] == "voter", refused
    counted = up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]
    assert counted["votes"] == MAX_PER_ADDRESS and sum(counted["counts"]) == MAX_PER_ADDRESS
    up.call("POST", f"/api/polls/{poll['id']}/reveal")
