"""The presenter's view (server/lecture/presenter.py), told through a recorded feed: every page hears
a change once (a run it opens just before it), a lesson's stage is timed from when it came on, and the
view is forgotten with the last presenter's page."""

from __future__ import annotations

from fake_runs import FakeRuns
from pydantic import BaseModel

from ringside.server.lecture.presenter import PresenterMessage, PresenterView
from ringside.server.runs.messages import ShownMessage


class RecordedFeed:
    def __init__(self) -> None:
        self.published: list[BaseModel] = []

    def publish(self, message: BaseModel) -> None:
        self.published.append(message)


def view(run_id: str = "r-000001", step: int = 0, lesson: int | None = None) -> PresenterMessage:
    return PresenterMessage(run_id=run_id, step=step, playing=False, speed=1.0, lesson=lesson)


def test_a_view_is_told_once_when_it_changes_and_again_when_retold():
    feed = RecordedFeed()
    shown = PresenterView(feed)
    shown.joined()
    shown.lead(view(step=1), steps=6)
    shown.lead(view(step=1), steps=6)  # an arrow key held at the end: nothing new
    shown.lead(view(step=2), steps=6)
    shown.retell()
    assert [m.step for m in feed.published] == [1, 2, 2]
    assert shown.steps_of("r-000001") == 6 and shown.steps_of("r-000002") is None
    assert shown.shown() == {"r-000001"}, "retention keeps the run on the presenter's stage"


def test_a_lesson_stage_is_timed_from_when_it_came_on_not_from_each_step_shown():
    shown = PresenterView(RecordedFeed())
    shown.lead(view(lesson=2), steps=6)
    since = shown.lesson_since
    assert since > 0
    shown.lesson_since = since - 100  # as if it came on a while ago
    shown.lead(view(step=3, lesson=2), steps=6)
    assert shown.lesson_since == since - 100, "the same stage: its question was asked after it came on"
    shown.lead(view(lesson=3), steps=6)
    assert shown.lesson_since >= since, "the next stage comes on now"


def test_the_view_is_forgotten_when_the_last_presenter_page_goes():
    feed = RecordedFeed()
    shown = PresenterView(feed)
    shown.joined()
    shown.joined()
    shown.lead(view(), steps=6)
    shown.left()
    assert shown.view is not None, "one presenter's page is still there"
    shown.left()
    shown.retell()
    assert shown.view is None and shown.shown() == set() and len(feed.published) == 1


def test_a_view_that_opens_another_run_is_told_after_that_run_once_for_every_page():
    feed = RecordedFeed()
    shown = PresenterView(feed)
    earlier = FakeRuns().pressed(algorithm="ring")
    shown.lead(view(earlier.id), steps=len(earlier.steps), run=earlier)
    shown.lead(view(earlier.id, step=1), steps=len(earlier.steps))  # a step of the run on show
    assert [m.type for m in feed.published] == ["shown_run", "presenter", "presenter"]
    pushed = feed.published[0]
    assert isinstance(pushed, ShownMessage) and pushed.run is earlier, "the page shows it with no GET"
