"""Polls in-process (server/polls/): asked of a run there already or before its run, their runs held,
the question opened from what the runs did, ballots, the tally, the timer, closing and the reveal,
and a restart carrying on, over fake runs, a recorded feed and a clock in the test's hands."""

from __future__ import annotations

import random
import secrets

import pytest
from fake_runs import LECTURE
from fastapi import HTTPException
from polls_in_process import ADDRESS, Lecture
from pydantic import ValidationError

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.door.errors import Busy
from ringside.server.polls.ballots import Ballots
from ringside.server.polls.messages import PollMessage
from ringside.server.polls.poll import PollState, Vote
from ringside.server.polls.questions import PollSpec
from ringside.server.polls.store import PollStore
from ringside.server.polls.voting import TALLY_S
from ringside.worker_agent.core.validation import SpecError


@pytest.fixture
def hall(tmp_path):
    lecture = Lecture(tmp_path / "runs.db")
    yield lecture
    lecture.stop()


def vote(
    hall: Lecture,
    poll_id: str,
    ballot: str,
    choice: int | None = None,
    number: float | None = None,
    at="10.0.0.1",
):
    return hall.polls.voting.vote(poll_id, Vote(ballot=ballot, choice=choice, number=number), at)


def refused(call) -> tuple[int, str]:
    """(status, field) a refusal answers with."""
    try:
        call()
    except SpecError as e:
        return 409 if isinstance(e, Busy) else 422, e.field
    except HTTPException as e:
        return e.status_code, e.detail["field"]
    raise AssertionError("not refused")


def shown(values) -> str:
    return " · ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


# --- asked of a run there already ---------------------------------------------------------------


def test_a_question_of_what_a_rank_holds_is_answered_by_its_buffer_after_that_step(hall):
    ring = hall.runs.pressed(algorithm="ring")
    poll = hall.ask(run_id=ring.id, question="holds", rank=2, step=2)
    assert (
        poll.state is PollState.OPEN
        and poll.answers == []
        and poll.text == "What does rank 2 hold after step 3?"
    )
    told = hall.feed.of("poll")[-1]
    assert told.poll.id == poll.id and told.for_room().poll.answers == [], "no page learns the answer early"
    held = {s.chunk: s.values for s in ring.inputs["2"]}
    for step in ring.steps[:3]:
        held.update({s.chunk: s.values for s in step.ranks["2"].states})
    revealed = hall.polls.voting.reveal(poll.id)
    right = shown([v for _, values in sorted(held.items()) for v in values])
    assert revealed.choices[revealed.answers[0]] == right and len(right.split(" · ")) == 8
    assert [r.poll.id for r in hall.polls.book.of_run(ring.id)] == [poll.id]


def test_questions_of_bytes_ranks_and_speed_come_from_the_runs(hall):
    ring = hall.runs.pressed(algorithm="ring", seconds=0.003)
    tree = hall.runs.pressed(algorithm="tree", seconds=0.002)
    master = hall.runs.pressed(algorithm="master_worker", seconds=0.004)
    link = hall.polls.voting.reveal(hall.ask(run_id=ring.id, question="busiest_link").id)
    assert ring.traffic is not None and ring.traffic.busiest_link is not None
    assert (
        link.choices[link.answers[0]] == f"{ring.traffic.busiest_link.bytes:,} B" and len(link.choices) >= 3
    )

    busiest = hall.ask(run_id=master.id, question="bottleneck")
    assert sorted(busiest.choices) == ["rank 0", "rank 1", "rank 2", "rank 3"]
    assert hall.polls.voting.reveal(busiest.id).answers == [busiest.choices.index("rank 0")]
    with pytest.raises(Busy, match="no one bottleneck"):  # a ring's ranks all move the same
        hall.ask(run_id=ring.id, question="bottleneck")

    race = hall.ask(run_id=ring.id, question="faster")
    assert sorted(race.choices) == ["master_worker", "ring", "tree"], "what ran at this shape"
    revealed = hall.polls.voting.reveal(race.id)
    assert revealed.choices[revealed.answers[0]] == tree.spec.algorithm, "the fastest, as measured"


