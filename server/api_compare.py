"""The compare view's data: how the bytes of master-worker, ring and tree all_reduce grow with
P (2..64, counted by the simulator over their schedules), and the points this cluster measured.
Everything is in units of N, the bytes of one rank's buffer, so runs of any size sit on the
same curves."""

from __future__ import annotations

import asyncio
from functools import lru_cache
from typing import Annotated

from fastapi import APIRouter, Depends
from ringside.worker_agent import simulate
from ringside.worker_agent.algorithms import build

from .auth import need_viewer
from .hub import Hub, hub_of
from .runs import Run

router = APIRouter()

COLLECTIVE = "all_reduce"
ALGORITHMS = ("master_worker", "ring", "tree")  # the three a lecture sets side by side
WORLDS = range(2, 65)
PER_ELEMENT = 1  # byte: with count = N elements, a byte count divided by count is in units of N


def _figures(sent: list[int], received: list[int], busiest: int, n: int) -> dict:
    """The busiest rank's bytes (the more of what it sends and receives) and the busiest link's, over N."""
    return {"per_rank": max(max(sent), max(received)) / n, "busiest_link": busiest / n}


@lru_cache(maxsize=1)
def curves() -> list[dict]:
    """Per algorithm, its figures at every P in WORLDS: [{collective, algorithm, p, per_rank, busiest_link}]."""
    out = []
    for algorithm in ALGORITHMS:
        points = {"p": [], "per_rank": [], "busiest_link": []}
        for p in WORLDS:
            count = 64 * p  # splits evenly into every schedule's pieces
            t = simulate.traffic(build(COLLECTIVE, algorithm, p), count, PER_ELEMENT)
            figures = _figures(t.sent.tolist(), t.received.tolist(), t.busiest_link[1] if t.busiest_link else 0, count)
            points["p"].append(p)
            for k, v in figures.items():
                points[k].append(v)
        out.append({"collective": COLLECTIVE, "algorithm": algorithm, **points})
    return out


def measured(run: Run) -> dict | None:
    """A done run's point: P, and its ranks' own byte counts over N (the busiest link as simulated)."""
    if not run.results or run.traffic is None:
        return None
    n = run.spec.count * (run.display or {}).get("itemsize", 4)
    sent = [r.bytes_sent for r in run.results.values()]
    received = [r.bytes_received for r in run.results.values()]
    link = run.traffic.busiest_link.bytes if run.traffic.busiest_link else 0
    return {"collective": COLLECTIVE, "algorithm": run.spec.algorithm, "p": len(run.group), "run": run.id,
            **_figures(sent, received, link, n)}


@router.get("/api/compare", dependencies=[Depends(need_viewer)])
async def get_compare(hub: Annotated[Hub, Depends(hub_of)]) -> dict:
    series = await asyncio.to_thread(curves)  # the first call builds 189 schedules: off the event loop
    points = [measured(run) for a in ALGORITHMS if (run := hub.store.newest_done(COLLECTIVE, a)) is not None]
    return {"unit": "N (bytes of one rank's buffer)", "series": series, "measured": [p for p in points if p]}
