"""What a cluster can run, as the page builds its controls from it: every collective with
its algorithms in the page's order, the ops, dtypes, patterns and captures, and the limits.
"""

from __future__ import annotations

from typing import get_args

from .algorithms import AUTO, CUSTOM, algorithms, build
from .collectives import COLLECTIVES
from .protocol import AUTO_CHUNKS, MAX_FULL_CAPTURE, MAX_STEPS, MAX_TRANSFERS, Capture, Pattern
from .schedule import ScheduleError
from .validation import buffer_cap
from .vocabulary import DTYPES, OPS

LECTURE_ALGORITHM = "ring"  # the README's "press all_reduce, pick ring"; the seeds' first algorithm


def lecture_algorithm(collective: str) -> str:
    """What the page opens a collective on: ring where it has one, else its last stepwise
    algorithm (its list ends with native, which draws no transfers)."""
    names = [a.name for a in algorithms(collective)]
    return LECTURE_ALGORITHM if LECTURE_ALGORITHM in names else names[-1]


def catalog(backend: str, world_size: int) -> dict[str, object]:
    """What the frontend builds its controls from."""
    return {
        "backend": backend,
        "world_size": world_size,
        "collectives": [
            {
                "name": c.name,
                # auto: the server picks (predict.py); one written for another world size is not offered
                "algorithms": [a.name for a in algorithms(c.name) if a.fits(world_size)],
                "lecture": lecture_algorithm(c.name),  # what a lecture opens it on
                "reduces": c.reduces,
                "rooted": c.rooted,
                "peer": c.has_peer,
                "servers": c.has_servers,
                # the stage draws each rank's arrival, not values (a barrier): no data to speak of
                "arrivals": c.arrivals,
                # the perturbation a lecture runs it with: a barrier's ranks arriving one after another
                "lecture_perturb": (
                    {"stagger": {"delay_s": c.lecture_stagger_s}} if c.lecture_stagger_s else None
                ),
                "pieces": pieces_of(c.name, world_size),
            }
            for c in COLLECTIVES.values()
        ],
        "ops": [name for name, op in OPS.items() if backend in op.backends],
        "bitwise_ops": sorted(name for name, op in OPS.items() if op.bitwise),
        "dtypes": list(DTYPES),
        "integer_dtypes": sorted(name for name, dtype in DTYPES.items() if dtype.integer),
        "patterns": list(get_args(Pattern)),
        "captures": list(get_args(Capture)),
        "max_buffer_bytes": buffer_cap(backend),
        "max_full_capture": MAX_FULL_CAPTURE,
        "custom": {"algorithm": CUSTOM, "max_steps": MAX_STEPS, "max_transfers": MAX_TRANSFERS},
        # resolved by the server's model when a run is submitted
        "auto": {"algorithm": AUTO, "chunks": AUTO_CHUNKS},
    }


def pieces_of(collective: str, world_size: int) -> dict[str, int]:
    """The chunks each built algorithm cuts a block into at this world size (chunks=1), so the
    page can choose a count that puts one or two values in every chunk (the lecture preset).
    Left out beyond a lecture's world sizes, where building every schedule costs too much."""
    if not 1 <= world_size <= 64:
        return {}
    out = {}
    for record in algorithms(collective):
        if not record.built or not record.fits(world_size):
            continue
        try:
            out[record.name] = build(collective, record.name, world_size).pieces
        except (ValueError, ScheduleError):  # an algorithm that needs another world size
            continue
    return out