def test_bad_polls_are_refused_naming_what_was_wrong_and_change_nothing(hall):
    ring = hall.runs.pressed(algorithm="ring")
    for spec, field in (
        ({"run_id": ring.id, "question": "holds"}, "rank"),
        ({"run_id": ring.id, "question": "holds", "rank": 9, "step": 0}, "rank"),
        ({"run_id": ring.id, "question": "holds", "rank": 0, "step": 99}, "step"),
    ):
        assert refused(lambda spec=spec: hall.ask(**spec)) == (422, field), spec
    for spec, field in (
        ({"run_id": ring.id, "question": "colour"}, "question"),
        ({"run_id": ring.id, "question": "holds", "rank": True, "step": 0}, "rank"),
    ):
        with pytest.raises(ValidationError, match=field):
            PollSpec.model_validate(spec)
    assert refused(lambda: hall.ask(run_id="r-999999", question="holds"))[0] == 404
    assert hall.polls.book.newest(presenter=True) is None and hall.store.last_number() == 0


def test_a_training_steps_sync_is_not_asked_about(hall):
    """Its training told every page each step's busiest link and times as it ran: a poll about it
    could hold nothing back."""
    sync = hall.runs.pressed(algorithm="ring")
    hall.runs.runs["t-000001-s1"] = sync.model_copy(update={"id": "t-000001-s1"})
    with pytest.raises(SpecError, match="training step's sync") as e:
        hall.ask(run_id="t-000001-s1", question="busiest_link")
    assert e.value.field == "run_id"


def test_where_the_right_choice_stands_cannot_be_worked_out_from_the_polls_id(hall):
    """The choices are shuffled once, where no page can replay it: seeded with the poll's id, which
    every page reads, the shuffle told a phone the right choice's place before the reveal."""
    ring = hall.runs.pressed(algorithm="ring")
    replayed = []
    for rank in range(4):
        for step in range(6):
            poll = hall.ask(run_id=ring.id, question="holds", rank=rank, step=step)
            places = list(range(len(poll.choices)))
            random.Random(poll.id).shuffle(places)  # where the first choice, the right one, went
            replayed.append(hall.polls.voting.reveal(poll.id).answers == [places.index(0)])
    assert not all(replayed), "a page that replays the shuffle finds every answer"


# --- asked before its run: sealed -----------------------------------------------------------------


def test_a_question_asked_before_its_run_holds_it_until_it_has_run_then_opens(hall):
    poll = hall.ask(question="busiest_link", numeric=True, run={"algorithm": "ring", **LECTURE})
    assert poll.state is PollState.RUNNING and poll.choices == [] and poll.runs == [poll.run_id]
    held = hall.runs.find(poll.run_id)
    assert held is not None and held.state.value == "queued", "named, held and queued"
    assert hall.polls.holding.holding_run(held).id == poll.id
    assert PollMessage(poll=poll).for_room() is None, "the room hears of it when it opens"
    assert hall.polls.book.newest(presenter=False) is None and hall.polls.book.newest(presenter=True)

    run = hall.runs.end(poll.run_id)
    opened = hall.polls.book.find(poll.id).shown()
    assert opened.state is PollState.OPEN and len(opened.choices) >= 3
    assert opened.text.startswith("How many bytes cross") and hall.retold == 1, "the presenter's view, retold"
    told = hall.feed.of("poll")
    assert [m.poll.state for m in told] == [PollState.RUNNING, PollState.OPEN]
    room = told[-1].for_room().poll
    assert room.answers == [] and room.number is None and room.counts is None
    revealed = hall.polls.voting.reveal(poll.id)
    assert revealed.number == run.traffic.busiest_link.bytes
    assert hall.polls.holding.holding_run(run) is None, "the room reads it whole"


