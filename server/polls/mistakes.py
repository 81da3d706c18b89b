"""The wrong choices of a question of what a rank holds: the mistakes a student makes, each worked
out exactly, from the buffers the run reported (a step early or late, another rank's, its input, the
end) or from the simulator running the run's schedule as the mistake would have it (the wrong op, a
chunk not yet combined, copied over instead of combined, sent the other way round). Each is named,
and a few are picked so that the choices alone do not point at the right one: neither the value most
choices hold at each place nor the choice nearest all the others is the answer, where some pick of
the mistakes avoids it (each mistake is the right buffer changed a little, so the right one sits in
the middle of them unless the pick is made with care)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Literal

import numpy as np
from pydantic import BaseModel

from ringside.server.runs.run import Run
from ringside.worker_agent.core import simulate
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.schedule import Schedule, Step

WRONG = 4  # wrong choices a holds question offers beside the right one, where the run gives as many
SHOWN = 8  # values a choice shows
POOL = 10  # mistakes, the most telling first, among which the wrong choices are picked
Kind = Literal["early", "late", "inputs", "final", "rank", "op", "own", "copied", "added", "mirrored"]
# the ops a student confuses with the run's
CONFUSED = {
    "SUM": ("MAX", "PRODUCT"),
    "AVG": ("SUM",),
    "PRODUCT": ("SUM",),
    "MAX": ("MIN", "SUM"),
    "MIN": ("MAX", "SUM"),
    "BAND": ("BOR",),
    "BOR": ("BAND",),
    "BXOR": ("BOR",),
}


class Mistake(BaseModel):
    """What a wrong choice got wrong (the page says it in words at the reveal)."""

    kind: Kind
    rank: int | None = None  # rank: whose buffer it is
    step: int | None = None  # early, late: after which step (0-based)
    op: str | None = None  # op: the op applied instead of the run's (`run_op`)
    run_op: str | None = None


Found = tuple[Mistake, list]  # a mistake and the buffer it gives


def buffer_after(run: Run, rank: int, step: int) -> list | None:
    """Rank `rank`'s whole buffer after step `step` (-1: its inputs): a step reports only the
    chunks it changed, laid over what the rank held before. None unless captured in full."""
    chunks = {c.chunk: c.values for c in run.inputs.get(str(rank), [])}
    for done in run.steps[: step + 1]:
        mine = done.ranks.get(str(rank))
        chunks.update({c.chunk: c.values for c in (mine.states if mine else [])})
    whole = [values for _, values in sorted(chunks.items()) if values is not None]
    if not chunks or len(whole) < len(chunks):
        return None
    return [v for values in whole for v in values]


def shown(values: list) -> str:
    words = [f"{v:g}" if isinstance(v, float) else str(v) for v in values[:SHOWN]]
    return " · ".join(words) + (" …" if len(values) > SHOWN else "")


# --- the mistakes, worked out ----------------------------------------------------------------------


def found(run: Run, rank: int, step: int, right: list) -> list[Found]:
    """Every mistake this run gives for `rank` after `step`, the most telling first."""
    return [
        *_reported(run, rank, step, kinds=("early", "late")),
        *_others(run, rank, step),
        *_simulated(run, rank, step, right),
        *_reported(run, rank, step, kinds=("inputs", "final")),
    ]


def _reported(run: Run, rank: int, step: int, kinds: tuple[Kind, ...]) -> Iterator[Found]:
    last = len(run.steps) - 1
    at: dict[Kind, tuple[int, Mistake]] = {
        "early": (step - 1, Mistake(kind="early", step=step - 1)),
        "late": (step + 1, Mistake(kind="late", step=step + 1)),
        "inputs": (-1, Mistake(kind="inputs")),
        "final": (last, Mistake(kind="final")),
    }
    for kind in kinds:
        s, mistake = at[kind]
        if kind == "early" and s < 0:
            continue  # before the first step: the input, said as such
        values = buffer_after(run, rank, s) if s <= last else None
        if values is not None:
            yield mistake, values


def _others(run: Run, rank: int, step: int) -> Iterator[Found]:
    """Other ranks' buffers after the same step, the nearest round the group first."""
    me, p = run.group.index(rank), len(run.group)
    for d in sorted(range(1, p), key=lambda d: min(d, p - d)):
        other = run.group[(me + d) % p]
        values = buffer_after(run, other, step)
        if values is not None:
            yield Mistake(kind="rank", rank=other), values


def _simulated(run: Run, rank: int, step: int, right: list) -> Iterator[Found]:
    """The run's schedule run as a mistake would have it, from its reported inputs: only where the
    simulator, run as it ran, gives the right buffer as the run reported it (else a mistake would
    differ in its rounding, not in what it got wrong)."""
    schedule = run.stepwise(in_group=True)
    start = _inputs(run)
    if schedule is None or start is None:
        return
    count = get(run.spec.collective, run.spec.servers).count(run.spec)
    me = run.group.index(rank)

    def after(s: Schedule, op: str | None = run.op) -> list:
        return _after(s, start, count, op, step)[me].tolist()

    if shown(after(schedule)) != shown(right):
        return
    if run.op is not None:
        for op in CONFUSED.get(run.op, ()):
            yield Mistake(kind="op", op=op, run_op=run.op), after(schedule, op)
        yield Mistake(kind="own"), after(_rows(schedule, lambda t: ~((t[:, 1] == me) & (t[:, 4] == 1))))
        yield Mistake(kind="copied"), after(_flagged(schedule, 0))
    else:
        yield Mistake(kind="added"), after(_flagged(schedule, 1), "SUM")
    mirrored = _mirrored(schedule, start, count, run.op)
    if mirrored is not None:
        yield Mistake(kind="mirrored"), after(mirrored)


