"""/api/lesson: the lesson the presenter steps through (key U), the seed lecture unless `ringside
up --lesson FILE` gave another. Every page reads it: its stages are what the room is shown, and a
stage's question says nothing of its answer (the poll's run is held until the reveal)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from ringside.server.door.auth import need_viewer

from .lesson import Lesson

router = APIRouter()


@router.get("/api/lesson", dependencies=[Depends(need_viewer)])
async def lesson(request: Request) -> dict:
    """The lesson's title and stages, each with its run as the page submits it (on ranks 0 …
    ranks−1 of the cluster), its question, code, what its ranks print and its caption."""
    given: Lesson = request.app.state.lesson  # read and checked once, as the app was made
    stages = [
        {**stage.model_dump(include={"ranks", "question", "code", "prints", "caption"}),
         "run": stage.run().model_dump(exclude_defaults=True)}
        for stage in given.stages
    ]  # fmt: skip
    return {"version": given.version, "title": given.title.model_dump(), "stages": stages}