def test_a_poll_whose_run_is_cut_short_fails_saying_why(hall):
    poll = hall.ask(question="busiest_link", run={"algorithm": "ring", **LECTURE})
    hall.runs.end(poll.run_id, state=JobState.FAILED)
    failed = hall.polls.book.find(poll.id).poll
    assert failed.state is PollState.FAILED and f"run {poll.run_id} failed" in (failed.why or "")
    assert refused(lambda: hall.polls.voting.reveal(poll.id)) == (409, "poll"), "never asked"
    assert hall.polls.book.newest(presenter=False) is None, "the room never hears of it"


def test_a_poll_whose_runs_cannot_be_queued_fails_and_its_runs_are_cancelled(hall):
    hall.runs.refusing = "the queue is full"
    with pytest.raises(SpecError, match="the queue is full"):
        hall.ask(question="faster", run={"algorithm": "ring", **LECTURE})
    poll = hall.polls.book.newest(presenter=True).poll
    assert poll.state is PollState.FAILED and "could not be queued" in (poll.why or "")


def test_a_race_runs_each_algorithm_held_its_others_off_every_stage(hall):
    race = hall.ask(question="faster", run={"algorithm": "ring", **LECTURE})
    assert len(race.runs) >= 3 and race.runs[0] == race.run_id
    runs = [hall.runs.find(i) for i in race.runs]
    assert all(r is not None and hall.polls.holding.holding_run(r) is not None for r in runs)
    assert [r.spec.purpose for r in runs[1:]] == ["sweep"] * (len(runs) - 1)
    times = {i: 0.001 * (n + 2) for n, i in enumerate(race.runs)}
    times[race.runs[1]] = 0.0005
    for i in race.runs[:-1]:
        hall.runs.end(i, times[i])
        assert hall.polls.book.find(race.id).poll.state is PollState.RUNNING, "until every runner has run"
    hall.runs.end(race.runs[-1], times[race.runs[-1]])
    opened = hall.polls.book.find(race.id).shown()
    assert sorted(opened.choices) == sorted(r.spec.algorithm for r in runs)
    revealed = hall.polls.voting.reveal(race.id)
    assert revealed.choices[revealed.answers[0]] == hall.runs.find(race.runs[1]).spec.algorithm


def test_the_presenter_is_told_when_a_run_every_page_has_seen_answers_already(hall):
    seen = hall.runs.pressed(algorithm="tree")  # pressed R: every page heard it whole
    poll = hall.ask(question="busiest_link", run={"algorithm": "tree", **LECTURE})
    assert poll.rehearsals == [seen.id], "held from the room until the reveal (test_poll_rehearsals.py)"
    hall.runs.end(poll.run_id)
    assert hall.polls.book.find(poll.id).shown().for_room().rehearsals == [], "the room is not told where"
    other = {**LECTURE, "pattern": "rank"}  # other inputs: the same bytes, other values
    holds = hall.ask(question="holds", rank=1, step=0, run={"algorithm": "tree", **other})
    assert holds.answered_by == holds.rehearsals == [], "what a rank holds depends on the inputs"
    hall.polls.voting.reveal(poll.id)
    about = hall.ask(question="busiest_link", run_id=seen.id)  # asked of a run every page has read
    assert about.answered_by == [seen.id] and about.rehearsals == []
    assert hall.polls.book.find(about.id).shown().for_room().answered_by == [], "the room is not told where"


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
    ],
)
def test_a_question_its_run_cannot_answer_is_refused_before_anything_runs(hall, ask, field):
    assert refused(lambda: hall.ask(**ask))[1] == field
    assert hall.runs.runs == {} and hall.polls.book.newest(presenter=True) is None, "nothing was run"


