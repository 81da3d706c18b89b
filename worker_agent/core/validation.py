"""The check every RunSpec passes before any rank communicates. Every rank runs the same
check on the same spec, so a bad spec fails everywhere at once and nothing hangs waiting
for a peer.
"""

from __future__ import annotations

import math

from . import perturb
from .algorithms import CUSTOM, Algorithm, UnknownAlgorithm, algorithm_of
from .collectives import get
from .predict import left_to_model
from .protocol import (
    MAX_CHUNKS,
    MAX_FULL_CAPTURE,
    MAX_ITERATIONS,
    MAX_RANK_CHUNKS,
    MAX_RUN_STEPS,
    MAX_RUN_VALUES,
    MAX_TRANSFERS,
    RunSpec,
)
from .run_shape import group_of, peer_of, perturb_plan, schedule_of
from .schedule import ScheduleError
from .vocabulary import BACKENDS, DTYPES, ITEMSIZE, OPS, DType

# One rank's working buffer. Local CPU ranks share the host's memory, and a run holds up to about
# 16 times its buffer per rank above the rank's own 350 MiB (bench/peak_memory.py: ring all_reduce,
# summary, verified): 64 MiB keeps four ranks within about 5.5 GiB, which a 16 GiB laptop holds
# beside its browser. NCCL ranks hold their buffers in the GPU's memory: 1 GiB there.
MAX_BUFFER_BYTES = 64 << 20
MAX_DEVICE_BUFFER_BYTES = 1 << 30
MIN_TIMEOUT = 1.0
MAX_SEED = (1 << 63) - 1


