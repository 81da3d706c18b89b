"""/api/runs: submit, list, read, cancel and trace runs. These endpoints are async:
they run on the event loop, like the hub itself, and never see a run half-updated."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from ringside.worker_agent.core.protocol import RunSpec

from . import trace
from .auth import need_presenter, need_viewer
from .errors import found
from .hub import Hub, hub_of
from .runs import Run, RunState, RunSummary

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


@router.get("", dependencies=[watch], response_model=Page)
async def list_runs(limit: int = Query(20, ge=1, le=200), offset: int = Query(0, ge=0, le=1_000_000_000),
                    hub: Hub = Depends(hub_of)) -> Response:
    # the stored summaries as they are (a run not yet ended: the hub's, newer): no body parsed
    rows, total = hub.store.page(limit, offset)
    live = hub.runs.live()
    runs = ",".join(live[i].summary().model_dump_json() if i in live else summary for i, summary in rows)
    return Response(f'{{"runs":[{runs}],"total":{total}}}', media_type="application/json")


@router.get("/{run_id}", dependencies=[watch], response_model=Run)
async def get_run(run_id: str, hub: Hub = Depends(hub_of)) -> Response:
    # serialised once, by pydantic: a run of many steps is large
    return Response(found(hub.runs.find(run_id), "run", run_id).model_dump_json(),
                    media_type="application/json")


@router.post("/{run_id}/cancel", dependencies=[present])
async def cancel_run(run_id: str, hub: Hub = Depends(hub_of)) -> CancelAnswer:
    run = found(hub.runs.cancel(run_id), "run", run_id)
    return CancelAnswer(id=run.id, state=run.state, cancel_requested=run.cancel_requested)


@router.get("/{run_id}/trace", dependencies=[watch])
async def get_trace(run_id: str, hub: Hub = Depends(hub_of)) -> JSONResponse:
    run = found(hub.runs.find(run_id), "run", run_id)
    saved = {"Content-Disposition": f'attachment; filename="{run_id}.trace.json"'}
    return JSONResponse(trace.chrome_trace(run), headers=saved)