def test_a_vote_that_closes_too_soon_is_refused_as_the_question_is_read():
    with pytest.raises(ValidationError, match="seconds"):
        PollSpec.model_validate(
            {"question": "busiest_link", "run": {"algorithm": "ring", **LECTURE}, "seconds": 1}
        )


# --- ballots, the tally, closing, the reveal --------------------------------------------------------


def test_a_poll_is_voted_once_per_page_and_the_room_hears_how_many_not_for_what(hall):
    ring = hall.runs.pressed(algorithm="ring")
    poll = hall.ask(run_id=ring.id, question="holds", rank=2, step=2)
    ballots = [hall.page() for _ in range(3)]
    assert len(set(ballots)) == 3, "a ballot a page"
    for ballot, choice in zip(ballots, (0, 1, 1)):
        vote(hall, poll.id, ballot, choice)
    assert refused(lambda: vote(hall, poll.id, ballots[0], 1)) == (409, "ballot"), "a page votes once"
    (due,) = hall.clock.pending()
    assert due.delay == TALLY_S, "a burst of votes is told at once"
    hall.clock.run()
    (tally,) = hall.feed.of("tally")
    assert tally.votes == 3 and tally.counts[:2] == [1, 2] and tally.pages == 3
    room = tally.for_room()
    assert room.votes == 3 and room.counts is None and room.pages is None, "the room: how many, not for what"
    assert hall.polls.book.newest(presenter=False).voted(ballots[1]) == {"choice": 1}, (
        "a reloaded page finds its vote"
    )
    revealed = hall.polls.voting.reveal(poll.id)
    on_phone = PollMessage(poll=revealed).for_room().poll
    assert on_phone.answers == revealed.answers and on_phone.counts[:2] == [1, 2], "voting closed: the tally"
    assert refused(lambda: vote(hall, poll.id, ballots[2], 0)) == (409, "poll"), (
        "a revealed poll takes no votes"
    )


def test_bad_votes_are_refused_naming_what_was_wrong_and_count_nothing(hall):
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="holds", rank=1, step=0)
    ballot = hall.page()
    for bad, field in (
        ({}, "choice"),
        ({"choice": 0, "number": 3}, "choice"),
        ({"number": 3}, "number"),
    ):
        assert refused(lambda bad=bad: vote(hall, poll.id, ballot, **bad)) == (422, field), bad
    for bad, field in (
        ({"choice": 9, "ballot": ballot}, "choice"),
        ({"choice": 0, "ballot": "x"}, "ballot"),
        ({"choice": "1", "ballot": ballot}, "choice"),
        ({"choice": 0}, "ballot"),
        ({"choice": 0, "voter": "phone-eeee-5", "ballot": ballot}, "voter"),
    ):
        with pytest.raises(ValidationError, match=field):
            Vote.model_validate(bad)
    forged = f"{secrets.token_urlsafe(12)}.{secrets.token_urlsafe(16)}"
    assert refused(lambda: vote(hall, poll.id, forged, 0)) == (403, "ballot"), (
        "a ballot the server never handed out"
    )
    assert refused(lambda: vote(hall, "p-999999", ballot, 0))[0] == 404
    hall.ballots.give_back(ballot, ADDRESS)
    assert refused(lambda: vote(hall, poll.id, ballot, 0)) == (403, "ballot"), "its page has gone"
    assert hall.polls.book.find(poll.id).votes() == 0, "nothing refused counted"


def test_a_hall_behind_one_address_votes_whole_and_a_reconnected_page_keeps_its_vote(hall):
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="busiest_link")
    made_up = Ballots(b"another key")  # ids a script makes up, well formed: no page holds them
    for _ in range(100):
        assert refused(lambda: vote(hall, poll.id, made_up.take(None), 0)) == (403, "ballot")
    assert hall.polls.book.find(poll.id).votes() == 0, "no page, no vote"
    pages = [hall.page() for _ in range(50)]
    for ballot in pages:
        vote(hall, poll.id, ballot, 1)
    assert {refused(lambda b=b: vote(hall, poll.id, b, 0)) for b in pages} == {(409, "ballot")}, "once each"
    hall.ballots.give_back(pages[0], ADDRESS)
    again = hall.page(kept=pages[0])
    assert again == pages[0], "a page that reconnects with its ballot holds it again"
    assert refused(lambda: vote(hall, poll.id, again, 0)) == (409, "ballot"), "and its vote"
    counted = hall.polls.book.find(poll.id).shown()
    assert counted.votes == 50 and counted.counts[1] == 50


