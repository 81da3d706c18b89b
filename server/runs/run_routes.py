"""/api/runs: submit, list, read, cancel and trace runs, and preview one. These endpoints are async:
they run on the event loop, like the services, and never see a run half-updated. What a
viewer reads while a poll is open is polls/visibility.py's to say."""

from __future__ import annotations

import json

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ringside.server.dispatch.job import CancelAnswer, JobState
from ringside.server.door.auth import is_presenter, need_presenter, need_viewer
from ringside.server.door.errors import found
from ringside.server.polls.visibility import Visibility, visibility_of
from ringside.server.runs import trace
from ringside.server.runs.run import Run, RunSummary
from ringside.server.runs.service import Runs, runs_of
from ringside.worker_agent.core.protocol import RunSpec

router = APIRouter(prefix="/api/runs")
watch, present = Depends(need_viewer), Depends(need_presenter)


class Accepted(BaseModel):
    id: str
    state: JobState


class Page(BaseModel):
    runs: list[RunSummary]
    total: int


@router.post("", status_code=202, dependencies=[present])
async def post_run(spec: RunSpec, runs: Runs = Depends(runs_of)) -> Accepted:
    run = await runs.submit(spec)
    return Accepted(id=run.id, state=run.state)


@router.post("/preview", dependencies=[watch], response_model=Run)
async def preview_run(spec: RunSpec, runs: Runs = Depends(runs_of)) -> Response:
    """What a run of `spec` would start from, planned and with its inputs, run by nobody and kept
    nowhere: the page draws it before the first run."""
    return Response(await runs.preview(spec), media_type="application/json")


@router.get("", dependencies=[watch], response_model=Page)
async def list_runs(
    limit: int = Query(20, ge=1, le=200),
    offset: int = Query(0, ge=0, le=1_000_000_000),
    runs: Runs = Depends(runs_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> Response:
    lines, total = runs.lines(limit, offset)
    if visibility.holding_any(presenter):  # a poll is open: its answer stays off the list
        lines = [json.dumps(s) for s in visibility.summaries([json.loads(line) for line in lines], presenter)]
    return Response(f'{{"runs":[{",".join(lines)}],"total":{total}}}', media_type="application/json")


@router.get("/{run_id}", dependencies=[watch], response_model=Run)
async def get_run(
    run_id: str,
    runs: Runs = Depends(runs_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> Response:
    run, stored = found(runs.read(run_id), "run", run_id)
    shown = visibility.run(run, presenter)
    if isinstance(shown, dict):
        return JSONResponse(shown)
    # as stored where it is shown whole, else serialised once, by pydantic: a run of many steps is large
    return Response(
        stored if stored is not None and shown is run else shown.model_dump_json(),
        media_type="application/json",
    )


@router.post("/{run_id}/cancel", dependencies=[present])
async def cancel_run(run_id: str, runs: Runs = Depends(runs_of)) -> CancelAnswer:
    run = found(runs.cancel(run_id), "run", run_id)
    return CancelAnswer(id=run.id, state=run.state, cancel_requested=run.cancel_requested)


@router.get("/{run_id}/trace", dependencies=[watch])
async def get_trace(
    run_id: str,
    runs: Runs = Depends(runs_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> JSONResponse:
    run = found(runs.find(run_id), "run", run_id)
    visibility.check_trace(run, presenter)
    saved = {"Content-Disposition": f'attachment; filename="{run_id}.trace.json"'}
    return JSONResponse(trace.chrome_trace(run), headers=saved)
