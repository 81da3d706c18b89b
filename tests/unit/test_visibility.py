"""What the room may see while a poll holds runs (server/polls/visibility.py), in-process: each audience
a message declares, and a held run on every read a viewer has (the run, its line, its trace, the
figures, the model, a joining page's snapshot), over the real polls and fake runs."""

from __future__ import annotations

import pytest
from fake_runs import LECTURE
from polls_in_process import Lecture

from ringside.server.dispatch.job import JobState
from ringside.server.door.audience import RunNamed
from ringside.server.door.errors import Busy
from ringside.server.lecture.presenter import PresenterMessage, PresenterView
from ringside.server.polls.messages import TallyMessage
from ringside.server.polls.poll import Poll, PollState
from ringside.server.polls.visibility import Visibility
from ringside.server.practice.tally import PracticeMessage, StepTally
from ringside.server.runs.messages import (
    EndedMessage,
    ShownMessage,
    StartedMessage,
    StepMessage,
    SummaryMessage,
)
from ringside.server.runs.wavefront import Wavefront, WavefrontMessage
from ringside.server.viewers.messages import SnapshotMessage
from ringside.server.viewers.socket import snapshot
from ringside.server.watched.service import WatchedCollectivesMessage


class HeldRuns:
    """What the polls hold, as visibility asks it: `held` run id -> the poll that holds it."""

    def __init__(self, held: dict[str, Poll]):
        self.held = held

    def holding(self, run: RunNamed) -> Poll | None:
        return self.held.get(run.id)


def poll(state: PollState) -> Poll:
    return Poll(
        id="p-000001",
        run_id="r-000001",
        runs=["r-000001"],
        question="busiest_link",
        text="?",
        state=state,
        created_at=0,
    )


def room(state: PollState = PollState.OPEN) -> Visibility:
    return Visibility(HeldRuns({"r-000001": poll(state)}), book=None)  # the live feed reads no poll's book  # type: ignore[arg-type]


def step(run_id: str) -> StepMessage:
    return StepMessage(run_id=run_id, step=0, rank=0, t0=0.0, t1=0.1, states=[])


def view(run_id: str) -> PresenterMessage:
    return PresenterMessage(run_id=run_id, step=0, playing=False, speed=1.0)


def test_what_the_room_hears_of_each_audience():
    everyone = WatchedCollectivesMessage(job_id="w-000001", collectives=[])
    assert room().message(everyone) is everyone
    assert (
        room().message(PracticeMessage(run_id="r-000002", steps=[StepTally(step=0, answered=1, right=1)]))
        is None
    ), "the presenter's chart"
    tally = room().message(TallyMessage(poll_id="p-000001", votes=3, counts=[1, 2], pages=5))
    assert tally == TallyMessage(poll_id="p-000001", votes=3), "how many, not for what"
    assert room().message(step("r-000001")) is None and room().message(step("r-000002")) == step("r-000002")
    front = WavefrontMessage(run_id="r-000001", wavefront=Wavefront(done={}, arrived={}))
    assert room().message(front) is None, "each change is a time"
    assert room(PollState.REVEALED).message(view("r-000001")) == view("r-000001")
    assert room(PollState.RUNNING).message(view("r-000001")) is None, (
        "when the held run came on stage is a time"
    )
    assert room(PollState.OPEN).message(view("r-000001")) == view("r-000001"), "once open, the room follows"
    assert room().message(SnapshotMessage(role="viewer", cluster={}, queue=[], current=None)) is None