def test_a_page_opened_voted_and_closed_over_and_over_gains_nothing(hall):
    """Each new page is handed a new ballot: a script that opened a socket, voted and closed it, over
    and over from one address, counted 238 votes a second; then as many as the address could keep
    pages connected (256). An address votes as many times as it held pages connected at once."""
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="holds", rank=1, step=1)
    churned = set()
    for i in range(100):  # open a page, vote, close it
        ballot = hall.page(at="127.0.0.23")
        if i == 0:
            vote(hall, poll.id, ballot, 0, at="127.0.0.23")
        else:
            churned.add(refused(lambda ballot=ballot: vote(hall, poll.id, ballot, 0, at="127.0.0.23")))
        hall.ballots.give_back(ballot, "127.0.0.23")
    assert churned == {(409, "ballot")}, "one page at a time: one vote"
    three = [hall.page(at="127.0.0.24") for _ in range(3)]  # another address, three pages at once
    for ballot in three:
        vote(hall, poll.id, ballot, 0, at="127.0.0.24")
    assert hall.polls.voting.reveal(poll.id).votes == 1 + 3


def test_a_number_typed_beside_the_choices_is_tallied_and_marked_at_the_reveal(hall):
    ring = hall.runs.pressed(algorithm="ring")
    right = ring.traffic.busiest_link.bytes
    poll = hall.ask(run_id=ring.id, question="busiest_link", numeric=True)
    assert poll.numeric and poll.number is None
    phones = [hall.page() for _ in range(4)]
    for ballot, typed in zip(phones, (right, right, right * 2)):
        vote(hall, poll.id, ballot, number=typed)
    vote(hall, poll.id, phones[3], 0)  # or a choice
    assert refused(lambda: vote(hall, poll.id, phones[0], number=1)) == (409, "ballot"), (
        "one vote, typed or chosen"
    )
    with pytest.raises(ValidationError):
        Vote(ballot=phones[3], number=float("inf"))
    room = hall.visibility.poll(hall.polls.book.find(poll.id), presenter=False)
    assert room.typed is None and room.votes == 4, "what was typed waits for the close"
    revealed = hall.polls.voting.reveal(poll.id)
    assert revealed.number == right and revealed.typed_right == 2
    assert revealed.typed == [(right, 2), (right * 2, 1)]
    holds = hall.ask(run_id=ring.id, question="holds", rank=1, step=0, numeric=True, element=3)
    values = {s.chunk: s.values for s in ring.inputs["1"]}
    values.update({s.chunk: s.values for s in ring.steps[0].ranks["1"].states})
    assert hall.polls.voting.reveal(holds.id).number == [v for _, vs in sorted(values.items()) for v in vs][3]


def test_the_tally_is_hidden_from_the_room_until_the_timer_closes_voting(hall):
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="busiest_link", seconds=5)
    (timer,) = hall.clock.pending()
    assert timer.delay == pytest.approx(5, abs=1) and poll.closes_at is not None
    first, second = hall.page(), hall.page()
    vote(hall, poll.id, first, 0)
    record = hall.polls.book.find(poll.id)
    room = hall.visibility.poll(record, presenter=False)
    assert room.counts is None and room.state is PollState.OPEN
    assert hall.visibility.poll(record, presenter=True).counts[0] == 1, "the presenter sees it"
    hall.clock.run()  # the time is up, and the tally told
    closed = hall.feed.of("poll")[-1].for_room().poll
    assert closed.state is PollState.CLOSED and closed.counts[0] == 1 and closed.answers == [], (
        "the tally, not the answer"
    )
    assert refused(lambda: vote(hall, poll.id, second, 0)) == (409, "poll"), "voting has closed"
    revealed = hall.polls.voting.reveal(poll.id)
    assert revealed.answers and revealed.counts[0] == 1


