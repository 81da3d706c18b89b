"""What a cluster can run, and the check every RunSpec passes before any rank
communicates. Every rank runs the same check on the same spec, so a bad
spec fails everywhere at once and nothing hangs waiting for a peer.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import get_args

import numpy as np

from . import perturb
from .algorithms import CUSTOM, NATIVE, TRACED, algorithms_for, build, is_traced, traced_for
from .collectives import COLLECTIVES, get
from .predict import AUTO
from .protocol import MAX_CHUNKS, MAX_FULL_CAPTURE, MAX_RUN_VALUES, MAX_STEPS, MAX_TRANSFERS, Capture, Pattern, RunSpec
from .provenance import check_definition
from .schedule import Schedule, ScheduleError, Step, check, chunk_bounds as split_blocks
from .vocabulary import BACKENDS, DTYPES, ITEMSIZE, LAYOUTS, OPS

MAX_BUFFER_BYTES = 1 << 30  # one rank's working buffer; far beyond what a lecture needs
MAX_ITERATIONS = 10_000
MIN_TIMEOUT = 1.0
MAX_SEED = (1 << 63) - 1


class SpecError(ValueError):
    """A RunSpec that cannot run here; `field` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def group_of(spec: RunSpec, world_size: int) -> list[int]:
    """The group's global ranks in group-rank order: ascending, as torch numbers a new_group."""
    return sorted(spec.group) if spec.group is not None else list(range(world_size))


def peer_of(spec: RunSpec, group: list[int]) -> int:
    """send_recv's receiver as a global rank: the given peer, or the rank after the root."""
    if spec.peer is not None:
        return spec.peer
    return group[(group.index(spec.root) + 1) % len(group)] if spec.root in group else spec.root


