"""A question asked before its run, after a rehearsal: a run of the same spec every page saw earlier,
which holds the sealed run's answer value for value (server/polls/fresh.py). Where a seed draws the
inputs the sealed run draws a fresh one and its answer differs; where the inputs are fixed (typed in,
as a lesson's stages give them, or a pattern that reads no seed) the rehearsal is held from the room
until the reveal, and the presenter is told. In-process, over fake runs."""

from __future__ import annotations

import pytest
from fake_runs import LECTURE
from polls_in_process import Lecture

from ringside.server.polls.messages import PollMessage
from ringside.server.polls.mistakes import buffer_after, shown
from ringside.server.polls.poll import PollState

TYPED = [[10 * r + i for i in range(8)] for r in range(4)]  # each rank's 8 values, as a lesson types them


@pytest.fixture
def hall(tmp_path):
    lecture = Lecture(tmp_path / "runs.db")
    yield lecture
    lecture.stop()


def right(hall: Lecture, poll_id: str) -> str:
    revealed = hall.polls.voting.reveal(poll_id)
    return revealed.choices[revealed.answers[0]]


def room_reads(hall: Lecture, run) -> dict | None:
    """What a page of the room reads of `run` (None: the run whole)."""
    read = hall.visibility.run(run, presenter=False)
    return None if read is run else read


@pytest.mark.parametrize("pattern", ["random_int", "random_float"])
def test_a_holds_question_after_a_seeded_rehearsal_draws_a_fresh_seed_and_another_answer(hall, pattern):
    spec = {"algorithm": "ring", **LECTURE, "pattern": pattern, "seed": 7}
    rehearsal = hall.runs.pressed(**spec)
    poll = hall.ask(question="holds", rank=1, step=2, numeric=True, run=spec)
    run = hall.runs.find(poll.run_id)
    assert run is not None and run.spec.seed not in (7, 0) and poll.fresh_seed == run.spec.seed
    assert run.spec.model_copy(update={"seed": 7}) == rehearsal.spec, "the seed alone changed"
    assert poll.answered_by == [] and poll.rehearsals == [], "no run every page saw answers it"
    assert PollMessage(poll=poll).for_room() is None
    hall.runs.end(run.id)
    room = hall.polls.book.find(poll.id).shown().for_room()
    assert room is not None and room.fresh_seed is None, "the presenter's to know"
    assert room_reads(hall, rehearsal) is None, "the rehearsal answers another question: read whole"

    rehearsed = buffer_after(rehearsal, 1, 2)
    assert rehearsed is not None and right(hall, poll.id) != shown(rehearsed)
    assert right(hall, poll.id) == shown(buffer_after(run, 1, 2) or [])
    assert hall.polls.book.find(poll.id).shown().number != rehearsed[0], "the number typed differs too"


@pytest.mark.parametrize(
    "inputs", [{"inputs": TYPED, "pattern": "index"}, {"pattern": "digits"}], ids=["typed", "no seed"]
)
def test_with_fixed_inputs_the_rehearsal_is_held_from_the_room_until_the_reveal(hall, inputs):
    spec = {"algorithm": "ring", **LECTURE, **inputs}
    rehearsal = hall.runs.pressed(**spec)
    line = rehearsal.summary().model_dump(mode="json")
    poll = hall.ask(question="holds", rank=1, step=2, run=spec)
    assert hall.runs.find(poll.run_id).spec == rehearsal.spec, "asked as the lesson fixed it"
    assert poll.rehearsals == [rehearsal.id] and poll.fresh_seed is None, "the presenter is told"
    assert poll.answered_by == [], "none left for the room to read"

    for state in (PollState.RUNNING, PollState.OPEN):  # before its run has run, and once open
        assert hall.polls.book.find(poll.id).poll.state is state
        held = room_reads(hall, rehearsal)
        assert held is not None and held["held_for"] == poll.id and held["results"] == {}
        assert [bool(s["ranks"]) for s in held["steps"]] == [i < 2 for i in range(len(rehearsal.steps))], (
            "no rank's report of the step asked about, nor any later one"
        )
        assert held["inputs"], "its plan and inputs, as the sealed run's"
        assert hall.visibility.run(rehearsal, presenter=True) is rehearsal
        assert hall.visibility.on_stage(rehearsal, presenter=False) is None
        [listed] = hall.visibility.summaries([line], presenter=False)
        assert listed["time"] is None and listed["finished_at"] is None
        if state is PollState.RUNNING:
            hall.runs.end(poll.run_id)

    room = hall.polls.book.find(poll.id).shown().for_room()
    assert room is not None and room.rehearsals == [], "the room is not told which"
    answer = right(hall, poll.id)
    assert answer == shown(buffer_after(rehearsal, 1, 2) or []), "the rehearsal held the answer"
    assert room_reads(hall, rehearsal) is None, "released at the reveal"


