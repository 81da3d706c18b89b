"""The compare view's data: how the bytes of master-worker, ring and tree all_reduce grow with
P (2..64, counted by the simulator over their schedules), and the points this cluster measured.
Everything is in units of N, the bytes of one rank's buffer, so runs of any size sit on the
same curves. Bytes answer a poll's questions: while a poll holds runs of these collectives, the
room waits for the reveal (polls/visibility.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from ringside.server.compare import seed_formulas as seed
from ringside.server.door.auth import is_presenter, need_viewer
from ringside.server.door.errors import refuse
from ringside.server.polls.visibility import Visibility, visibility_of
from ringside.server.runs.run import Run
from ringside.server.runs.service import Runs, runs_of
from ringside.server.runs.store import RunStore, run_store_of
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.algorithms import build, formulas
from ringside.worker_agent.core.algorithms import parameter_server as ps
from ringside.worker_agent.core.collectives import parameter_server as ps_collective
from ringside.worker_agent.core.protocol import RunSpec
from ringside.worker_agent.core.validation import SpecError, validate

router = APIRouter()

COLLECTIVE = "all_reduce"
ALGORITHMS = ("master_worker", "ring", "tree")  # the three a lecture sets side by side
# and the parameter server they replaced, one server
SERVER = (ps_collective.PARAMETER_SERVER.name, ps.NAME, 1)
WORLDS = range(2, 65)
PER_ELEMENT = 1  # byte: with count = N elements, a byte count divided by count is in units of N


def _figures(sent: list[int], received: list[int], busiest: int, n: int) -> dict:
    """The busiest rank's bytes (the more of what it sends and receives) and the busiest link's, over N."""
    return {"per_rank": max(max(sent), max(received)) / n, "busiest_link": busiest / n}


@lru_cache(maxsize=1)
def curves() -> list[dict]:
    """Per algorithm, its figures at every P in WORLDS: [{collective, algorithm, p, per_rank,
    busiest_link}]."""
    out = []
    for algorithm in ALGORITHMS:
        points: dict[str, list[float]] = {"p": [], "per_rank": [], "busiest_link": []}
        for p in WORLDS:
            count = 64 * p  # splits evenly into every schedule's pieces
            t = simulate.traffic(build(COLLECTIVE, algorithm, p), count, PER_ELEMENT)
            figures = _figures(
                t.sent.tolist(), t.received.tolist(), t.busiest_link[1] if t.busiest_link else 0, count
            )
            points["p"].append(p)
            for k, v in figures.items():
                points[k].append(v)
        out.append({"collective": COLLECTIVE, "algorithm": algorithm, "label": algorithm, **points})
    collective, algorithm, servers = SERVER
    points = {"p": [], "per_rank": [], "busiest_link": []}
    for p in WORLDS:
        count = 64 * p  # the model, N elements: one block, with one server
        t = simulate.traffic(build(collective, algorithm, p, 0, 1, servers), count, PER_ELEMENT)
        figures = _figures(
            t.sent.tolist(), t.received.tolist(), t.busiest_link[1] if t.busiest_link else 0, count
        )
        points["p"].append(p)
        for k, v in figures.items():
            points[k].append(v)
    out.append(
        {
            "collective": collective,
            "algorithm": algorithm,
            "label": f"parameter server (S={servers})",
            **points,
        }
    )
    return out


def measured(run: Run) -> dict | None:
    """A done run's point: P, and its ranks' own byte counts over N (the busiest link as simulated)."""
    if not run.results or run.traffic is None:
        return None
    n = run.spec.count * (run.display.itemsize if run.display and run.display.itemsize else 4)
    sent = [r.bytes_sent for r in run.results.values()]
    received = [r.bytes_received for r in run.results.values()]
    link = run.traffic.busiest_link.bytes if run.traffic.busiest_link else 0
    return {
        "collective": run.spec.collective,
        "algorithm": run.spec.algorithm,
        "p": len(run.group),
        "run": run.id,
        **_figures(sent, received, link, n),
    }


@router.get("/api/compare", dependencies=[Depends(need_viewer)])
async def get_compare(
    store: Annotated[RunStore, Depends(run_store_of)],
    visibility: Annotated[Visibility, Depends(visibility_of)],
    presenter: Annotated[bool, Depends(is_presenter)],
) -> dict:
    visibility.check_figures((COLLECTIVE, SERVER[0]), presenter)
    series = await asyncio.to_thread(curves)  # the first call builds 189 schedules: off the event loop
    shown = [(COLLECTIVE, a, None) for a in ALGORITHMS] + [SERVER]
    runs = [store.newest_done(c, a) for c, a, _ in shown]
    # on its curve
    points = [measured(run) for run in runs if run is not None and run.spec.servers in (None, SERVER[2])]
    return {
        "unit": "N (bytes of one rank's buffer: the model)",
        "series": series,
        "measured": [p for p in points if p],
    }


@router.get("/api/compare/beside", dependencies=[Depends(need_viewer)])
async def get_beside(
    run: Annotated[str, Query(max_length=40)],
    runs: Annotated[Runs, Depends(runs_of)],
    store: Annotated[RunStore, Depends(run_store_of)],
    visibility: Annotated[Visibility, Depends(visibility_of)],
    presenter: Annotated[bool, Depends(is_presenter)],
) -> dict:
    """The chapter's table for a parameter-server run: its formula and measured bytes beside
    ring's, tree's and master-worker's all_reduce for the same N and P, each measured by this
    cluster's newest done run of that shape (and the spec that runs it, where none is)."""
    visibility.check_figures((COLLECTIVE, SERVER[0]), presenter)
    shown = runs.find(run)
    if shown is None:
        raise refuse(404, "run", f"no run {run!r}")
    if not shown.layout or not shown.layout.servers or not shown.display or not shown.display.itemsize:
        raise refuse(422, "run", f"{run} is not a parameter-server run")
    spec, p = shown.spec, len(shown.group)
    model_bytes = spec.count * shown.display.itemsize
    own = shown.display.formula.model_dump() if shown.display.formula else {}
    rows = [
        {
            "algorithm": spec.algorithm,
            "label": f"parameter server (S={spec.servers or 1})",
            "run": shown.id,
            **own,
        }
    ]
    for algorithm in ALGORITHMS:
        same = store.newest_done(COLLECTIVE, algorithm, spec.count, spec.dtype, p)
        formula: Mapping[str, object] = (
            formulas.evaluate(COLLECTIVE, algorithm, model_bytes, p, 1, elements=spec.count) or {}
        )
        mine = same.display.formula if same is not None and same.display and same.display.formula else None
        ask: dict[str, object] = {
            "collective": COLLECTIVE,
            "algorithm": algorithm,
            "count": spec.count,
            "dtype": spec.dtype,
            "group": shown.group if len(shown.group) < shown.world_size else None,
        }
        why = None if formula else f"{spec.count} elements do not split into {p} equal chunks, one a rank"
        offered: dict[str, object] | None = ask
        try:  # what cannot run at this N and P is said, not offered
            validate(RunSpec(**ask), shown.world_size, shown.backend)
        except SpecError as e:
            offered, why = None, e.message
        rows.append(
            {
                "algorithm": algorithm,
                "label": algorithm,
                "run": same.id if same else None,
                **formula,
                "measured": mine.measured if mine else None,
                "spec": offered,
                "why": why,
            }
        )
    return {"n": model_bytes, "p": p, "rows": rows}


