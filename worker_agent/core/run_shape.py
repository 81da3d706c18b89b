"""A run's shape, for the ranks and the server alike: its group, its schedule in group
ranks and as the browser draws it, its chunks, the chunks each rank's input fills, and
how the page places its ranks. Every function takes a spec that validation.py passed.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TypedDict

import numpy as np

from .algorithms import CUSTOM, algorithm_of, build
from .collectives import get
from .protocol import PlanDoc, RunSpec, TransferDoc
from .provenance import check_definition
from .schedule import Schedule, ScheduleError, Step, check
from .schedule import chunk_bounds as split_blocks
from .vocabulary import ITEMSIZE, LAYOUTS


def group_of(spec: RunSpec, world_size: int) -> list[int]:
    """The group's global ranks in group-rank order: ascending, as torch numbers a new_group."""
    return sorted(spec.group) if spec.group is not None else list(range(world_size))


def peer_of(spec: RunSpec, group: list[int]) -> int:
    """send_recv's receiver as a global rank: the given peer, or the rank after the root."""
    if spec.peer is not None:
        return spec.peer
    return group[(group.index(spec.root) + 1) % len(group)] if spec.root in group else spec.root


def schedule_ranks(spec: RunSpec, group: list[int]) -> list[int]:
    """Global rank of every schedule rank. A schedule with a peer sends from the root to
    the rank after it; when the chosen peer is another rank, the two swap places."""
    ranks = list(group)
    if get(spec.collective).has_peer:
        root, peer = group.index(spec.root), group.index(peer_of(spec, group))
        nxt = (root + 1) % len(ranks)
        ranks[nxt], ranks[peer] = ranks[peer], ranks[nxt]
    return ranks


def schedule_of(spec: RunSpec, world_size: int) -> Schedule | None:
    """The run's schedule in group ranks; None for an algorithm that has none before it runs
    (native, and traced send/recv code, whose schedule is rebuilt from what it did)."""
    if not algorithm_of(spec.collective, spec.algorithm).planned:
        return None
    return planned_schedule(spec, world_size)


def planned_schedule(spec: RunSpec, world_size: int) -> Schedule:
    """The schedule of a run whose algorithm is planned (its record says so), in group ranks: the one
    the run gives, or the one built for its shape."""
    group = group_of(spec, world_size)
    p, root = len(group), group.index(spec.root)
    if spec.schedule is not None:
        return from_doc(spec.collective, spec.schedule.model_dump(), p, root, spec.servers)
    return build(spec.collective, spec.algorithm, p, root, spec.chunks, spec.servers)


@lru_cache(maxsize=16)
def _from_doc(collective: str, doc: str, p: int, root: int, servers: int | None) -> Schedule:
    plan = json.loads(doc)
    for k, s in enumerate(plan["steps"]):
        bad = next((t for t in s["transfers"] if t[4] not in (0, 1)), None)
        if bad is not None:
            raise ScheduleError(
                f"step {k}: transfer {bad}: reduce (the fifth number) must be 0 (copy) or 1 (reduce)"
            )
    steps = tuple(
        Step(
            s["phase"],
            s["caption"].replace("{", "{{").replace("}", "}}"),
            np.asarray(s["transfers"], dtype=np.int64),
        )
        for s in plan["steps"]
        if s["transfers"]
    )
    schedule = Schedule(
        collective,
        CUSTOM,
        p,
        root,
        blocks=get(collective, servers).blocks(p),
        pieces=plan["pieces"],
        steps=steps,
        layout=plan["layout"],
        servers=servers or 0,
    )
    check(schedule)
    check_definition(schedule)
    return schedule


def from_doc(
    collective: str, doc: dict[str, object], p: int, root: int, servers: int | None = None
) -> Schedule:
    """A schedule sent as data, checked like a user's (race rules, then the definition).
    Cached by its text: every rank and the server check one run's schedule once each."""
    return _from_doc(collective, json.dumps(doc, sort_keys=True), p, root, servers)


def plan(spec: RunSpec, world_size: int) -> PlanDoc | None:
    """The run's schedule in global ranks (Schedule.to_doc); None for native."""
    schedule = schedule_of(spec, world_size)
    return None if schedule is None else schedule.to_doc(schedule_ranks(spec, group_of(spec, world_size)))


def perturb_plan(spec: RunSpec, world_size: int) -> tuple[list[list[TransferDoc]] | None, list[int]]:
    """What perturb.py reads of a run: its steps' transfers in global ranks (None for native)
    and every chunk's size in bytes."""
    itemsize = ITEMSIZE[get(spec.collective).dtype(spec)]
    chunk_bytes = [(b - a) * itemsize for a, b in chunk_bounds(spec, world_size)]
    shown = plan(spec, world_size)
    return (None if shown is None else [s.transfers for s in shown.steps]), chunk_bytes


def chunk_bounds(spec: RunSpec, world_size: int) -> list[tuple[int, int]]:
    """Element range of every chunk of a rank's working buffer; a native run's chunks are its blocks."""
    collective, p = get(spec.collective, spec.servers), len(group_of(spec, world_size))
    schedule = schedule_of(spec, world_size)
    if schedule is None:
        return split_blocks(collective.blocks(p), 1, collective.count(spec))
    return schedule.chunk_bounds(collective.count(spec))


def input_chunks(spec: RunSpec, world_size: int) -> dict[int, list[int]]:
    """The chunks each rank's own input fills, by global rank."""
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    bounds, count, root = chunk_bounds(spec, world_size), collective.count(spec), group.index(spec.root)
    out = {}
    for me, rank in enumerate(group):
        mine = collective.input_blocks(me, len(group), root)
        lo, hi = mine.start * count, mine.stop * count
        out[rank] = [c for c, (a, b) in enumerate(bounds) if len(mine) and lo <= a and b <= hi]
    return out


class LayoutHint(TypedDict):
    """How the browser places a run's ranks (the server's Layout)."""

    shape: str  # one of vocabulary.LAYOUTS
    root: int | None  # the rank to mark as the root
    servers: list[int]  # a servers-and-workers layout's servers, global ranks


def layout_of(spec: RunSpec, world_size: int) -> LayoutHint:
    """How the browser should place the ranks: the schedule's shape (its algorithm's, before it
    has one), the rank to mark as the root (or None), and the servers of a servers-and-workers
    layout (global ranks)."""
    schedule = schedule_of(spec, world_size)
    shape = schedule.layout if schedule is not None else algorithm_of(spec.collective, spec.algorithm).layout
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    ranks = schedule_ranks(spec, group)
    servers = [ranks[r] for r in collective.server_ranks(len(group), group.index(spec.root))]
    marked = collective.rooted or LAYOUTS[shape].around_root
    return {"shape": shape, "root": spec.root if marked else None, "servers": servers}
