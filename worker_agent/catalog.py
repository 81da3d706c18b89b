"""What a cluster can run, and the check every RunSpec passes before any rank
communicates. Every rank runs the same check on the same spec, so a bad
spec fails everywhere at once and nothing hangs waiting for a peer.
"""

from __future__ import annotations

from . import collectives as C
from .algorithms import NATIVE, algorithms_for, build
from .protocol import RunSpec

DTYPES = ("int32", "int64", "float16", "bfloat16", "float32", "float64")
INTEGER_DTYPES = frozenset({"int32", "int64"})
ITEMSIZE = {"int32": 4, "int64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
BITWISE_OPS = frozenset({"BAND", "BOR", "BXOR"})
BACKEND_OPS = {
    "gloo": ("SUM", "PRODUCT", "MIN", "MAX", "AVG", "BAND", "BOR", "BXOR"),
    "nccl": ("SUM", "PRODUCT", "MIN", "MAX", "AVG"),  # NCCL has no bitwise reductions
}
PATTERNS = ("rank", "index", "random_int", "random_float")
CAPTURES = ("full", "summary", "none")

MAX_BUFFER_BYTES = 1 << 30  # one rank's working buffer; far beyond what a lecture needs
MAX_FULL_CAPTURE = 4096  # elements per rank's buffer that `full` capture will ship
MAX_ITERATIONS = 10_000
MAX_CHUNKS = 1024  # pieces per block or segment: more than any picture can show
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


def effective_op(spec: RunSpec) -> str:
    return C.BARRIER_OP if spec.collective == "barrier" else spec.op


def effective_dtype(spec: RunSpec) -> str:
    return C.BARRIER_DTYPE if spec.collective == "barrier" else spec.dtype


def effective_count(spec: RunSpec) -> int:
    return 1 if spec.collective == "barrier" else spec.count


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
    if spec.collective == "send_recv":
        if len(group) < 2:
            raise SpecError("group", "send_recv needs at least two ranks")
        peer = peer_of(spec, group)
        if peer not in group:
            raise SpecError("peer", f"rank {peer} is not in the group {group}")
        if peer == spec.root:
            raise SpecError("peer", "must differ from the root (the sender)")
    if spec.algorithm not in algorithms_for(spec.collective):
        known = ", ".join(algorithms_for(spec.collective))
        raise SpecError("algorithm", f"{spec.algorithm!r} is not an algorithm of {spec.collective} (known: {known})")
    _validate_op(spec, backend)
    _validate_size(spec, len(group), group.index(spec.root))
    for name, value, top in (("iterations", spec.iterations, MAX_ITERATIONS), ("warmup", spec.warmup, MAX_ITERATIONS)):
        if not (0 if name == "warmup" else 1) <= value <= top:
            raise SpecError(name, f"must be between {0 if name == 'warmup' else 1} and {top}, not {value}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SpecError("seed", f"must be between 0 and {MAX_SEED}, not {spec.seed}")
    if not 0 < spec.timeout <= 3600:
        raise SpecError("timeout", f"must be between 0 and 3600 seconds, not {spec.timeout}")


def _validate_op(spec: RunSpec, backend: str) -> None:
    if backend not in BACKEND_OPS:
        raise SpecError("backend", f"unknown backend {backend!r} (known: {', '.join(BACKEND_OPS)})")
    if spec.collective not in C.REDUCING or spec.collective == "barrier":
        return
    if spec.op not in BACKEND_OPS[backend]:
        raise SpecError("op", f"{spec.op} is not available on {backend}")
    if spec.op in BITWISE_OPS and spec.dtype not in INTEGER_DTYPES:
        raise SpecError("op", f"{spec.op} needs an integer dtype, not {spec.dtype}")
    if spec.op == "AVG" and spec.dtype in INTEGER_DTYPES:
        raise SpecError("op", f"AVG needs a floating dtype, not {spec.dtype}")


def _validate_size(spec: RunSpec, p: int, root: int) -> None:
    count = effective_count(spec)
    if count < 1:
        raise SpecError("count", f"must be at least 1, not {count}")
    blocks = C.buffer_blocks(spec.collective, p)
    nbytes = blocks * count * ITEMSIZE[effective_dtype(spec)]
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
    if spec.algorithm == NATIVE:
        return
    try:
        schedule = build(spec.collective, spec.algorithm, p, root, spec.chunks)
    except ValueError as e:
        raise SpecError("chunks", str(e)) from None
    if schedule.pieces > count:
        raise SpecError(
            "chunks",
            f"{spec.algorithm} cuts each block into {schedule.pieces} chunks, more than count={count} elements",
        )


def catalog(backend: str, world_size: int) -> dict:
    """What the frontend builds its controls from."""
    return {
        "backend": backend,
        "world_size": world_size,
        "collectives": [
            {
                "name": name,
                "algorithms": algorithms_for(name),
                "reduces": name in C.REDUCING and name != "barrier",
                "rooted": name in C.ROOTED,
            }
            for name in C.COLLECTIVES
        ],
        "ops": list(BACKEND_OPS.get(backend, ())),
        "bitwise_ops": sorted(BITWISE_OPS),
        "dtypes": list(DTYPES),
        "integer_dtypes": sorted(INTEGER_DTYPES),
        "patterns": list(PATTERNS),
        "captures": list(CAPTURES),
        "max_buffer_bytes": MAX_BUFFER_BYTES,
        "max_full_capture": MAX_FULL_CAPTURE,
    }

