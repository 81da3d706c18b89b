"""What viewers receive over /ws, in the order a run produces them:

- `snapshot` on connect: the cluster, the queue and the run on stage (if any) as it
  stands; a viewer takes that run as if from `run_started` (and a later `run_started`
  for it, sent if not every rank had started yet, replaces it);
- `run` (a summary) when the queue changes: a run is queued, or cancelled while queued;
- `run_started` (the full Run) once every rank of its group has started: it carries the
  schedule, layout hint, chunks, inputs and step skeletons, and every step reported so far;
- `step`, one rank's step, for every step reported after `run_started`;
- `run_ended` (the full Run) when it ends, with results and figures (a run that fails
  before `run_started` gets only this);
- `cluster` once a second.

So a live viewer never needs GET /api/runs/{id}."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict

from ringside.worker_agent.protocol import ChunkState

from .runs import Run, RunSummary


class SnapshotMessage(BaseModel):
    type: Literal["snapshot"] = "snapshot"
    role: Literal["viewer", "presenter"]
    cluster: dict
    queue: list[RunSummary]
    current: Optional[Run]


class SummaryMessage(BaseModel):
    type: Literal["run"] = "run"
    run: RunSummary


class StartedMessage(BaseModel):
    type: Literal["run_started"] = "run_started"
    run: Run


class StepMessage(BaseModel):
    type: Literal["step"] = "step"
    run_id: str
    step: int
    rank: int
    t0: float
    t1: float
    states: list[ChunkState]


class EndedMessage(BaseModel):
    type: Literal["run_ended"] = "run_ended"
    run: Run


class ClusterMessage(BaseModel):
    """Cluster.to_json's fields (registry.py), whatever it adds besides these."""

    model_config = ConfigDict(extra="allow")
    type: Literal["cluster"] = "cluster"
    backend: Optional[str]
    world_size: int
    ranks: list[dict]