class SpecError(ValueError):
    """A RunSpec that cannot run here; `field` names the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


MAX_COUNT = 1 << 62  # what the store's integers hold, with room


def validate(spec: RunSpec, world_size: int, backend: str) -> None:
    """Raise SpecError naming the first field that cannot run on this world and backend."""
    if world_size < 1:
        raise SpecError("group", "no ranks are connected")
    if abs(spec.count) >= MAX_COUNT:  # even where the collective takes no count (a barrier): it is stored
        raise SpecError("count", f"must be below 2^62 elements, not {spec.count:.3g}")
    group = group_of(spec, world_size)
    if not group:
        raise SpecError("group", "must name at least one rank")
    for r in group:
        if not 0 <= r < world_size:
            raise SpecError("group", f"rank {r} does not exist (ranks are 0..{world_size - 1})")
    if len(set(group)) != len(group):
        raise SpecError("group", "names a rank twice")
    collective = get(spec.collective)
    if spec.root not in group:  # root defaults to 0: a group without rank 0 must name one, rooted or not
        why = "" if collective.rooted else f" ({collective.name} has none, but its ranks count from one)"
        raise SpecError("root", f"rank {spec.root} is not in the group {group}{why}: give one of its ranks")
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
    record = _algorithm(spec)
    _validate_op(spec, backend, record)
    _validate_size(spec, world_size, backend, record)
    for name, value, low in (("iterations", spec.iterations, 1), ("warmup", spec.warmup, 0)):
        if not low <= value <= MAX_ITERATIONS:
            raise SpecError(name, f"must be between {low} and {MAX_ITERATIONS}, not {value}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SpecError("seed", f"must be between 0 and {MAX_SEED}, not {spec.seed}")
    # a shorter wait fails healthy peers, and a failed wait breaks the group
    if not MIN_TIMEOUT <= spec.timeout <= 3600:
        raise SpecError("timeout", f"must be between {MIN_TIMEOUT:g} and 3600 seconds, not {spec.timeout}")
    if spec.perturb is not None and record.traced:
        raise SpecError(
            "perturb",
            f"{spec.algorithm} is send/recv code, run as it is written: perturb a schedule or native",
        )
    if spec.perturb is not None:
        _validate_perturb(spec, world_size, group)
    _validate_inputs(spec, world_size)


def _validate_inputs(spec: RunSpec, world_size: int) -> None:
    """Typed inputs: one list a rank of the group, as long as the rank's input, every value one
    the dtype holds exactly as typed."""
    if spec.inputs is None:
        return
    collective, group = get(spec.collective, spec.servers), group_of(spec, world_size)
    if collective.name == "barrier":
        raise SpecError("inputs", "barrier moves no values of its own, so it takes none (leave inputs out)")
    if len(spec.inputs) != len(group):
        raise SpecError(
            "inputs", f"needs one list per rank of the group ({len(group)}), not {len(spec.inputs)}"
        )
    dtype, root = DTYPES[collective.dtype(spec)], group.index(spec.root)
    for r, row in enumerate(spec.inputs):
        size = len(collective.input_blocks(r, len(group), root)) * collective.count(spec)
        if len(row) != size:
            why = " (its buffer is only received: give [])" if not size else ""
            raise SpecError("inputs", f"rank {group[r]}'s input takes {size} values{why}; {len(row)} given")
        for v in row:
            _check_input_value(v, dtype, group[r], collective.dtype(spec))


def _check_input_value(v: float, dtype: DType, rank: int, name: str) -> None:
    if not math.isfinite(v):
        raise SpecError("inputs", f"rank {rank}'s input holds {v}: only finite values are typed in")
    if dtype.integer and not float(v).is_integer():
        raise SpecError("inputs", f"rank {rank}'s input holds {v}, not an integer, as {name} needs")
    bound = dtype.exact_up_to or (1 << 8 * dtype.itemsize - 1 if dtype.integer else None)
    if bound is not None and abs(v) >= bound:
        raise SpecError("inputs", f"rank {rank}'s input holds {v}: {name} keeps values below {bound} exact")


def _algorithm(spec: RunSpec) -> Algorithm:
    """The spec's algorithm, refused in words: a schedule comes with custom only, and auto
    never reaches a rank."""
    try:
        found: Algorithm | SpecError = algorithm_of(spec.collective, spec.algorithm)
    except UnknownAlgorithm as e:  # said after what a schedule or "auto" would say
        found = SpecError("algorithm", str(e))
    if (isinstance(found, Algorithm) and found.given) != (spec.schedule is not None):
        raise SpecError(
            "schedule", f'a schedule comes with algorithm "{CUSTOM}", and that algorithm needs one'
        )
    left = left_to_model(spec)
    if left:  # a rank runs what the server (or ringside bench) chose
        raise SpecError(
            left[0],
            '"auto" is chosen when a run is submitted to a server, and a rank is sent what was chosen',
        )
    if isinstance(found, SpecError):
        raise found
    return found


def _validate_perturb(spec: RunSpec, world_size: int, group: list[int]) -> None:
    """The perturbation's ranks, ranges and step against this run's schedule (perturb.py)."""
    if spec.perturb is None:
        return
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
            raise SpecError(
                "servers", f"{spec.collective} has no servers, so it takes none (leave servers out)"
            )
        return
    servers = 1 if spec.servers is None else spec.servers
    if servers < 1:
        raise SpecError("servers", f"must be at least 1, not {servers}")
    if servers >= p:
        raise SpecError(
            "servers", f"{servers} servers in a group of {p} ranks leave no workers: at most {p - 1}"
        )
    if spec.count >= 1 and spec.count % servers:
        raise SpecError(
            "count",
            f"{spec.count} elements do not split into {servers} equal shards, "
            f"one per server: use a multiple of {servers}",
        )
    if OPS[spec.op].mean:
        raise SpecError(
            "op",
            "servers add the workers' values into their own (a gradient into the weights); "
            f"{spec.op} would divide their own too",
        )


def _validate_op(spec: RunSpec, backend: str, record: Algorithm) -> None:
    if backend not in BACKENDS:
        raise SpecError("backend", f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if not get(spec.collective).reduces:
        # an op that would not be applied is refused, not silently ignored
        if spec.op != "SUM":
            raise SpecError(
                "op", f"{spec.collective} does not reduce, so it takes no op (leave op out), not {spec.op}"
            )
        return
    op, integer = OPS[spec.op], DTYPES[spec.dtype].integer
    if backend not in op.backends:
        raise SpecError("op", f"{spec.op} is not available on {backend}")
    if op.bitwise and not integer:
        raise SpecError("op", f"{spec.op} needs an integer dtype, not {spec.dtype}")
    if op.mean and integer:
        raise SpecError("op", f"{spec.op} needs a floating dtype, not {spec.dtype}")
    if record.ops is not None and spec.op not in record.ops:
        raise SpecError(
            "op",
            f"{spec.algorithm} is send/recv code that computes {', '.join(record.ops)} "
            f"(its @traced says so), not {spec.op}",
        )


def buffer_cap(backend: str) -> int:
    """The most bytes one rank's working buffer may hold on this backend."""
    return MAX_DEVICE_BUFFER_BYTES if backend == "nccl" else MAX_BUFFER_BYTES


