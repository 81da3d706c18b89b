"""A run as the server keeps it: the spec, its state, and every rank's events
merged into one picture (the Run JSON that viewers, the store and the trace
read). Plain dicts, so storing and sending are one json.dumps away."""

from __future__ import annotations

import statistics
import time

from ringside.worker_agent import collectives as C
from ringside.worker_agent import simulate
from ringside.worker_agent.catalog import ITEMSIZE, effective_count, effective_dtype, group_of
from ringside.worker_agent.protocol import ErrorEvent, RunCancelled, RunFinished, RunSpec, RunStarted, StepEvent
from ringside.worker_agent.schedule import Schedule

ENDED = frozenset({"done", "failed", "cancelled", "interrupted"})
RESULT_FIELDS = ("output", "checksum", "verified", "max_diff", "tolerance", "mismatches", "timings", "bytes_sent", "bytes_received")


def new_run(run_id: str, spec: RunSpec, backend: str, world_size: int) -> dict:
    return {
        "id": run_id,
        "state": "queued",
        "spec": spec.model_dump(),
        "created_at": time.time(),
        "started_at": None,
        "finished_at": None,
        "error": None,
        "cancel_requested": False,
        "cancelled_ranks": [],
        "backend": backend,
        "world_size": world_size,
        "group": group_of(spec, world_size),
        "schedule": None,
        "chunk_bounds": [],
        "inputs": {},
        "input_chunks": {},
        "steps": [],
        "results": {},
        "verified": None,
        "time": None,
        "algbw": None,
        "busbw": None,
        "traffic": None,
    }


def summary(run: dict) -> dict:
    """What a run list shows: no steps, no states."""
    spec = run["spec"]
    return {k: run[k] for k in ("id", "state", "created_at", "started_at", "finished_at", "error", "verified",
                                "time", "algbw", "busbw", "group")} | {
        "collective": spec["collective"], "algorithm": spec["algorithm"], "count": spec["count"], "dtype": spec["dtype"],
    }


def _step(run: dict, index: int) -> dict:
    while len(run["steps"]) <= index:
        run["steps"].append({"step": len(run["steps"]), "phase": "", "caption": "", "transfers": [], "ranks": {}})
    return run["steps"][index]


def on_started(run: dict, event: RunStarted) -> None:
    run["inputs"][str(event.rank)] = [s.model_dump() for s in event.inputs]
    run["input_chunks"][str(event.rank)] = event.input_chunks
    run["chunk_bounds"] = [list(b) for b in event.chunk_bounds]
    if event.schedule is not None:
        run["schedule"] = event.schedule
        for i, step in enumerate(event.schedule["steps"]):
            _step(run, i).update(phase=step["phase"], caption=step["caption"], transfers=step["transfers"])


def on_step(run: dict, event: StepEvent) -> dict:
    """Merge one rank's step; returns what viewers are sent."""
    entry = {"t0": event.t0, "t1": event.t1, "states": [s.model_dump() for s in event.states]}
    step = _step(run, event.step)
    step["ranks"][str(event.rank)] = entry
    if not step["phase"]:
        step["phase"] = event.phase
    return {"type": "step", "run_id": run["id"], "step": event.step, "rank": event.rank, **entry}


def on_finished(run: dict, event: RunFinished) -> None:
    run["results"][str(event.rank)] = event.model_dump(include=set(RESULT_FIELDS))


def on_error(run: dict, event: ErrorEvent) -> None:
    if run["error"] is None:
        run["error"] = event.message if event.field is None else f"{event.field}: {event.message}"


def on_cancelled(run: dict, event: RunCancelled) -> None:
    if event.rank not in run["cancelled_ranks"]:
        run["cancelled_ranks"].append(event.rank)


def unfinished(run: dict) -> list[int]:
    """Group ranks that have neither finished nor stopped on a cancel."""
    return [r for r in run["group"] if str(r) not in run["results"] and r not in run["cancelled_ranks"]]


def conclude(run: dict, state: str, error: str | None = None) -> None:
    """End the run: its final state, and the figures its results give."""
    run["state"] = "cancelled" if run["cancel_requested"] and state == "done" else state
    run["finished_at"] = time.time()
    if error and run["error"] is None:
        run["error"] = error
    results = list(run["results"].values())
    verdicts = [r["verified"] for r in results if r["verified"] is not None]
    run["verified"] = all(verdicts) if verdicts else None
    per_iteration = [r["timings"]["iterations"] for r in results if r["timings"]["iterations"]]
    if per_iteration and len({len(t) for t in per_iteration}) == 1:
        slowest = [max(ts) for ts in zip(*per_iteration)]
        run["time"] = statistics.median(slowest)
        spec = RunSpec(**run["spec"])
        p = len(run["group"])
        size = C.message_bytes(spec.collective, effective_count(spec), ITEMSIZE[effective_dtype(spec)], p)
        run["algbw"] = size / run["time"] if run["time"] > 0 else None
        run["busbw"] = run["algbw"] * C.BUS_FACTOR[spec.collective](p) if run["algbw"] is not None else None
    run["traffic"] = traffic(run)


def traffic(run: dict) -> dict | None:
    """Bytes per rank and the busiest link, counted by the simulator over the run's
    schedule in global ranks. None for a native run: only the backend knows its wires."""
    plan = run["schedule"]
    if plan is None:
        return None
    spec = RunSpec(**run["spec"])
    schedule = Schedule.from_json(plan, run["world_size"])
    moved = simulate.traffic(schedule, effective_count(spec), ITEMSIZE[effective_dtype(spec)]).to_json()
    return {
        "sent": {str(r): moved["sent"][r] for r in run["group"]},
        "received": {str(r): moved["received"][r] for r in run["group"]},
        "total": moved["total"],
        "busiest_link": moved["busiest_link"],
    }
