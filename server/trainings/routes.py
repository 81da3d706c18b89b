"""/api/trainings: start, list and read data-parallel training runs, and open any
step's gradient sync as a run for the stage. Async, on the event loop, like the services they call."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query, Response

from ringside.server.dispatch.job import CancelAnswer
from ringside.server.door.auth import need_presenter, need_viewer
from ringside.server.door.errors import found, refuse
from ringside.server.runs.run import Run
from ringside.server.trainings.comparison import MOST, Comparison, compare
from ringside.server.trainings.service import Trainings, trainings_of
from ringside.server.trainings.training import Training
from ringside.worker_agent.core.protocol import TrainSpec

router = APIRouter(prefix="/api/trainings")
watch, present = Depends(need_viewer), Depends(need_presenter)


@router.post("", status_code=202, dependencies=[present])
async def post_training(spec: TrainSpec, trainings: Trainings = Depends(trainings_of)) -> dict:
    training = await trainings.submit(spec)
    return {"id": training.id, "state": training.state}


@router.get("", dependencies=[watch])
async def list_trainings(
    limit: int = Query(20, ge=1, le=200), trainings: Trainings = Depends(trainings_of)
) -> dict:
    return {"trainings": trainings.newest(limit)}


@router.get("/compared", dependencies=[watch], response_model=Comparison)
async def get_compared(
    ids: str = Query(max_length=MOST * 12, description="training ids, comma-separated, in the order shown"),
    trainings: Trainings = Depends(trainings_of),
) -> Comparison:
    """Trainings of different methods on the same data side by side: loss curves and traffic."""
    named = [i.strip() for i in ids.split(",") if i.strip()]
    return compare([found(trainings.find(i), "training", i) for i in named])


@router.get("/{training_id}", dependencies=[watch], response_model=Training)
async def get_training(
    training_id: str = Path(max_length=40), trainings: Trainings = Depends(trainings_of)
) -> Response:
    return Response(
        found(trainings.find(training_id), "training", training_id).model_dump_json(),
        media_type="application/json",
    )


@router.post("/{training_id}/cancel", dependencies=[present])
async def cancel_training(
    training_id: str = Path(max_length=40), trainings: Trainings = Depends(trainings_of)
) -> CancelAnswer:
    training = found(trainings.cancel(training_id), "training", training_id)
    return CancelAnswer(id=training.id, state=training.state, cancel_requested=training.cancel_requested)


@router.get("/{training_id}/steps/{step}/sync", dependencies=[watch], response_model=Run)
async def get_sync(
    training_id: str = Path(max_length=40),
    step: int = Path(ge=0, lt=1 << 31),
    trainings: Trainings = Depends(trainings_of),
) -> Response:
    found(trainings.find(training_id), "training", training_id)
    run, why = trainings.find_sync(training_id, step)
    if run is None:
        raise refuse(404, "step", why)
    return Response(run.model_dump_json(), media_type="application/json")