@router.get("/api/compare/formulas", dependencies=[Depends(need_viewer)])
async def get_formulas(
    run: Annotated[str, Query(max_length=40)],
    runs: Annotated[Runs, Depends(runs_of)],
    store: Annotated[RunStore, Depends(run_store_of)],
    visibility: Annotated[Visibility, Depends(visibility_of)],
    presenter: Annotated[bool, Depends(is_presenter)],
) -> dict:
    """The seed's three all_reduce formulas for the N and P of run `run` (any run: its buffer is N),
    each beside this cluster's newest done run of that algorithm at that N and P, and the spec that
    runs it where there is none (or why it cannot run)."""
    visibility.check_figures((COLLECTIVE,), presenter)
    shown = runs.find(run)
    if shown is None:
        raise refuse(404, "run", f"no run {run!r}")
    if not shown.display or not shown.display.itemsize:
        raise refuse(422, "run", f"{run} has no buffer to size N by")
    p, itemsize, dtype = len(shown.group), shown.display.itemsize, shown.spec.dtype
    count = seed.count_for(shown.spec.count, p)
    rows = []
    for row in seed.SEED:
        algorithm, value = row.algorithm, row.bytes(count * itemsize, p)
        same = store.newest_done(COLLECTIVE, algorithm, count, dtype, p)
        ask: dict[str, object] = {
            "collective": COLLECTIVE,
            "algorithm": algorithm,
            "count": count,
            "dtype": dtype,
            "group": shown.group if p < shown.world_size else None,
            "pattern": shown.spec.pattern,
            "purpose": "sweep",
        }
        why = None
        offered: dict[str, object] | None = ask
        try:  # what cannot run at this N and P is said, not offered
            validate(RunSpec(**ask), shown.world_size, shown.backend)
        except SpecError as e:
            offered, why = None, e.message
        rows.append(
            {
                "algorithm": algorithm,
                "formula": row.text,
                "counts": row.counts,
                "put_in": row.put_in(count * itemsize, p),
                "value": value,
                "exact": float(value).is_integer(),
                "simulated": await asyncio.to_thread(seed.simulated, algorithm, count, itemsize, p),
                "measured": seed.measured(same, row) if same else None,
                "run": same.id if same else None,
                "spec": None if same else offered,
                "why": why,
            }
        )
    return {
        "n": count * itemsize,
        "count": count,
        "itemsize": itemsize,
        "p": p,
        "resized": count != shown.spec.count,
        "rows": rows,
    }
