"""The seed's three all_reduce formulas as the chapter writes them, with a run's N and P put in,
beside what this cluster measured at that N and P: master-worker's (P-1)·N counts what flows
into the master, ring's 2·(N/P)·(P-1) what every rank sends, tree's log2(P)·N what travels
along the tree's depth (the reduce, up from the leaves). Each row also has the two figures
that count the same thing for every algorithm: the total every rank sent, and the busiest
link's bytes, each as simulated over the schedule and as measured. Pure: no server state."""

from __future__ import annotations

import math

from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.algorithms import build, formulas

from .runs import Run

COLLECTIVE = "all_reduce"
# algorithm, formula as the seed writes it, what it counts
SEED = (("master_worker", "(P−1)·N", "into the master"),
        ("ring", "2·(N/P)·(P−1)", "sent per rank"),
        ("tree", "log2(P)·N", "along the tree's depth"))
UP = "reduce"  # the tree's phase that climbs its depth


def count_for(count: int, p: int) -> int:
    """The run's element count, made a multiple of P where it is not: ring's N/P must split evenly."""
    return max(p, math.ceil(count / p) * p)


def put_in(algorithm: str, n: int, p: int) -> str:
    """The formula with N (bytes) and P written in: "(4−1)·16 B"."""
    written = {"master_worker": f"({p}−1)·{n} B", "ring": f"2·({n} B/{p})·({p}−1)"}
    return written.get(algorithm, f"log2({p})·{n} B")


def value(algorithm: str, n: int, p: int) -> float:
    """The seed's formula in bytes; the tree's is whole only where P is a power of two."""
    if algorithm == "master_worker":
        return (p - 1) * n
    if algorithm == "ring":
        return 2 * n * (p - 1) / p
    return math.log2(p) * n


def simulated(algorithm: str, count: int, itemsize: int, p: int) -> dict:
    """What the schedule moves: every rank's sends added up, and the busiest link's bytes."""
    t = simulate.traffic(build(COLLECTIVE, algorithm, p), count, itemsize)
    return {"total": int(t.sent.sum()), "link": int(t.busiest_link[1]) if t.busiest_link else 0}


def measured(run: Run, algorithm: str) -> dict:
    """A done run's own figures: what the seed's formula counts, the total sent, the busiest link."""
    results = run.results
    sent = {int(r): x.bytes_sent for r, x in results.items()}
    received = {int(r): x.bytes_received for r, x in results.items()}
    if algorithm == "master_worker":
        counts = received[run.layout.root if run.layout and run.layout.root is not None else run.spec.root]
    elif algorithm == "ring":
        counts = max(sent.values())
    else:
        chunk_bytes = [(b - a) * run.display.itemsize for a, b in run.chunk_bounds]
        counts = formulas.critical_path([s.transfers for s in run.steps if s.phase == UP], chunk_bytes)
    link = run.traffic.busiest_link.bytes if run.traffic and run.traffic.busiest_link else 0
    return {"counts": counts, "total": sum(sent.values()), "link": link}
