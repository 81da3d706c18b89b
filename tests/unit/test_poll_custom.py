"""The lecturer's own questions in-process (server/polls/custom.py): choices with the right one marked
or a number with a tolerance, refused by name when they make no question, sealed until the reveal,
balloted and tallied as the built-in ones are, and with a run held behind them; over fake runs, a
recorded feed and a clock in the test's hands (polls_in_process.py); and the route, through the app
(in_app.py)."""

from __future__ import annotations

import asyncio

import pytest
from fake_runs import LECTURE
from in_app import served
from polls_in_process import Lecture
from pydantic import ValidationError

from ringside.server.polls.poll import PollState, Vote
from ringside.server.polls.questions import PollSpec
from ringside.worker_agent.core.validation import SpecError

ANSWER_FIELDS = ("answers", "number", "tolerance", "typed_right", "mistakes")
CHOICES = {"question": "custom", "text": "Which collective leaves every rank the sum?", "answer": 1,
           "choices": ["reduce", "all_reduce", {"en": "broadcast", "ko": "브로드캐스트"}]}  # fmt: skip
NUMBER = {"question": "custom", "text": {"en": "How many steps?", "zh": "几步？"}, "numeric": True,
          "number": 6, "tolerance": 1}  # fmt: skip


@pytest.fixture
def hall(tmp_path):
    lecture = Lecture(tmp_path / "runs.db")
    yield lecture
    lecture.stop()


def vote(hall: Lecture, poll_id: str, choice: int | None = None, number: float | None = None) -> None:
    hall.polls.voting.vote(poll_id, Vote(ballot=hall.page(), choice=choice, number=number), "10.0.0.1")


def room_reads_no_answer(hall: Lecture, poll_id: str) -> None:
    """Neither the room's copy of the poll nor what the feed told the room carries its answer."""
    record = hall.polls.book.find(poll_id)
    room = hall.visibility.poll(record, presenter=False)
    told = [m.for_room() for m in hall.feed.of("poll") if m.poll.id == poll_id]
    for poll in [room, *(m.poll for m in told if m is not None)]:
        assert all(getattr(poll, f) in (None, []) for f in ANSWER_FIELDS), poll
        assert "tolerance" not in poll.model_dump(exclude_defaults=True)


@pytest.mark.parametrize(
    "change,field",
    [
        ({"text": None}, "text"),
        ({"choices": ["only one"]}, "choices"),
        ({"answer": 3}, "answer"),
        ({"answer": None}, "answer"),
        ({"choices": ["same", "same"], "answer": 0}, "choices"),
        # as a reader tells them apart: case, spaces, width, invisible characters aside
        ({"choices": ["Same", "same"], "answer": 0}, "choices"),
        ({"choices": ["A", {"en": "A "}], "answer": 0}, "choices"),
        ({"choices": ["A", "A\u200b"], "answer": 0}, "choices"),
        ({"choices": ["A", {"en": " "}], "answer": 0}, "choices"),
        ({"choices": ["A", {"en": "B", "ko": "가"}, {"en": "C", "ko": "가"}], "answer": 0}, "choices"),
        ({"number": 4}, "number"),
        ({"numeric": True}, "choices"),
        ({"question": "busiest_link", "run_id": "r-000001"}, "text"),
    ],
)
def test_a_custom_question_that_makes_no_question_is_refused_naming_the_field(hall, change, field):
    spec = {k: v for k, v in {**CHOICES, **change}.items() if v is not None}
    with pytest.raises(SpecError) as info:
        hall.ask(**spec)
    assert info.value.field == field
    assert hall.polls.book.live == {} and hall.feed.published == [], "nothing changes on a refusal"


@pytest.mark.parametrize(
    "change,field",
    [
        ({"text": "x" * 301}, "text"),
        ({"text": {"ko": "한국어만"}}, "text"),
        ({"choices": [str(i) for i in range(9)]}, "choices"),
        ({"choices": ["a", "b" * 121]}, "choices"),
        ({"answer": True}, "answer"),
        ({"numeric": True, "number": float("inf"), "choices": None, "answer": None}, "number"),
        ({"numeric": True, "number": 1, "tolerance": -1, "choices": None, "answer": None}, "tolerance"),
    ],
)
def test_sizes_and_types_are_bounded_by_the_spec(change, field):
    with pytest.raises(ValidationError, match=field):
        PollSpec.model_validate({k: v for k, v in {**CHOICES, **change}.items() if v is not None})


@pytest.mark.parametrize("typed", ["true", "1e300", '"4"'])
def test_a_typed_number_is_a_number_a_question_could_mark_right(typed):
    with pytest.raises(ValidationError, match="number"):
        Vote.model_validate_json(f'{{"ballot": "{"a" * 16}.{"b" * 22}", "number": {typed}}}')


