"""What a training run may ask and what its reports add up to, without torch, so the
server checks a TrainSpec and merges the ranks' reports without loading a model."""

from __future__ import annotations

import statistics

from ..core.algorithms import Algorithm, algorithm_of, algorithms, build
from ..core.algorithms.parameter_server import NAME as PULL_PUSH
from ..core.collectives import get
from ..core.collectives.parameter_server import PARAMETER_SERVER as SERVERS
from ..core.protocol import MAX_CHUNKS, MAX_RANK_CHUNKS, TrainSpec
from ..core.validation import MAX_SEED, MIN_TIMEOUT, SpecError
from .data import CLASSES, FEATURES, TRAIN

PARAMETER_SERVER = SERVERS.name  # the method that syncs through servers is named after their collective
MAX_STEPS = 1000  # training steps: each keeps its gradient sync, for the stage
MAX_HIDDEN = 4096  # two hidden layers of 4096: about 17 M parameters, 67 MB of float32 per buffer


def parameters(hidden: int) -> int:
    """How many parameters the MLP of this width has."""
    return FEATURES * hidden + hidden + hidden * hidden + hidden + hidden * CLASSES + CLASSES


# parameters: beyond, keeping every step's sync costs a step more than 10 % (bench/training.py)
EVERY_STEP_UP_TO = 250_000


def sync_every(spec: TrainSpec) -> int:
    """One in how many steps keeps its gradient sync for the stage."""
    if spec.sync_every is not None:
        return spec.sync_every
    return 1 if parameters(spec.hidden) <= EVERY_STEP_UP_TO else 4


def methods() -> dict[str, Algorithm]:
    """Every way a training run can sync its gradients, by the name its TrainSpec.method gives:
    an all_reduce that needs nothing but the run's shape (native, or a built schedule), or the
    parameter server's pull and push."""
    syncs = {a.name: a for a in algorithms("all_reduce") if a.reference or a.built}
    return {**syncs, PARAMETER_SERVER: algorithm_of(PARAMETER_SERVER, PULL_PUSH)}


# the methods the seed lecture contrasts, in its order: the lecture's W steps through them first
SEED_ORDER = (PARAMETER_SERVER, "ring", "tree", "native")


def lecture_order() -> list[str]:
    """Every method, the seed lecture's first (SEED_ORDER), then the rest as methods() gives them."""
    known = list(methods())
    return [m for m in SEED_ORDER if m in known] + [m for m in known if m not in SEED_ORDER]


def through_servers(method: str) -> bool:
    """Whether a method syncs through servers, ranks that hold the weights and compute nothing."""
    return get(methods()[method].collective).has_servers