def _validate_size(spec: RunSpec, world_size: int, backend: str, record: Algorithm) -> None:
    collective, p = get(spec.collective, spec.servers), len(group_of(spec, world_size))
    count = collective.count(spec)
    if count < 1:
        raise SpecError("count", f"must be at least 1, not {count}")
    blocks = collective.blocks(p)
    nbytes = blocks * count * ITEMSIZE[collective.dtype(spec)]
    cap = buffer_cap(backend)
    if nbytes > cap:
        raise SpecError(
            "count",
            f"{count} elements make a {nbytes} byte buffer per rank, over the cap of "
            f"{cap} ({cap >> 20} MiB) on {backend}: a run holds up to 16 "
            "times its buffer per rank",
        )
    if spec.capture == "full" and blocks * count > MAX_FULL_CAPTURE:
        raise SpecError(
            "capture",
            f"'full' ships every value and is limited to {MAX_FULL_CAPTURE} elements per rank "
            f"(this run has {blocks * count}); use 'summary'",
        )
    # "auto" is refused before (_algorithm): the server's model picks a number when a run is submitted
    if isinstance(spec.chunks, str) or not 1 <= spec.chunks <= MAX_CHUNKS:
        raise SpecError("chunks", f"must be between 1 and {MAX_CHUNKS}, not {spec.chunks}")
    if not record.planned:  # no schedule before it runs
        return
    if spec.schedule is not None and sum(len(s.transfers) for s in spec.schedule.steps) > MAX_TRANSFERS:
        raise SpecError("schedule", f"more than {MAX_TRANSFERS} transfers in all")
    try:
        schedule = schedule_of(spec, world_size)
    except ScheduleError as e:  # a user's algorithm that breaks a rule or computes something else
        raise SpecError("schedule" if spec.schedule else "algorithm", str(e)) from None
    except ValueError as e:
        raise SpecError("chunks", str(e)) from None
    if schedule is None:  # a planned algorithm always has one
        return
    cut = "schedule" if spec.schedule else "chunks"
    if schedule.blocks * schedule.pieces > MAX_RANK_CHUNKS or len(schedule.steps) > MAX_RUN_STEPS:
        # what a rank reports is bounded where the server parses it (protocol.py): a run past it could not
        # report
        raise SpecError(
            cut,
            f"{spec.algorithm} cuts each rank's buffer into "
            f"{schedule.blocks * schedule.pieces} chunks over {len(schedule.steps)} steps; "
            f"a run has at most {MAX_RANK_CHUNKS} chunks and {MAX_RUN_STEPS} steps",
        )
    if schedule.pieces > count:
        raise SpecError(
            cut,
            f"{spec.algorithm} cuts each block into {schedule.pieces} chunks, "
            f"more than count={count} elements",
        )
    # chunks then differ by an element: one may only move into a chunk of its size
    if count % schedule.pieces:
        columns = schedule.columns()
        if (columns[3] % schedule.pieces != columns[4] % schedule.pieces).any():
            raise SpecError(
                "count",
                f"{spec.algorithm} moves chunks into chunks of another piece of a block, so each "
                "block must split evenly: count must be a multiple of "
                f"{schedule.pieces}, not {count}",
            )
    if schedule.blocks > blocks and schedule.blocks * count * ITEMSIZE[collective.dtype(spec)] > cap:
        raise SpecError(
            "count",
            f"{count} elements make a "
            f"{schedule.blocks * count * ITEMSIZE[collective.dtype(spec)]} byte buffer "
            f"per rank with {spec.algorithm}'s scratch, over the cap of {cap} "
            f"({cap >> 20} MiB) on {backend}",
        )
    shipped = len(schedule.steps) * p * blocks * count  # at most: every rank's whole buffer at every step
    if spec.capture == "full" and shipped > MAX_RUN_VALUES:
        raise SpecError(
            "capture",
            f"'full' would ship up to {shipped} values over {len(schedule.steps)} "
            f"steps, more than the {MAX_RUN_VALUES} a run keeps; use 'summary'",
        )
