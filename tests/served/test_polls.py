"""Predict, then reveal (server/polls/): real runs on `ringside up --ranks 4`, polls
opened by the presenter, votes from pages that are only viewers, the tally heard over /ws,
and the answer, hidden until the reveal, checked against what the ranks' buffers held."""

from __future__ import annotations

import contextlib
import itertools
import random
import secrets
import time

import pytest
import segno
from server_helpers import messages, posted_with_a_ballot, start_up
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
    forged = f"{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(16)}"
    with pages(up, 1) as [(_, ballot)]:
        for bad, field in (
            ({"choice": 9, "ballot": ballot}, "choice"),
            ({"choice": 0, "ballot": "x"}, "ballot"),
            ({"choice": "1", "ballot": ballot}, "choice"),
            ({"choice": 0}, "ballot"),
            ({"choice": 0, "voter": "phone-eeee-5", "ballot": ballot}, "voter"),
            ({"ballot": ballot}, "choice"),
            ({"choice": 0, "number": 3, "ballot": ballot}, "choice"),
            ({"number": 3, "ballot": ballot}, "number"),  # this poll takes no number
        ):
            status, body = up.call("POST", f"/api/polls/{poll['id']}/votes", bad, token=None)
            assert status == 422 and body["detail"]["field"] == field, (bad, body)
        status, body = vote(up, poll["id"], forged, 0)
        assert status == 403 and body["detail"]["field"] == "ballot", "a ballot the server never handed out"
        assert vote(up, "p-999999", ballot, 0)[0] == 404
    status, body = vote(up, poll["id"], ballot, 0)
    assert status == 403 and "no page connected" in body["detail"]["message"], "its page has gone"
    assert up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]["votes"] == 0, (
        "nothing refused counted"
    )
    up.call("POST", f"/api/polls/{poll['id']}/reveal")


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


def test_a_vote_needs_a_page_connected_and_a_hall_behind_one_address_votes_whole(up, ring):
    """A viewer token is in every student's link: ids a script makes up, from one address with
    no page connected, add no vote; fifty pages connected from that one address (a hall behind
    one NAT) each vote once; a page that reloads brings its ballot back, and its vote."""
    status, poll = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link"})
    assert status == 201, poll
    for _ in range(100):
        fresh = f"{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(16)}"
        assert vote(up, poll["id"], fresh, 0)[0] == 403
    assert up.call("GET", f"/api/polls/{poll['id']}")[1]["poll"]["votes"] == 0, "no page, no vote"

    with pages(up, 50) as hall:
        for _, ballot in hall:
            assert vote(up, poll["id"], ballot, 1)[0] == 202
        assert {vote(up, poll["id"], ballot, 0)[0] for _, ballot in hall} == {409}, "once each"
        kept = hall[0][1]
    with pages(up, 1, kept=kept) as [(_, again)]:
        assert again == kept, "a page that reconnects with its ballot holds it again"
        assert vote(up, poll["id"], again, 0)[0] == 409, "and its vote"
    counted = up.call("GET", f"/api/polls/{poll['id']}")[1]["poll"]
    assert counted["votes"] == 50 and counted["counts"][1] == 50
    up.call("POST", f"/api/polls/{poll['id']}/reveal")


def test_a_number_typed_beside_the_choices_is_tallied_and_marked_at_the_reveal(up, ring):
    bytes_ = ring["traffic"]["busiest_link"]["bytes"]
    status, poll = up.call(
        "POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link", "numeric": True}
    )
    assert status == 201 and poll["numeric"] is True and poll["number"] is None, poll
    with pages(up, 4) as phones:
        for (_, ballot), typed in zip(phones, (bytes_, bytes_, bytes_ * 2)):
            assert vote(up, poll["id"], ballot, number=typed)[0] == 202
        assert vote(up, poll["id"], phones[3][1], 0)[0] == 202, "or a choice"
        assert vote(up, poll["id"], phones[0][1], number=1)[0] == 409, "one vote a page, typed or chosen"
        status, body = vote(up, poll["id"], phones[3][1], number=float("inf"))
        assert status in (409, 422)
        room = up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]
        assert room["typed"] is None and room["votes"] == 4, "what was typed waits for the close"
        revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")[1]
    assert revealed["number"] == bytes_ and revealed["typed_right"] == 2, revealed
    assert revealed["typed"] == [[bytes_, 2], [bytes_ * 2, 1]]
    holds = up.call(
        "POST",
        "/api/polls",
        {"run_id": ring["id"], "question": "holds", "rank": 1, "step": 0, "numeric": True, "element": 3},
    )[1]
    revealed = up.call("POST", f"/api/polls/{holds['id']}/reveal")[1]
    values = {s["chunk"]: s["values"] for s in ring["inputs"]["1"]}
    values.update({s["chunk"]: s["values"] for s in ring["steps"][0]["ranks"]["1"]["states"]})
    assert revealed["number"] == [v for _, vs in sorted(values.items()) for v in vs][3], "the value typed"