def check(spec: TrainSpec, world_size: int) -> None:
    """Raise SpecError naming the first field that cannot train on this world."""
    known = methods()
    if spec.method not in known:
        raise SpecError(
            "method", f"{spec.method!r} is not a way to sync gradients (known: {', '.join(known)})"
        )
    sync, ps = known[spec.method], through_servers(spec.method)
    if ps and world_size < 2:
        raise SpecError("servers", "a parameter server needs at least 2 ranks: one server and one worker")
    if ps and not 1 <= spec.servers <= world_size - 1:
        raise SpecError(
            "servers", f"must be 1 to {world_size - 1} (P-1), leaving at least one worker, not {spec.servers}"
        )
    if not 1 <= spec.hidden <= MAX_HIDDEN:
        raise SpecError("hidden", f"must be 1 to {MAX_HIDDEN}, not {spec.hidden}")
    if not 1 <= spec.steps <= MAX_STEPS:
        raise SpecError("steps", f"must be 1 to {MAX_STEPS}, not {spec.steps}")
    if not 0 < spec.lr <= 10:
        raise SpecError("lr", f"the learning rate must be above 0 and at most 10, not {spec.lr}")
    workers = world_size - spec.servers if ps else world_size
    # every worker's shard of a batch holds a sample; a batch, at most the data set
    if not workers <= spec.batch <= TRAIN:
        raise SpecError("batch", f"must be {workers} (one sample per worker) to {TRAIN}, not {spec.batch}")
    if not 1 <= spec.chunks <= MAX_CHUNKS:
        raise SpecError("chunks", f"must be 1 to {MAX_CHUNKS}, not {spec.chunks}")
    if not sync.fits(world_size):  # an MSCCL file written for another world size
        raise SpecError("method", sync.misfit(world_size))
    try:
        cut = None if ps or sync.reference else build(sync.collective, sync.name, world_size, 0, spec.chunks)
    except ValueError as e:  # a user's schedule that cannot be cut so (an MSCCL file takes one chunk)
        raise SpecError("chunks", str(e)) from None
    shards = spec.servers if ps else 1 if cut is None else cut.pieces
    if shards > parameters(spec.hidden):
        raise SpecError(
            "servers" if ps else "chunks", f"cuts {parameters(spec.hidden)} parameters into {shards} parts"
        )
    # a step's sync is reported chunk by chunk
    if cut is not None and cut.blocks * cut.pieces > MAX_RANK_CHUNKS:
        raise SpecError(
            "chunks",
            f"cuts the gradient into {cut.blocks * cut.pieces} chunks, "
            f"more than the {MAX_RANK_CHUNKS} a rank reports",
        )
    if spec.sync_every is not None and not 1 <= spec.sync_every <= MAX_STEPS:
        raise SpecError("sync_every", f"must be 1 to {MAX_STEPS}, not {spec.sync_every}")
    if not 0 <= spec.seed <= MAX_SEED:
        raise SpecError("seed", f"must be between 0 and {MAX_SEED}, not {spec.seed}")
    if not MIN_TIMEOUT <= spec.timeout <= 3600:
        raise SpecError("timeout", f"must be between {MIN_TIMEOUT:g} and 3600 seconds, not {spec.timeout}")


def combine_step(step: int, records: list) -> dict:
    """One row for a step over every rank's record (StepRecord or TrainStep): the batch's loss
    and accuracy (the workers' parts, weighted by samples), the slowest worker's compute and
    communication (a server's wait for the workers' gradients is theirs to compute), and the
    bytes on the busiest rank's link (None where the backend does not say)."""
    parts = [r for r in records if r.samples]
    samples = sum(r.samples for r in parts)
    moved = [max(r.bytes_sent, r.bytes_received) for r in records if r.bytes_sent is not None]
    return {
        "step": step,
        "loss": sum(r.loss * r.samples for r in parts) / samples,
        "accuracy": sum(r.accuracy * r.samples for r in parts) / samples,
        "compute_s": max(r.compute_s for r in parts),
        "comm_s": max(r.comm_s for r in parts),
        "busiest_link_bytes": max(moved) if moved else None,
    }


def result_of(rows: list[dict], test_loss: float, test_accuracy: float) -> dict:
    """The chapter's trade-off for one run: time per step (median), communication share,
    busiest link, final batch loss, and the held-out figures."""
    step_s = [r["compute_s"] + r["comm_s"] for r in rows]
    return {
        "step_ms": statistics.median(step_s) * 1e3,
        "comm_share": sum(r["comm_s"] for r in rows) / sum(step_s),
        "busiest_link_bytes": rows[-1]["busiest_link_bytes"],
        "final_loss": rows[-1]["loss"],
        "test_loss": test_loss,
        "test_accuracy": test_accuracy,
    }


def catalog() -> dict:
    """What the page builds its Train controls from."""
    return {
        "methods": list(methods()),
        "lecture_order": lecture_order(),
        "parameter_server": PARAMETER_SERVER,
        "max_steps": MAX_STEPS,
        "max_hidden": MAX_HIDDEN,
        "max_batch": TRAIN,
        "defaults": TrainSpec().model_dump(),
    }
