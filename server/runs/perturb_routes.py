"""/api/perturb: what a perturbation may ask for (the ranges the page's inputs take), and
the lecture demo, ring against tree all_reduce under one straggler, as one request that
queues both runs (perturb.py does the rest; each run records its predicted extra time)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.workers import cluster_of
from ringside.server.door.auth import need_presenter, need_viewer
from ringside.server.runs.service import Runs, runs_of
from ringside.worker_agent.core import perturb
from ringside.worker_agent.core.catalog import pieces_of
from ringside.worker_agent.core.perturb import Perturb, Straggler
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import validate

router = APIRouter(prefix="/api/perturb")

DEMO_COLLECTIVE = "all_reduce"
DEMO_ALGORITHMS = ("ring", "tree")  # every ring step waits for the straggler; the tree's fewer steps do less
DEMO_DELAY_S = 0.1


class DemoAsk(BaseModel):
    """The straggler both runs get (default: the last rank, DEMO_DELAY_S late)."""

    model_config = ConfigDict(extra="forbid")
    straggler: Straggler | None = None


class DemoRun(BaseModel):
    id: str
    algorithm: str
    predicted_extra_s: float | None


class DemoAnswer(BaseModel):
    runs: list[DemoRun]


@router.get("", dependencies=[Depends(need_viewer)])
async def limits() -> dict:
    """The ranges every perturbation field takes, and what the demo runs."""
    return {
        "straggler": {"delay_s": [perturb.MIN_DELAY_S, perturb.MAX_DELAY_S], "default_delay_s": DEMO_DELAY_S},
        "slow_link": {"bytes_per_s": [perturb.MIN_RATE, perturb.MAX_RATE]},
        "hang": {"grace_s": perturb.HANG_GRACE_S},
        "demo": {
            "collective": DEMO_COLLECTIVE,
            "algorithms": list(DEMO_ALGORITHMS),
            "pattern": "digits",
            "title": f"{' against '.join(DEMO_ALGORITHMS)} {DEMO_COLLECTIVE} under one straggler",
        },
    }


@router.post("/demo", status_code=202, dependencies=[Depends(need_presenter)])
async def demo(
    ask: DemoAsk | None = None, runs: Runs = Depends(runs_of), cluster: Cluster = Depends(cluster_of)
) -> DemoAnswer:
    """Queue the demo's runs with the same straggler; both are checked before either is queued."""
    world = cluster.world_size
    straggler = (ask.straggler if ask else None) or Straggler(rank=max(world - 1, 0), delay_s=DEMO_DELAY_S)
    # the lecture's data: a digit a cell (the straggler's delay is the time)
    pieces = pieces_of(DEMO_COLLECTIVE, world)
    specs = [
        RunSpec(
            collective=DEMO_COLLECTIVE,
            algorithm=a,
            count=pieces.get(a, max(world, 1)),
            pattern="digits",
            perturb=Perturb(straggler=straggler),
        )
        for a in DEMO_ALGORITHMS
    ]
    for spec in specs:
        validate(spec, world, cluster.backend or "gloo")
    queued = [await runs.submit(spec) for spec in specs]
    return DemoAnswer(
        runs=[
            DemoRun(
                id=r.id,
                algorithm=r.spec.algorithm,
                predicted_extra_s=r.perturbed.predicted_extra_s if r.perturbed else None,
            )
            for r in queued
        ]
    )
