"""The seed's three all_reduce formulas as the chapter writes them, with a run's N and P put in,
beside what this cluster measured at that N and P: master-worker's (P-1)·N counts what flows
into the master, ring's 2·(N/P)·(P-1) what every rank sends, tree's log2(P)·N what travels
along the tree's depth (the reduce, up from the leaves). Each row also has the two figures
that count the same thing for every algorithm: the total every rank sent, and the busiest
link's bytes, each as simulated over the schedule and as measured. Pure: no server state.

The seed's formulas are its own, not the algorithms' (formulas.py): the chapter counts a
tree's climb only, where the tree's record counts the way up and down."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ringside.server.runs.run import Run
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.algorithms import build, formulas

COLLECTIVE = "all_reduce"


@dataclass(frozen=True)
class Seed:
    algorithm: str
    text: str  # as the seed writes it
    counts: str  # what it counts, in words
    measure: str  # how a run measures it (formulas' kinds)
    bytes: Callable[[int, int], float]  # (N in bytes, P) -> bytes
    put_in: Callable[[int, int], str]  # the text with N (in bytes) and P written in
    phase: str | None = None  # the steps it counts, where not all of them


SEED = (
    Seed(
        "master_worker",
        "(P−1)·N",
        "into the master",
        formulas.RECEIVED_ROOT,
        lambda n, p: (p - 1) * n,
        lambda n, p: f"({p}−1)·{n} B",
    ),
    Seed(
        "ring",
        "2·(N/P)·(P−1)",
        "sent per rank",
        formulas.SENT_EACH,
        lambda n, p: 2 * n * (p - 1) / p,
        lambda n, p: f"2·({n} B/{p})·({p}−1)",
    ),
    Seed(
        "tree",
        "log2(P)·N",
        "along the tree's depth",
        formulas.CRITICAL_PATH,
        lambda n, p: math.log2(p) * n,
        lambda n, p: f"log2({p})·{n} B",
        phase="reduce",
    ),
)


def count_for(count: int, p: int) -> int:
    """The run's element count, made a multiple of P where it is not: ring's N/P must split evenly."""
    return max(p, math.ceil(count / p) * p)


def simulated(algorithm: str, count: int, itemsize: int, p: int) -> dict:
    """What the schedule moves: every rank's sends added up, and the busiest link's bytes."""
    t = simulate.traffic(build(COLLECTIVE, algorithm, p), count, itemsize)
    return {"total": int(t.sent.sum()), "link": int(t.busiest_link[1]) if t.busiest_link else 0}


def measured(run: Run, seed: Seed) -> dict | None:
    """A done run's own figures: what the seed's formula counts, the total sent, the busiest link
    (None for a run with no buffer to size its chunks by)."""
    if run.display is None or not run.display.itemsize:
        return None
    itemsize = run.display.itemsize
    sent = {int(r): x.bytes_sent for r, x in run.results.items()}
    received = {int(r): x.bytes_received for r, x in run.results.items()}
    root = run.layout.root if run.layout and run.layout.root is not None else run.spec.root
    steps = [s.transfers for s in run.steps if seed.phase in (None, s.phase)]
    chunk_bytes = [(b - a) * itemsize for a, b in run.chunk_bounds]
    link = run.traffic.busiest_link.bytes if run.traffic and run.traffic.busiest_link else 0
    return {
        "counts": formulas.measured(seed.measure, sent, received, root, steps, chunk_bytes),
        "total": sum(sent.values()),
        "link": link,
    }