def test_the_tally_is_hidden_from_the_room_until_voting_closes_by_the_timer(up, ring):
    status, poll = up.call(
        "POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link", "seconds": 5}
    )
    assert status == 201 and poll["closes_at"] - time.time() == pytest.approx(5, abs=1), poll
    with pages(up, 2) as [(phone, first), (_, second)]:
        assert vote(up, poll["id"], first, 0)[0] == 202
        tally = heard(phone, lambda m: m["type"] == "tally" and m["poll_id"] == poll["id"])
        assert tally["votes"] == 1 and tally["counts"] is None, "the room hears how many, not for what"
        room = up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]
        assert room["counts"] is None and room["state"] == "open"
        assert up.call("GET", f"/api/polls/{poll['id']}")[1]["poll"]["counts"][0] == 1, (
            "the presenter sees it"
        )
        closed = heard(phone, lambda m: m["type"] == "poll" and m["poll"]["state"] == "closed", timeout=15)
        assert closed["poll"]["counts"][0] == 1 and closed["poll"]["answers"] == [], (
            "the tally, not the answer"
        )
        assert time.time() >= poll["closes_at"]
        status, late = vote(up, poll["id"], second, 0)
        assert status == 409 and late["detail"]["field"] == "poll", "voting has closed"
    status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
    assert status == 200 and revealed["answers"] and revealed["counts"][0] == 1


def test_the_presenter_closes_voting_before_the_reveal(up, ring):
    poll = up.call("POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link"})[1]
    assert up.call("POST", f"/api/polls/{poll['id']}/close", token=None)[0] == 401
    status, closed = up.call("POST", f"/api/polls/{poll['id']}/close")
    assert status == 200 and closed["state"] == "closed" and closed["answers"] == []
    assert up.call("GET", f"/api/polls/{poll['id']}", token=None)[1]["poll"]["counts"] == [0] * len(
        poll["choices"]
    )
    up.call("POST", f"/api/polls/{poll['id']}/reveal")


def test_where_the_right_choice_stands_cannot_be_worked_out_from_the_polls_id(up, ring):
    """The choices are shuffled once, where no page can replay it: seeded with the poll's id, which
    every page reads, the shuffle told a phone the right choice's place before the reveal."""
    replayed = []
    for rank, step in itertools.product(range(4), range(3)):
        asked = {"run_id": ring["id"], "question": "holds", "rank": rank, "step": step}
        status, poll = up.call("POST", "/api/polls", asked)
        assert status == 201, poll
        places = list(range(len(poll["choices"])))
        random.Random(poll["id"]).shuffle(places)  # where the first choice, the right one, went
        status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
        assert status == 200, revealed
        replayed.append(revealed["answers"] == [places.index(0)])
    assert not all(replayed), "a page that replays the shuffle finds every answer"


def vote_from(up, source: str, poll_id: str) -> tuple[int, dict]:
    return posted_with_a_ballot(up, source, f"/api/polls/{poll_id}/votes", {"choice": 0})


def test_a_script_that_reconnects_for_each_vote_casts_no_more_than_its_address_keeps_pages(up, ring):
    """Each new page is handed a new ballot: a script that opened a socket, voted and closed it,
    over and over from one address, counted 238 votes a second, up to the poll's 20,000."""
    limits = up.call("GET", "/metrics", token=None)[1].splitlines()
    (line,) = [x for x in limits if x.startswith("ringside_connections_per_address_limit ")]
    most = int(float(line.split()[1]))
    asked = {"run_id": ring["id"], "question": "holds", "rank": 1, "step": 1}
    status, poll = up.call("POST", "/api/polls", asked)
    assert status == 201, poll
    script = [vote_from(up, "127.0.0.23", poll["id"]) for _ in range(most + 1)]
    assert [status for status, _ in script[:most]] == [202] * most
    status, refused = script[most]
    assert status == 409 and refused["detail"]["field"] == "ballot", refused
    assert vote_from(up, "127.0.0.24", poll["id"])[0] == 202, "another address votes as before"
    status, revealed = up.call("POST", f"/api/polls/{poll['id']}/reveal")
    assert status == 200 and revealed["votes"] == most + 1, revealed