def validate(spec: RunSpec, world_size: int, backend: str) -> None:
    """Raise SpecError naming the first field that cannot run on this world and backend."""
    if world_size < 1:
        raise SpecError("group", "no ranks are connected")
    group = group_of(spec, world_size)
    if not group:
        raise SpecError("group", "must name at least one rank")
    for r in group:
        if not 0 <= r < world_size:
            raise SpecError("group", f"rank {r} does not exist (ranks are 0..{world_size - 1})")
    if len(set(group)) != len(group):
        raise SpecError("group", "names a rank twice")
    if spec.root not in group:
        raise SpecError("root", f"rank {spec.root} is not in the group {group}")
    collective = get(spec.collective)
    if len(group) < collective.min_ranks:
        raise SpecError("group", f"{collective.name} needs at least {collective.min_ranks} ranks")
    if collective.has_peer:
        peer = peer_of(spec, group)
        if peer not in group:
            raise SpecError("peer", f"rank {peer} is not in the group {group}")
        if peer == spec.root:
            raise SpecError("peer", "must differ from the root (the sender)")
    elif spec.peer is not None:  # refused, not ignored: the runner reads it for every collective
        raise SpecError("peer", f"{spec.collective} has no peer, so it takes none (leave peer out)")
    check_servers(spec, collective.has_servers, len(group))
    if (spec.algorithm == CUSTOM) != (spec.schedule is not None):
        raise SpecError("schedule", f'a schedule comes with algorithm "{CUSTOM}", and that algorithm needs one')
    if AUTO in (spec.algorithm, spec.chunks):  # a rank runs what the server (or ringside bench) chose: never "auto"
        raise SpecError("algorithm" if spec.algorithm == AUTO else "chunks",
                        '"auto" is chosen when a run is submitted to a server, and a rank is sent what was chosen')
    known = [*algorithms_for(spec.collective), *traced_for(spec.collective)]
    if spec.algorithm not in known and spec.algorithm != CUSTOM:
        known = ", ".join(known)
        raise SpecError("algorithm", f"{spec.algorithm!r} is not an algorithm of {spec.collective} (known: {known})")
    _validate_op(spec, backend)
    if is_traced(spec.collective, spec.algorithm) and get(spec.collective).reduces:
        ops = TRACED[spec.collective][spec.algorithm].ops
        if spec.op not in ops:
            raise SpecError("op", f"{spec.algorithm} is send/recv code that computes {', '.join(ops)} (its @traced says so), not {spec.op}")
    _validate_size(spec, len(group), group.index(spec.root))
    for name, value, top in (("iterations", spec.iterations, MAX_ITERATIONS), ("warmup", spec.warmup, MAX_ITERATIONS)):
        if not (0 if name == "warmup" else 1) <= value <= top:
            raise SpecError(name, f"must be between {0 if name == 'warmup' else 1} and {top}, not {value}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SpecError("seed", f"must be between 0 and {MAX_SEED}, not {spec.seed}")
    if not MIN_TIMEOUT <= spec.timeout <= 3600:  # a shorter wait fails healthy peers, and a failed wait breaks the group
        raise SpecError("timeout", f"must be between {MIN_TIMEOUT:g} and 3600 seconds, not {spec.timeout}")
    if spec.perturb is not None and is_traced(spec.collective, spec.algorithm):
        raise SpecError("perturb", f"{spec.algorithm} is send/recv code, run as it is written: perturb a schedule or native")
    if spec.perturb is not None:
        _validate_perturb(spec, world_size, group)


def _validate_perturb(spec: RunSpec, world_size: int, group: list[int]) -> None:
    """The perturbation's ranks, ranges and step against this run's schedule (perturb.py)."""
    steps, chunk_bytes = perturb_plan(spec, world_size)
    try:
        perturb.check(spec.perturb, group, steps, spec.timeout)
        if steps is not None:
            perturb.check_times(spec.perturb, steps, chunk_bytes, spec.timeout, group)
    except perturb.CheckFailed as e:
        raise SpecError(e.field, e.message) from None


def check_servers(spec: RunSpec, has_servers: bool, p: int) -> None:
    """A collective with servers has 1..P-1 of them (a rank must be left to work), and they
    hold the model's `count` elements in equal shards; any other collective takes none."""
    if not has_servers:
        if spec.servers is not None:
            raise SpecError("servers", f"{spec.collective} has no servers, so it takes none (leave servers out)")
        return
    servers = 1 if spec.servers is None else spec.servers
    if servers < 1:
        raise SpecError("servers", f"must be at least 1, not {servers}")
    if servers >= p:
        raise SpecError("servers", f"{servers} servers in a group of {p} ranks leave no workers: at most {p - 1}")
    if spec.count >= 1 and spec.count % servers:
        raise SpecError("count", f"{spec.count} elements do not split into {servers} equal shards, one per server: "
                                 f"use a multiple of {servers}")
    if OPS[spec.op].mean:
        raise SpecError("op", "servers add the workers' values into their own (a gradient into the weights); "
                              f"{spec.op} would divide their own too")


def _validate_op(spec: RunSpec, backend: str) -> None:
    if backend not in BACKENDS:
        raise SpecError("backend", f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if not get(spec.collective).reduces:
        # an op that would not be applied is refused, not silently ignored
        if spec.op != "SUM":
            raise SpecError("op", f"{spec.collective} does not reduce, so it takes no op (leave op out), not {spec.op}")
        return
    op, integer = OPS[spec.op], DTYPES[spec.dtype].integer
    if backend not in op.backends:
        raise SpecError("op", f"{spec.op} is not available on {backend}")
    if op.bitwise and not integer:
        raise SpecError("op", f"{spec.op} needs an integer dtype, not {spec.dtype}")
    if op.mean and integer:
        raise SpecError("op", f"{spec.op} needs a floating dtype, not {spec.dtype}")


def _validate_size(spec: RunSpec, p: int, root: int) -> None:
    collective = get(spec.collective, spec.servers)
    count = collective.count(spec)
    if count < 1:
        raise SpecError("count", f"must be at least 1, not {count}")
    blocks = collective.blocks(p)
    nbytes = blocks * count * ITEMSIZE[collective.dtype(spec)]
    if nbytes > MAX_BUFFER_BYTES:
        raise SpecError("count", f"{count} elements make a {nbytes} byte buffer per rank, over the cap of {MAX_BUFFER_BYTES}")
    if spec.capture == "full" and blocks * count > MAX_FULL_CAPTURE:
        raise SpecError(
            "capture",
            f"'full' ships every value and is limited to {MAX_FULL_CAPTURE} elements per rank "
            f"(this run has {blocks * count}); use 'summary'",
        )
    if not 1 <= spec.chunks <= MAX_CHUNKS:
        raise SpecError("chunks", f"must be between 1 and {MAX_CHUNKS}, not {spec.chunks}")
    if spec.algorithm == NATIVE or is_traced(spec.collective, spec.algorithm):  # no schedule before it runs
        return
    if spec.schedule is not None and sum(len(s.transfers) for s in spec.schedule.steps) > MAX_TRANSFERS:
        raise SpecError("schedule", f"more than {MAX_TRANSFERS} transfers in all")
    try:
        schedule = _schedule(spec, p, root)
    except ScheduleError as e:  # a user's algorithm that breaks a rule or computes something else
        raise SpecError("schedule" if spec.schedule else "algorithm", str(e)) from None
    except ValueError as e:
        raise SpecError("chunks", str(e)) from None
    if schedule.pieces > count:
        raise SpecError(
            "schedule" if spec.schedule else "chunks",
            f"{spec.algorithm} cuts each block into {schedule.pieces} chunks, more than count={count} elements",
        )
    shipped = len(schedule.steps) * p * blocks * count  # at most: every rank's whole buffer at every step
    if spec.capture == "full" and shipped > MAX_RUN_VALUES:
        raise SpecError("capture", f"'full' would ship up to {shipped} values over {len(schedule.steps)} steps, "
                                   f"more than the {MAX_RUN_VALUES} a run keeps; use 'summary'")


def catalog(backend: str, world_size: int) -> dict:
    """What the frontend builds its controls from."""
    return {
        "backend": backend,
        "world_size": world_size,
        "collectives": [
            {
                "name": c.name,
                # auto: the server picks (predict.py); send/recv code before the schedules, so that the
                # last (what a page opens on) builds one
                "algorithms": [NATIVE, AUTO, *traced_for(c.name), *algorithms_for(c.name)[1:]],
                "reduces": c.reduces,
                "rooted": c.rooted,
                "peer": c.has_peer,
                "servers": c.has_servers,
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
        "max_buffer_bytes": MAX_BUFFER_BYTES,
        "max_full_capture": MAX_FULL_CAPTURE,
        "custom": {"algorithm": CUSTOM, "max_steps": MAX_STEPS, "max_transfers": MAX_TRANSFERS},
        "auto": {"algorithm": AUTO, "chunks": AUTO},  # resolved by the server's model when a run is submitted
    }



def pieces_of(collective: str, world_size: int) -> dict[str, int]:
    """The chunks each stepwise algorithm cuts a block into at this world size (chunks=1), so
    the page can choose a count that puts one or two values in every chunk (the lecture preset).
    Left out beyond a lecture's world sizes, where building every schedule costs too much."""
    if not 1 <= world_size <= 64:
        return {}
    out = {}
    for algorithm in algorithms_for(collective)[1:]:
        try:
            out[algorithm] = build(collective, algorithm, world_size).pieces
        except (ValueError, ScheduleError):  # an algorithm that needs another world size
            continue
    return out


# --- a run's shape, for the executor and the server alike -------------------


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
    """The run's schedule in group ranks; None for native, and for traced send/recv code,
    whose schedule is rebuilt from what it did when it runs. The spec must be valid."""
    if spec.algorithm == NATIVE or is_traced(spec.collective, spec.algorithm):
        return None
    group = group_of(spec, world_size)
    return _schedule(spec, len(group), group.index(spec.root))


def _schedule(spec: RunSpec, p: int, root: int) -> Schedule:
    if spec.schedule is not None:
        return from_doc(spec.collective, spec.schedule.model_dump(), p, root, spec.servers)
    return build(spec.collective, spec.algorithm, p, root, spec.chunks, spec.servers)


@lru_cache(maxsize=16)
def _from_doc(collective: str, doc: str, p: int, root: int, servers: int | None) -> Schedule:
    plan = json.loads(doc)
    for k, s in enumerate(plan["steps"]):
        bad = next((t for t in s["transfers"] if t[4] not in (0, 1)), None)
        if bad is not None:
            raise ScheduleError(f"step {k}: transfer {bad}: reduce (the fifth number) must be 0 (copy) or 1 (reduce)")
    steps = tuple(Step(s["phase"], s["caption"].replace("{", "{{").replace("}", "}}"), np.asarray(s["transfers"], dtype=np.int64))
                  for s in plan["steps"] if s["transfers"])
    schedule = Schedule(collective, CUSTOM, p, root, blocks=get(collective, servers).blocks(p), pieces=plan["pieces"], steps=steps,
                        layout=plan["layout"], servers=servers or 0)
    check(schedule)
    check_definition(schedule)
    return schedule


def from_doc(collective: str, doc: dict, p: int, root: int, servers: int | None = None) -> Schedule:
    """A schedule sent as data, checked like a user's (race rules, then the definition).
    Cached by its text: every rank and the server check one run's schedule once each."""
    return _from_doc(collective, json.dumps(doc, sort_keys=True), p, root, servers)


def plan(spec: RunSpec, world_size: int) -> dict | None:
    """The run's schedule as JSON in global ranks (Schedule.to_json); None for native."""
    schedule = schedule_of(spec, world_size)
    return None if schedule is None else schedule.to_json(schedule_ranks(spec, group_of(spec, world_size)))


def perturb_plan(spec: RunSpec, world_size: int) -> tuple[list[list[list[int]]] | None, list[int]]:
    """What perturb.py reads of a run: its steps' transfers in global ranks (None for native)
    and every chunk's size in bytes. The spec must be valid."""
    collective = get(spec.collective)
    itemsize = ITEMSIZE[collective.dtype(spec)]
    chunk_bytes = [(b - a) * itemsize for a, b in chunk_bounds(spec, world_size)]
    shown = plan(spec, world_size)
    return (None if shown is None else [s["transfers"] for s in shown["steps"]]), chunk_bytes


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


def layout_of(spec: RunSpec, world_size: int) -> dict:
    """How the browser should place the ranks: the schedule's shape, the rank to mark as
    the root (or None), and the servers of a servers-and-workers layout (global ranks)."""
    schedule = schedule_of(spec, world_size)
    shape = schedule.layout if schedule is not None else "ring"
    if is_traced(spec.collective, spec.algorithm):
        shape = TRACED[spec.collective][spec.algorithm].layout
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    ranks = schedule_ranks(spec, group)
    servers = [ranks[r] for r in collective.server_ranks(len(group), group.index(spec.root))]
    if servers and spec.algorithm == NATIVE:  # a native run of a collective with servers is drawn as its schedules are
        shape = "servers"
    marked = collective.rooted or LAYOUTS[shape].around_root
    return {"shape": shape, "root": spec.root if marked else None, "servers": servers}