def _inputs(run: Run) -> np.ndarray | None:
    rows = [buffer_after(run, r, -1) for r in run.group]
    if any(row is None for row in rows) or len({len(row or []) for row in rows}) != 1:
        return None
    return np.array(rows)


def _after(schedule: Schedule, start: np.ndarray, count: int, op: str | None, step: int) -> np.ndarray:
    buffers = start.copy()
    for s, _ in enumerate(simulate.states(schedule, buffers, count, op)):
        if s == step:
            break
    return buffers


def _rows(schedule: Schedule, keep: Callable[[np.ndarray], np.ndarray]) -> Schedule:
    """The schedule with only the transfers `keep` (a mask over a step's table) keeps."""
    steps = tuple(Step(s.phase, s.caption, s.table[keep(s.table)]) for s in schedule.steps)
    return replace(schedule, steps=steps)


def _flagged(schedule: Schedule, reduce: int) -> Schedule:
    """Every transfer copies (0) or combines (1)."""
    steps = []
    for s in schedule.steps:
        table = s.table.copy()
        table[:, 4] = reduce
        steps.append(Step(s.phase, s.caption, table))
    return replace(schedule, steps=tuple(steps))


def _mirrored(schedule: Schedule, start: np.ndarray, count: int, op: str | None) -> Schedule | None:
    """The schedule the other way round: each rank's part played by its mirror image across the root
    (the neighbour on the other side of the ring or tree), the chunks that follow the ranks mirrored
    with them; the first such that still does the collective (the same outputs), else none."""
    p = schedule.world_size
    mirror = (2 * schedule.root - np.arange(p)) % p

    def mirrored_index(index: np.ndarray, size: int) -> np.ndarray:
        return (index // p) * p + mirror[index % p] if size % p == 0 else index

    whole = simulate.outputs(schedule, _after(schedule, start, count, op, len(schedule.steps)), count, op, 1)
    for blocks, pieces in ((True, False), (False, True), (False, False), (True, True)):
        steps = []
        for s in schedule.steps:
            t = s.table.copy()
            t[:, :2] = mirror[t[:, :2]]
            for col in (2, 3):
                b, q = t[:, col] // schedule.pieces, t[:, col] % schedule.pieces
                b = mirrored_index(b, schedule.blocks) if blocks else b
                q = mirrored_index(q, schedule.pieces) if pieces else q
                t[:, col] = b * schedule.pieces + q
            steps.append(Step(s.phase, s.caption, t))
        candidate = replace(schedule, steps=tuple(steps))
        ran = simulate.outputs(candidate, _after(candidate, start, count, op, len(steps)), count, op, 1)
        if all(_same(a, b) for a, b in zip(ran, whole, strict=True)):
            return candidate
    return None


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return np.array_equal(a, b)


# --- the pick ---------------------------------------------------------------------------------------


def wrong_choices(right: list, mistakes: list[Found]) -> list[tuple[str, Mistake]]:
    """Up to WRONG of the mistakes, as shown, distinct from each other and from the right one, picked
    so that the choices' majority and their medoid point at the right one least, and as many kinds of
    mistake as can be shown (the most telling first, where picks tie)."""
    seen, pool = {shown(right)}, []
    for mistake, values in mistakes:
        words = shown(values)
        if words not in seen:
            seen.add(words)
            pool.append((words, mistake))
    pool = pool[:POOL]
    right_words = shown(right)

    def cost(pick: tuple[int, ...]) -> tuple[float, int, int, int]:
        choices = [right_words, *(pool[i][0] for i in pick)]
        kinds = len({pool[i][1].kind for i in pick})
        return sum(guess(choices)[0] for guess in GUESSES), -len(pick), -kinds, sum(pick)

    # fewer choices where more would set the right one in their middle (a broadcast's buffers differ
    # only in how many of its pieces have arrived: the right one lies between a step early and late)
    sizes = range(min(1, len(pool)), WRONG + 1)
    picks = (p for k in sizes for p in itertools.combinations(range(len(pool)), k))
    best = min(picks, key=cost, default=())
    return [pool[i] for i in best]


# --- what a student could read from the choices alone ------------------------------------------------


def _values(choice: str) -> list[str]:
    return choice.removesuffix(" …").split(" · ")


def _shares(winners: list[bool]) -> list[float]:
    """Each choice's chance of being the guess, where the guess is one of the winners at random."""
    n = sum(winners)
    return [w / n for w in winners]


def by_majority(choices: list[str]) -> list[float]:
    """The choice holding, at most places, the value most choices hold there."""
    rows = [_values(c) for c in choices]
    places = [Counter(column) for column in itertools.zip_longest(*rows)]
    agree = [sum(c[v] == max(c.values()) for c, v in zip(places, row, strict=False)) for row in rows]
    return _shares([a == max(agree) for a in agree])


def _nearest(choices: list[str], distance: Callable[[list[str], list[str]], float]) -> list[float]:
    rows = [_values(c) for c in choices]
    total = [sum(distance(a, b) for b in rows) for a in rows]
    return _shares([t == min(total) for t in total])


def _differing(a: list[str], b: list[str]) -> float:
    return sum(x != y for x, y in itertools.zip_longest(a, b))


def _apart(a: list[str], b: list[str]) -> float:
    try:
        return sum(abs(float(x) - float(y)) for x, y in zip(a, b, strict=True))
    except ValueError:
        return _differing(a, b)


def by_medoid(choices: list[str]) -> list[float]:
    """The choice nearest all the others: fewest values differing from them."""
    return _nearest(choices, _differing)


def by_closeness(choices: list[str]) -> list[float]:
    """The choice nearest all the others, by how far its values are from theirs."""
    return _nearest(choices, _apart)


GUESSES = (by_majority, by_medoid, by_closeness)  # each gives every choice's chance of being the guess
