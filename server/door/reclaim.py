"""Memory a flood of connections held, given back once they have gone. A connection's objects
(uvicorn's and h11's, with the bytes a client sent that were never read) sit in reference
cycles, which Python frees only at a full collection, and it runs one rarely; and what was
freed stays in glibc's heap unless it is trimmed. So 1,000 stalled bodies kept 160 MB after
their sockets closed, and each flood's peak stayed. Once RECLAIM_AFTER connections have closed,
a collection and a trim run RECLAIM_AFTER_S later (a flood in progress coalesces into one)."""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc

RECLAIM_AFTER = 64  # connections closed since the last reclaim
RECLAIM_AFTER_S = 2.0
# allocations between young collections (CPython's 700): anything that lived a few ms then (a report
# queued, a hang check's waits) reached the oldest generation, whose collection walks every socket's
# objects (800,000 with 4,096 ranks watched): it held the loop 0.4 s every 2 s while such a job hung
YOUNG_COLLECTION = 100_000


def _trim():
    """glibc's malloc_trim (which hands the heap's free pages back), or None where there is none."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


class Reclaim:
    def __init__(self) -> None:
        self.closed = 0
        self.pending: asyncio.TimerHandle | None = None
        self.trim = _trim()
        self.runs = 0  # reclaims so far (what /metrics may show)

    def closed_one(self, loop: asyncio.AbstractEventLoop) -> None:
        self.closed += 1
        if self.closed >= RECLAIM_AFTER and self.pending is None:
            self.pending = loop.call_later(RECLAIM_AFTER_S, self.run)

    def run(self) -> None:
        self.pending, self.closed = None, 0
        gc.collect()
        if self.trim is not None:
            self.trim(0)
        self.runs += 1


def freeze() -> None:
    """Move what the server built at start (modules, services) out of the collector's sight: a
    reclaim then scans only what came since, a few milliseconds."""
    gc.collect()
    gc.freeze()


def collect_young_seldom() -> None:
    """Fewer young collections, so that only what lives for seconds grows old: the oldest generation's
    collections, each as long as the server has sockets, come rarely."""
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
