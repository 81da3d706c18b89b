"""/api/runs: submit, list, read, cancel and trace runs. These endpoints are async:
they run on the event loop, like the hub itself, and never see a run half-updated."""

from __future__ import annotations

import json

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ringside.server.cluster.workers import Hub, hub_of
from ringside.server.door.auth import need_presenter, need_viewer, role_of, settings_of
from ringside.server.door.errors import Busy, found
from ringside.server.polls.poll import withheld, withheld_summary
from ringside.server.runs import trace
from ringside.server.runs.run import Run, RunState, RunSummary
from ringside.worker_agent.core.protocol import RunSpec

router = APIRouter(prefix="/api/runs")
watch, present = Depends(need_viewer), Depends(need_presenter)


class Accepted(BaseModel):
    id: str
    state: RunState


class Page(BaseModel):
    runs: list[RunSummary]
    total: int


class CancelAnswer(BaseModel):
    id: str
    state: RunState
    cancel_requested: bool


@router.post("", status_code=202, dependencies=[present])
async def post_run(spec: RunSpec, hub: Hub = Depends(hub_of)) -> Accepted:
    run = await hub.runs.submit(spec)
    return Accepted(id=run.id, state=run.state)


def viewer(request: Request) -> bool:
    """Not the presenter: while a poll is open, what answers it is kept from this request."""
    return role_of(request, settings_of(request)) != "presenter"


@router.get("", dependencies=[watch], response_model=Page)
async def list_runs(
    request: Request,
    limit: int = Query(20, ge=1, le=200),
    offset: int = Query(0, ge=0, le=1_000_000_000),
    hub: Hub = Depends(hub_of),
) -> Response:
    # the stored summaries as they are (a run not yet ended: the hub's, newer): no body parsed
    rows, total = hub.store.page(limit, offset)
    live = hub.runs.live()
    runs = [live[i].summary().model_dump_json() if i in live else summary for i, summary in rows]
    polls = request.app.state.polls
    if polls.holding_any() and viewer(request):  # a poll is open: its answer stays off the list
        runs = [
            json.dumps(withheld_summary(s)) if polls.hides_times(s) else json.dumps(s)
            for s in map(json.loads, runs)
        ]
    return Response(f'{{"runs":[{",".join(runs)}],"total":{total}}}', media_type="application/json")


@router.get("/{run_id}", dependencies=[watch], response_model=Run)
async def get_run(request: Request, run_id: str, hub: Hub = Depends(hub_of)) -> Response:
    run = found(hub.runs.find(run_id), "run", run_id)
    poll = request.app.state.polls.holding(run)
    if poll is not None and viewer(request):
        return JSONResponse(withheld(run, poll))
    # serialised once, by pydantic: a run of many steps is large
    return Response(run.model_dump_json(), media_type="application/json")


@router.post("/{run_id}/cancel", dependencies=[present])
async def cancel_run(run_id: str, hub: Hub = Depends(hub_of)) -> CancelAnswer:
    run = found(hub.runs.cancel(run_id), "run", run_id)
    return CancelAnswer(id=run.id, state=run.state, cancel_requested=run.cancel_requested)


@router.get("/{run_id}/trace", dependencies=[watch])
async def get_trace(request: Request, run_id: str, hub: Hub = Depends(hub_of)) -> JSONResponse:
    run = found(hub.runs.find(run_id), "run", run_id)
    if request.app.state.polls.holding(run) is not None and viewer(request):
        raise Busy("run_id", f"run {run_id} is held for a poll: its trace comes with the reveal")
    saved = {"Content-Disposition": f'attachment; filename="{run_id}.trace.json"'}
    return JSONResponse(trace.chrome_trace(run), headers=saved)