def test_a_held_runs_start_end_and_line_are_heard_by_the_presenter_alone(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        poll_ = hall.ask(question="busiest_link", run={"algorithm": "ring", **LECTURE})
        run = hall.runs.find(poll_.run_id)
        other = hall.runs.pressed(algorithm="ring", collective="broadcast")
        for message in (StartedMessage(run=run), SummaryMessage(run=run.summary())):
            assert hall.visibility.message(message) is None, message.type
        assert hall.visibility.message(EndedMessage(run=other)) is not None, "a run no poll holds"
        hall.runs.end(run.id)
        assert hall.visibility.message(EndedMessage(run=run)) is None, "its end is a time"
        hall.polls.voting.reveal(poll_.id)
        assert hall.visibility.message(EndedMessage(run=run)) is not None
    finally:
        hall.stop()


def test_a_held_run_the_presenter_opens_is_pushed_to_the_presenter_alone_until_the_reveal(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        poll_ = hall.ask(question="busiest_link", run={"algorithm": "ring", **LECTURE})
        held = hall.runs.find(poll_.run_id)
        hall.runs.end(held.id)
        other = hall.runs.pressed(algorithm="ring", collective="broadcast")
        assert hall.visibility.message(ShownMessage(run=held)) is None, "a phone fetches its held copy"
        assert hall.visibility.message(ShownMessage(run=other)) == ShownMessage(run=other)
        hall.polls.voting.reveal(poll_.id)
        assert hall.visibility.message(ShownMessage(run=held)) == ShownMessage(run=held)
    finally:
        hall.stop()


def test_a_race_holds_the_times_of_every_run_it_compares_until_the_reveal(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        ring, tree, master = (hall.runs.pressed(algorithm=a) for a in ("ring", "tree", "master_worker"))
        server = hall.runs.pressed(
            collective="parameter_server", algorithm="pull_push", servers=1, capture="summary"
        )
        race = hall.ask(run_id=ring.id, question="faster")
        seen = hall.visibility
        for run in (ring, tree, master):  # the runs the race compares: their times are its answer
            shown = seen.run(run, presenter=False)
            assert isinstance(shown, dict) and shown["held_for"] == race.id
            assert shown["time"] is None and shown["busbw"] is None and shown["finished_at"] is None
            assert shown["prediction"] is None and shown["choice"] is None, (
                "the model's account carries its time"
            )
            assert all(s["ranks"] == {} for s in shown["steps"]), "a step's t0 and t1 are times"
            with pytest.raises(Busy):
                seen.check_trace(run, presenter=False)
        assert seen.run(ring, presenter=True) is ring, "the presenter reads it whole"
        lines = seen.summaries(
            [r.summary().model_dump(mode="json") for r in (ring, tree, master, server)], False
        )
        raced = [s for s in lines if s["collective"] == "all_reduce"]
        assert len(raced) == 3 and all(s["time"] is None and s["finished_at"] is None for s in raced), (
            "nor the span from start to finish, which ranks them as their times do"
        )
        assert [s for s in lines if s["id"] == server.id][0]["time"] == server.time, (
            "another shape is not held"
        )
        assert seen.withheld_collectives(False) == {"all_reduce"} and seen.withheld_collectives(True) == set()
        for check in (lambda: seen.check_figures(("all_reduce",), False), lambda: seen.check_model(False)):
            with pytest.raises(Busy):
                check()
        seen.check_figures(("parameter_server",), False)
        seen.check_model(True)
        assert seen.run(server, presenter=False) is server

        hall.polls.voting.reveal(race.id)
        assert seen.run(ring, presenter=False) is ring and seen.withheld_collectives(False) == set()
        seen.check_trace(ring, presenter=False)
        seen.check_model(False)
    finally:
        hall.stop()


def test_a_poll_change_tells_every_page_the_run_list_as_it_may_read_it(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        ring = hall.runs.pressed(algorithm="ring")
        other = hall.runs.pressed(collective="broadcast", algorithm="native")
        asked = hall.ask(run_id=ring.id, question="busiest_link")
        told = hall.feed.of("runs")[-1]
        assert [r.id for r in told.runs] == [other.id, ring.id] and told.runs[1].time == ring.time, (
            "newest first; the presenter's whole"
        )
        room = {r.id: r for r in hall.visibility.message(told).runs}
        assert room[ring.id].time is None and room[ring.id].finished_at is None, (
            "the held run's line: no time"
        )
        assert room[other.id].time == other.time
        sealed = hall.ask(question="busiest_link", run={"algorithm": "tree", **LECTURE})
        hall.runs.runs[sealed.run_id].state = JobState.DONE  # ended; its poll opens once told
        hall.polls.voting.close(asked.id)  # another change: the list is told again
        told = hall.feed.of("runs")[-1]
        assert sealed.run_id in [r.id for r in told.runs]
        room = [r.id for r in hall.visibility.message(told).runs]
        assert sealed.run_id not in room, "a poll's own run, while its runs run: no line at all"
        hall.polls.voting.reveal(asked.id)
        room = {r.id: r for r in hall.visibility.message(hall.feed.of("runs")[-1]).runs}
        assert room[ring.id].time == ring.time, "revealed: whole again"
    finally:
        hall.stop()


class OneCluster:
    def to_json(self) -> dict:
        return {"backend": "gloo", "world_size": 4, "ranks": []}


def test_while_its_run_runs_the_room_reads_not_even_that_it_runs(tmp_path):
    """Meanwhile the room's every read and a page that joins say nothing of the held run (its state
    would say when it ends), nor of the poll."""
    hall = Lecture(tmp_path / "runs.db")
    try:
        asked = hall.ask(question="busiest_link", run={"algorithm": "ring", **LECTURE})
        run = hall.runs.find(asked.run_id)
        seen, record = hall.visibility, hall.polls.book.find(asked.id)
        with pytest.raises(Busy, match="held for a question"):
            seen.run(run, presenter=False)
        with pytest.raises(Busy, match="not asked yet"):
            seen.poll(record, presenter=False)
        assert hall.polls.book.newest(presenter=False) is None
        assert seen.summaries([run.summary().model_dump(mode="json")], presenter=False) == []
        shown = PresenterView(hall.feed)
        shown.lead(view(run.id), steps=len(run.steps))
        joined = snapshot(False, hall.runs, OneCluster(), shown, seen, "a-ballot")
        assert joined.queue == [] and joined.queued == 0 and joined.presenter is None
        run.state = JobState.RUNNING  # on the ranks now
        assert snapshot(False, hall.runs, OneCluster(), shown, seen, None).current is None
        whole = snapshot(True, hall.runs, OneCluster(), shown, seen, None)
        assert whole.current is run and whole.presenter == view(run.id), "the presenter's page: all of it"

        hall.runs.end(run.id)
        line = seen.summaries([run.summary().model_dump(mode="json")], presenter=False)
        assert [s["id"] for s in line] == [run.id] and line[0]["time"] is None, "open: its line, no time"
        assert seen.poll(record, presenter=False).state is PollState.OPEN
    finally:
        hall.stop()


def test_a_lessons_printed_output_waits_for_its_stage_and_its_reveal(tmp_path):
    hall = Lecture(tmp_path / "runs.db")
    try:
        seen, on = (
            hall.visibility,
            PresenterMessage(run_id="r-000009", step=0, playing=False, speed=1.0, lesson=2),
        )
        with pytest.raises(Busy, match="once it is on stage"):
            seen.check_prints(2, True, None, 0.0, presenter=False)
        seen.check_prints(2, True, None, 0.0, presenter=True)
        seen.check_prints(1, False, None, 0.0, presenter=False)  # a stage that asks nothing
        ring = hall.runs.pressed(algorithm="ring")
        since = hall.ask(run_id=ring.id, question="busiest_link").created_at
        with pytest.raises(Busy, match="comes with the reveal"):
            seen.check_prints(2, True, on, since, presenter=False)
        hall.polls.voting.reveal(hall.polls.book.newest(True).poll.id)
        seen.check_prints(2, True, on, since, presenter=False)
        with pytest.raises(Busy, match="comes with the reveal"):
            seen.check_prints(
                2, True, on, since + 1, presenter=False
            )  # a question asked before the stage came on
    finally:
        hall.stop()
