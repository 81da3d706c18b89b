"""The presenter's view: what the presenter's page shows (run, step, playing, speed, the overlay,
the training on its charts, the lesson's stage), as its page sends it over /ws and every viewer
hears it, for audience pages that follow the presenter to mirror. `PresenterView` keeps the last
one heard while a presenter's page is connected (a late joiner's snapshot carries it), and when
the lesson's stage in it came on."""

from __future__ import annotations

import time
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer
from starlette.requests import HTTPConnection

from ringside.server.door.audience import Audience, Feed, RunNamed
from ringside.server.lessons.lesson import MAX_STAGES
from ringside.server.runs.messages import ShownMessage
from ringside.server.runs.run import Run

Id = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")]


class PresenterMessage(BaseModel):
    """The presenter's view, as its page sends it over /ws (socket.py checks it) and as
    every viewer hears it. step -1: the run's inputs. Ids name what a viewer fetches itself
    (a run, a training): the presenter's page sends no content, only which. The room hears none of
    a run whose poll's runs still run (when it came on stage would tell when a run before it ended)."""

    audience: ClassVar[Audience] = Audience.HELD_WHILE_RUNNING
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["presenter"] = "presenter"
    run_id: Id
    step: int = Field(ge=-1, le=1_000_000)
    playing: bool
    speed: float = Field(ge=0.05, le=20)
    # what covers the stage (keys C, T, J; M: the seed's formulas, counting what each counts,
    # the total, the busiest link), or nothing
    overlay: Literal["compare", "training", "jobs", "formulas", "formulas:total", "formulas:link"] | None = (
        None
    )
    training: Id | None = None  # the training on the charts
    job: Id | None = None  # the watched job open in the jobs view
    demo: list[Id] = Field(default=[], max_length=4)  # the lecture demo's runs (key D): their result line
    lesson: int | None = Field(None, ge=0, lt=MAX_STAGES)  # the lesson's stage shown (key U), 0-based

    @model_serializer(mode="wrap")
    def _unset_left_out(self, write):
        """What is not shown is not said: a frame a phone hears on every step stays short."""
        return {k: v for k, v in write(self).items() if v is not None and v != []}

    def concerns(self) -> tuple[RunNamed, ...]:
        return (RunNamed(self.run_id),)


class PresenterView:
    def __init__(self, feed: Feed):
        self.feed = feed
        self.view: PresenterMessage | None = None  # the presenter's view, last heard
        self.lesson_since = 0.0  # when the lesson's stage in that view came on
        self.pages = 0  # presenter pages connected: the view is forgotten when the last goes
        self.steps = 0  # the step count of the run in that view

    def joined(self) -> None:
        self.pages += 1

    def left(self) -> None:
        """With no presenter page left, a late joiner follows nobody (it shows the latest run)."""
        self.pages -= 1
        if self.pages == 0:
            self.view = None

    def lead(self, view: PresenterMessage, steps: int, run: Run | None = None) -> None:
        """The presenter's page shows something else (a run of `steps` steps): every viewer hears it, once.
        `run`: the run it names, where it is not the one shown before: every viewer hears it first."""
        self.steps = steps
        if view.lesson is not None and view.lesson != (self.view and self.view.lesson):
            self.lesson_since = time.time()  # a stage's question is asked after it comes on (visibility.py)
        if view != self.view:
            if run is not None:
                self.feed.publish(ShownMessage(run=run))
            self.view = view
            self.feed.publish(view)

    def retell(self) -> None:
        """Every page hears the presenter's view again (the room may hear it now, where it could not)."""
        if self.view is not None:
            self.feed.publish(self.view)

    def shown(self) -> set[str]:
        """The run the presenter's page shows, if any (retention keeps it)."""
        return {self.view.run_id} if self.view is not None else set()

    def steps_of(self, run_id: str) -> int | None:
        """The step count of the run the presenter shows, if `run_id` is it."""
        return self.steps if self.view is not None and self.view.run_id == run_id else None


async def presenter_view_of(conn: HTTPConnection) -> PresenterView:
    return conn.app.state.presenter_view
