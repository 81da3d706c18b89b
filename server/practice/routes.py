"""/api/practice: a page practising a run reads the cell each step asks about (the presenter, how
the room did too), and a page connected to the lecture sends its prediction of a step, graded and
counted once; the presenter's pages hear the tally over /ws (service.py)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Request

from ringside.server.door.auth import is_presenter, need_viewer
from ringside.server.practice.service import Answer, Graded, Practice, Questions, practice_of

router = APIRouter(prefix="/api/practice")
watch = Depends(need_viewer)
RunId = Path(max_length=40)


@router.get("/{run_id}", dependencies=[watch])
async def questions(
    run_id: str = RunId, practice: Practice = Depends(practice_of), presenter: bool = Depends(is_presenter)
) -> Questions:
    return practice.questions(run_id, presenter)


@router.post("/{run_id}/answers", status_code=201, dependencies=[watch])
async def answer(
    request: Request, answer: Answer, run_id: str = RunId, practice: Practice = Depends(practice_of)
) -> Graded:
    return practice.answer(run_id, answer, request.client.host if request.client else "")