def test_a_question_of_choices_opens_at_once_sealed_and_is_revealed_with_its_right_one(hall):
    poll = hall.ask(**CHOICES)
    assert poll.state is PollState.OPEN and poll.run_id == "" and poll.runs == []
    assert poll.choices[2].ko == "브로드캐스트" and poll.choices[:2] == ["reduce", "all_reduce"], (
        "in its order"
    )
    assert poll.answers == [], "not even the presenter's page reads it before the reveal"
    room_reads_no_answer(hall, poll.id)
    for choice in (1, 1, 0):
        vote(hall, poll.id, choice)
    with pytest.raises(SpecError, match="3 choices"):
        vote(hall, poll.id, choice=3)
    assert hall.polls.voting.close(poll.id).counts == [1, 2, 0]
    room_reads_no_answer(hall, poll.id)
    revealed = hall.polls.voting.reveal(poll.id)
    room = hall.visibility.poll(hall.polls.book.find(poll.id), presenter=False)
    assert revealed.answers == [1] and room.answers == [1] and room.counts == [1, 2, 0]
    assert hall.polls.holding.holding_any() is False, "a question with no run holds none"


def test_a_numeric_question_tallies_the_spread_and_marks_those_within_its_tolerance(hall):
    poll = hall.ask(**NUMBER)
    assert poll.numeric and poll.choices == [] and poll.text.zh == "几步？"
    for typed in (6, 7.0, 4, 6.5, 100):
        vote(hall, poll.id, number=typed)
    room = hall.visibility.poll(hall.polls.book.find(poll.id), presenter=False)
    assert room.typed is None and room.median is None, "the room reads the spread once voting closes"
    closed = hall.polls.voting.close(poll.id)
    assert closed.median == 6.5 and dict(closed.typed)[6.0] == 1
    room_reads_no_answer(hall, poll.id)
    revealed = hall.polls.voting.reveal(poll.id)
    assert (revealed.number, revealed.tolerance, revealed.typed_right) == (6, 1, 3), "6, 7 and 6.5 are right"


def test_a_custom_question_holds_its_run_until_the_reveal(hall):
    poll = hall.ask(**CHOICES, run={"algorithm": "ring", **LECTURE})
    assert poll.state is PollState.RUNNING and poll.runs == [poll.run_id]
    held = hall.runs.find(poll.run_id)
    assert hall.polls.holding.holding_run(held).id == poll.id
    run = hall.runs.end(poll.run_id)
    opened = hall.polls.book.find(poll.id).shown()
    assert opened.state is PollState.OPEN and opened.choices[1] == "all_reduce"
    assert hall.visibility.run(run, presenter=False)["held_for"] == poll.id, "its run's answer held too"
    room_reads_no_answer(hall, poll.id)
    assert hall.polls.voting.reveal(poll.id).answers == [1]
    assert hall.polls.holding.holding_run(run) is None


def test_an_open_custom_question_is_carried_on_by_a_restarted_server(tmp_path):
    first = Lecture(tmp_path / "runs.db")
    poll = first.ask(**NUMBER)
    first.stop()
    again = Lecture(tmp_path / "runs.db")
    try:
        assert again.polls.book.live[poll.id].poll.state is PollState.OPEN
        vote(again, poll.id, number=5.5)
        assert again.polls.voting.reveal(poll.id).typed_right == 1
    finally:
        again.stop()


def test_the_route_asks_a_custom_question_for_the_presenter_alone_and_refuses_by_field(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            asked = [await s.call("POST", "/api/polls", CHOICES, token=None)]
            asked.append(await s.call("POST", "/api/polls", {**CHOICES, "answer": 5}))
            asked.append(await s.call("POST", "/api/polls", {**CHOICES, "choices": ["a"] * 9}))
            nothing = await s.call("GET", "/api/polls/current", token=None)
            asked.append(await s.call("POST", "/api/polls", NUMBER))
            room = await s.call("GET", "/api/polls/current", token=None)
            return asked, nothing, room

    (anyone, answer, many, number), nothing, room = asyncio.run(scenario())
    assert anyone[0] == 401, "the presenter's token asks"
    assert (answer[0], answer[1]["detail"]["field"]) == (422, "answer")
    assert (many[0], many[1]["detail"]["field"]) == (422, "choices")
    assert nothing[1]["poll"] is None, "nothing changed on a refusal"
    assert number[0] == 201 and number[1]["question"] == "custom" and number[1]["state"] == "open"
    poll = room[1]["poll"]
    assert poll["text"] == {"en": "How many steps?", "ko": None, "zh": "几步？"} and poll["numeric"]
    assert poll["number"] is None and poll["tolerance"] is None, "sealed"
