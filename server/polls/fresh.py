"""Fresh inputs for a question asked before its run. A run every page saw earlier with the same plan
and inputs (a rehearsal) shows the sealed run's answer, value for value. Where the inputs come from a
seeded pattern, the sealed run draws a seed no run of its shape used, one under which the question's
answer differs from the rehearsal's; where they are fixed (typed in, as a lesson's stage gives them,
or a pattern that reads no seed) the rehearsals are held from the room until the reveal instead
(asking.py).

Why a pattern that reads no seed ("index", "digits", "origin" …) stays as asked, rather than turning
into a random one: the lecturer picked it to be read (r2c3 says where a value came from, powers of ten
keep a sum's terms apart), and that reading is what the question is about."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable

import numpy as np

from ringside.server.polls.mistakes import shown
from ringside.server.polls.questions import Asked
from ringside.server.runs.run import Run
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.preview import input_states
from ringside.worker_agent.core.protocol import RunSpec

SEEDED = ("random_int", "random_float")  # the patterns whose values the seed draws (inputs.py)
SEEDS = secrets.SystemRandom()
MAX_DRAWN = 1 << 31  # a seed drawn is below this: one a lecturer can read and type back
TRIES = 8  # seeds drawn before the inputs count as fixed (a buffer no input reaches: zeros)


def seeded(spec: RunSpec) -> bool:
    """Whether a seed draws this run's inputs (none typed in, a pattern that reads the seed)."""
    return spec.inputs is None and spec.pattern in SEEDED


def drawn(asked: Asked, main: Run, used: Iterable[int], plan: Callable[[RunSpec], Run]) -> Run | None:
    """`main` planned again on a seed no run in `used` had, under which the question reads another
    answer than `main`'s own inputs give, in the choice and in the number typed; None where no seed
    drawn does (the inputs are fixed then)."""
    seen, before = set(used), _answer(asked, main)
    for _ in range(TRIES):
        seed = SEEDS.randrange(1, MAX_DRAWN)
        if seed in seen:
            continue
        seen.add(seed)
        fresh = plan(main.spec.model_copy(update={"seed": seed}))
        after = _answer(asked, fresh)
        if before is None or after is None or all(a != b for a, b in zip(after, before, strict=True)):
            return fresh
    return None


def _answer(asked: Asked, run: Run) -> tuple | None:
    """What the question reads of the run's planned values: the buffer's words as a choice shows them
    and, where a number may be typed, the element typed; None where the plan gives no values."""
    rank, step = asked.rank or 0, asked.step or 0
    buffer = planned_buffer(run, rank, step)
    if buffer is None:
        return None
    typed = asked.numeric and asked.element < len(buffer)
    return (shown(buffer), buffer[asked.element]) if typed else (shown(buffer),)


def planned_buffer(run: Run, rank: int, step: int) -> list | None:
    """Rank `rank`'s whole buffer after step `step`, as the simulator runs the plan over its inputs
    (buffer_after reads it from what the ranks reported, once the run has run)."""
    schedule, states = run.stepwise(in_group=True), input_states(run.spec, run.world_size)
    if schedule is None or rank not in states or rank not in run.group:
        return None
    rows = [[v for s in states[r] for v in s.values or []] for r in run.group]
    if len({len(row) for row in rows}) != 1:  # a rank's values not all captured
        return None
    buffers = np.array(rows)
    count = get(run.spec.collective, run.spec.servers).count(run.spec)
    for s, after in enumerate(simulate.states(schedule, buffers, count, run.op)):
        if s == step:
            return after[run.group.index(rank)].tolist()
    return None
