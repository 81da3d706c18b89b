"""What a phone practising a run is asked before each step, and the truth it is graded by.

Each step asks about one cell it changes, the same for every page, so that the room's answers to a
step are comparable: of the cells the step's transfers write (in order of rank, then chunk), the
(k+1)-th for step k, counted round, so that the ranks asked about differ from step to step. What is
predicted is that chunk's first value after the step, and the truth is what the rank reported of it:
the run's recorded states, never a recomputation. A cell whose value was not recorded (an empty
chunk, a value that is no finite number) is not asked; a step without such a cell asks nothing."""

from __future__ import annotations

import math

from pydantic import BaseModel

from ringside.server.runs.run import Run
from ringside.worker_agent.core.protocol import ChunkState


class Cell(BaseModel):
    """The cell step `step` (0-based) asks about: `rank`'s chunk `chunk`, its first value."""

    step: int
    rank: int
    chunk: int


def first_value(state: ChunkState | None) -> float | None:
    """The first value a chunk's reported state holds: every value at capture full, else its preview."""
    if state is None:
        return None
    values = state.values if state.values is not None else state.preview
    first = float(values[0]) if values else math.nan
    return first if math.isfinite(first) else None  # an infinity or NaN is no number to type


def held(run: Run, rank: int, chunk: int, step: int) -> float | None:
    """The first value of `rank`'s `chunk` after `step`, as the rank reported it (its latest report of
    that chunk at or before the step, else its input)."""
    for done in reversed(run.steps[: step + 1]):
        report = done.ranks.get(str(rank))
        state = next((s for s in report.states if s.chunk == chunk), None) if report else None
        if state is not None:
            return first_value(state)
    return first_value(next((s for s in run.inputs.get(str(rank), []) if s.chunk == chunk), None))


def asked(run: Run) -> list[Cell | None]:
    """The cell each step of the run asks about, or None where it asks nothing."""
    return [_asked(run, k) for k in range(len(run.steps))]


def _asked(run: Run, k: int) -> Cell | None:
    written = sorted({(t[1], t[3]) for t in run.steps[k].transfers})
    for i in range(len(written)):  # from the (k+1)-th on, round, to one whose value was recorded
        rank, chunk = written[(k + 1 + i) % len(written)]
        if held(run, rank, chunk, k) is not None:
            return Cell(step=k, rank=rank, chunk=chunk)
    return None


def right(typed: float, truth: float) -> bool:
    """Whether a prediction is the value: as printed, a float run's value is rounded."""
    return math.isclose(typed, truth, rel_tol=1e-6, abs_tol=1e-9)