def test_the_presenter_closes_voting_before_the_reveal_and_its_timer_with_it(hall):
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="busiest_link", seconds=60)
    closed = hall.polls.voting.close(poll.id)
    assert closed.state is PollState.CLOSED and closed.answers == [] and not hall.clock.pending(), (
        "its timer stops"
    )
    room = hall.visibility.poll(hall.polls.book.find(poll.id), presenter=False)
    assert room.counts == [0] * len(poll.choices)
    assert hall.polls.voting.close(poll.id).state is PollState.CLOSED, "closing again changes nothing"
    hall.polls.voting.reveal(poll.id)
    assert refused(lambda: hall.polls.voting.close(poll.id)) == (409, "poll")


def test_a_poll_no_longer_held_in_memory_takes_no_votes_but_is_revealed(hall):
    ring = hall.runs.pressed(algorithm="ring")
    first = hall.ask(run_id=ring.id, question="busiest_link", seconds=60)
    for _ in range(64):
        hall.ask(run_id=ring.id, question="busiest_link")
    assert first.id not in hall.polls.book.live and hall.clock.pending() == [], "closed, its timer with it"
    hall.database.flush()
    assert refused(lambda: vote(hall, first.id, hall.page(), 0)) == (409, "poll")
    assert hall.polls.voting.reveal(first.id).answers, "its answer is still shown"


# --- a restart --------------------------------------------------------------------------------------


def test_a_poll_left_open_carries_on_after_a_restart_holding_its_run(tmp_path):
    first = Lecture(tmp_path / "runs.db")
    ring = first.runs.pressed(algorithm="ring")
    poll = first.ask(run_id=ring.id, question="busiest_link", seconds=60)
    ballot = first.page()
    vote(first, poll.id, ballot, 0)
    sealed = first.ask(question="busiest_link", run={"algorithm": "tree", **LECTURE})
    first.stop()
    first.runs.runs[sealed.run_id].state = JobState.INTERRUPTED  # the stop cut its run short

    again = Lecture(tmp_path / "runs.db", runs=first.runs)
    try:
        seen = again.visibility.run(ring, presenter=False)
        assert isinstance(seen, dict) and seen["held_for"] == poll.id and seen["traffic"] is None, (
            "the hold outlives the server"
        )
        assert len(again.clock.pending()) == 1, "and it closes at its time"
        cut = again.polls.book.find(sealed.id).poll
        assert cut.state is PollState.FAILED and "interrupted" in (cut.why or "")
        assert again.polls.book.newest(presenter=False).poll.id == poll.id
        assert again.page(kept=ballot) == ballot, "the page's ballot is known"
        assert refused(lambda: vote(again, poll.id, ballot, 1)) == (409, "ballot"), "and so are its votes"
        vote(again, poll.id, again.page(), 1)
        revealed = again.polls.voting.reveal(poll.id)
        assert revealed.answers and revealed.votes == 2
        assert again.visibility.run(ring, presenter=False) is ring, "read whole once revealed"
    finally:
        again.stop()


def test_the_votes_not_yet_told_are_saved_when_the_server_stops(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    poll = hall.ask(run_id=hall.runs.pressed(algorithm="ring").id, question="busiest_link")
    vote(hall, poll.id, hall.page(), 0)
    hall.stop()  # before the burst's tally was told
    assert not hall.feed.of("tally")
    reopened = Database(tmp_path / "runs.db")
    try:
        assert PollStore(reopened).get(poll.id).votes() == 1
    finally:
        reopened.close()