def test_a_question_of_bytes_holds_its_rehearsal_whatever_the_seed(hall):
    """A seed changes the values, never the bytes a link carries: the sealed run stays as asked."""
    spec = {"algorithm": "tree", **LECTURE, "pattern": "random_int"}
    rehearsal = hall.runs.pressed(**spec)
    poll = hall.ask(question="busiest_link", run=spec)
    assert poll.rehearsals == [rehearsal.id] and poll.fresh_seed is None
    assert hall.runs.find(poll.run_id).spec.seed == 0
    assert room_reads(hall, rehearsal)["traffic"] is None


def test_a_buffer_no_seed_reaches_holds_its_rehearsal(hall):
    """Rank 1 holds nothing yet after a binomial tree's first step of a scatter: every seed gives it
    the same zeros, so the rehearsal is held instead."""
    spec = {"algorithm": "binomial_tree", **LECTURE, "collective": "scatter", "pattern": "random_int"}
    rehearsal = hall.runs.pressed(**spec)
    poll = hall.ask(question="holds", rank=1, step=0, run=spec)
    assert poll.rehearsals == [rehearsal.id] and hall.runs.find(poll.run_id).spec.seed == 0


def test_a_run_of_other_typed_inputs_is_no_rehearsal(hall):
    other = hall.runs.pressed(algorithm="ring", **LECTURE, inputs=[row[::-1] for row in TYPED])
    poll = hall.ask(question="holds", rank=1, step=2, run={"algorithm": "ring", **LECTURE, "inputs": TYPED})
    assert poll.rehearsals == [] and poll.answered_by == []
    assert room_reads(hall, other) is None, "another answer: the room reads it whole"


def test_the_hold_on_a_rehearsal_outlives_a_restart(tmp_path):
    first = Lecture(tmp_path / "runs.db")
    rehearsal = first.runs.pressed(algorithm="ring", **LECTURE)
    poll = first.ask(question="holds", rank=0, step=1, run={"algorithm": "ring", **LECTURE})
    first.runs.end(poll.run_id)
    first.stop()
    again = Lecture(tmp_path / "runs.db", runs=first.runs)
    try:
        assert room_reads(again, rehearsal)["held_for"] == poll.id
        again.polls.voting.reveal(poll.id)
        assert room_reads(again, rehearsal) is None
    finally:
        again.stop()


def test_the_lecturers_own_question_keeps_its_seed_and_holds_its_rehearsal(hall):
    """Their answer is of the inputs they gave: never drawn again, whatever the pattern."""
    spec = {"algorithm": "ring", **LECTURE, "pattern": "random_int", "seed": 3}
    rehearsal = hall.runs.pressed(**spec)
    poll = hall.ask(
        question="custom", text="What does rank 0 end with?", choices=["0", "1"], answer=0, run=spec
    )
    assert hall.runs.find(poll.run_id).spec.seed == 3 and poll.fresh_seed is None
    assert poll.rehearsals == [rehearsal.id] and room_reads(hall, rehearsal)["held_for"] == poll.id
