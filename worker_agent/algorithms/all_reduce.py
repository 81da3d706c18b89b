"""all_reduce schedules: every rank ends with the op over every rank's buffer."""

from __future__ import annotations

from ..schedule import Schedule
from . import ring as _ring


def ring(p: int, root: int = 0, chunks: int = 1) -> Schedule:
    """Reduce-scatter then all-gather around the ring: each rank sends 2(P-1)/P of the buffer.

    The buffer is cut into P segments of `chunks` chunks each."""
    segments = _ring.segments_of(p, chunks)
    steps = _ring.reduce_scatter_steps(p, segments) + _ring.all_gather_steps(p, segments)
    return Schedule("all_reduce", "ring", p, root, blocks=1, pieces=p * chunks, steps=tuple(steps))
