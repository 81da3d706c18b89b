"""/api/lesson: the lesson the presenter steps through (key U), the seed lecture unless `ringside
up --lesson FILE` gave another. Every page reads it, but what a stage with a question prints is its
answer: the room reads that once the stage is on the presenter's stage and its question revealed
(polls/visibility.py)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from ringside.server.door.audience import marked
from ringside.server.door.auth import is_presenter, need_viewer
from ringside.server.door.errors import refuse
from ringside.server.polls.visibility import Visibility, visibility_of

from .lesson import Lesson, StageQuestion

router = APIRouter()


@router.get("/api/lesson", dependencies=[Depends(need_viewer)])
async def lesson(request: Request, presenter: bool = Depends(is_presenter)) -> dict:
    """The lesson's title and stages, each with its run as the page submits it (on ranks 0 …
    ranks−1 of the cluster), its question, code, what its ranks print and its caption; for the
    room, a stage with a question without what it prints (…/prints, once it may)."""
    given: Lesson = request.app.state.lesson  # read and checked once, as the app was made
    stages = [
        {**stage.model_dump(include={"ranks", "question", "code", "prints", "caption"}),
         "run": stage.run().model_dump(exclude_defaults=True),
         **({"prints": None, "question": asked(stage.question)} if stage.question and not presenter else {})}
        for stage in given.stages
    ]  # fmt: skip
    return {"version": given.version, "title": given.title.model_dump(), "stages": stages}


def asked(question: StageQuestion) -> dict:
    """A stage's question as the room reads it: a custom one's answer left out (polls/custom.py marks it)."""
    return question.model_dump(exclude=set(marked(type(question))))


@router.get("/api/lesson/stages/{index}/prints", dependencies=[Depends(need_viewer)])
async def prints(
    index: int,
    request: Request,
    presenter: bool = Depends(is_presenter),
    visibility: Visibility = Depends(visibility_of),
) -> dict:
    """What stage `index` (from 0) prints: a stage with a question, for the room, once revealed."""
    stages = request.app.state.lesson.stages
    if not 0 <= index < len(stages):
        raise refuse(404, "stage", f"the lesson has stages 0 to {len(stages) - 1}, not {index}")
    stage = stages[index]
    shown = request.app.state.presenter_view  # lecture/presenter.py: what the presenter's page shows
    visibility.check_prints(index, stage.question is not None, shown.view, shown.lesson_since, presenter)
    return {"stage": index, "prints": stage.prints}
