"""Every stepwise algorithm, by collective and name: a pure function
(world_size, root, chunks) -> Schedule (a collective with servers: and servers, too).
`native` is the backend's own call and has no schedule."""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Callable, NamedTuple

from ..provenance import check_definition
from ..schedule import Schedule, ScheduleError, check
from . import all_gather, all_reduce, all_to_all, barrier, broadcast, p2p, parameter_server, reduce, reduce_scatter, scatter_gather, send_recv

NATIVE = "native"
CUSTOM = "custom"  # a schedule that comes with the run, as data (RunSpec.schedule)

Builder = Callable[[int, int, int], Schedule]

ALGORITHMS: dict[str, dict[str, Builder]] = {
    "broadcast": {"flat": broadcast.flat, "binomial_tree": broadcast.binomial_tree, "ring": broadcast.ring},
    "scatter": {"flat": scatter_gather.scatter_flat, "binomial_tree": scatter_gather.scatter_binomial_tree},
    "gather": {"flat": scatter_gather.gather_flat, "binomial_tree": scatter_gather.gather_binomial_tree},
    "reduce": {"flat": reduce.flat, "binomial_tree": reduce.binomial_tree},
    "all_reduce": {
        "ring": all_reduce.ring,
        "tree": all_reduce.tree,
        "master_worker": all_reduce.master_worker,
        "recursive_doubling": all_reduce.recursive_doubling,
        "rabenseifner": all_reduce.rabenseifner,
    },
    "all_gather": {"ring": all_gather.ring, "recursive_doubling": all_gather.recursive_doubling},
    "reduce_scatter": {"ring": reduce_scatter.ring, "recursive_halving": reduce_scatter.recursive_halving},
    "all_to_all": {"pairwise": all_to_all.pairwise},
    "barrier": {"dissemination": barrier.dissemination},
    "send_recv": {"direct": send_recv.direct},
    "parameter_server": {parameter_server.NAME: parameter_server.pull_push},
}


USER: set[tuple[str, str]] = set()  # (collective, name) of algorithms that users wrote


def register(collective: str, name: str, builder: Builder, user: bool = False) -> None:
    """Add an algorithm; one that a user wrote is checked against its collective's definition
    whenever it is built."""
    ALGORITHMS.setdefault(collective, {})[name] = builder
    if user:
        USER.add((collective, name))


def algorithms_for(collective: str) -> list[str]:
    return [NATIVE, *ALGORITHMS.get(collective, {})]


class Traced(NamedTuple):
    """Send/recv code (traced.py): fn(buf, rank, size[, root, peer]), how the page places the
    ranks, and the ops its reductions compute."""

    fn: Callable
    layout: str
    ops: tuple[str, ...]


# Send/recv code, built in (the point-to-point lesson) or written by users
# (user_algorithms.traced), by collective and name: it has no schedule until it has run
# (traced.py rebuilds one from what it did), so it is kept apart from ALGORITHMS, whose
# every entry builds a schedule.
TRACED: dict[str, dict[str, Traced]] = {
    "send_recv": {"blocking": Traced(p2p.blocking, "star", ()), "isend": Traced(p2p.isend, "star", ())},
}


def traced_for(collective: str) -> list[str]:
    return list(TRACED.get(collective, {}))


def is_traced(collective: str, algorithm: str) -> bool:
    return algorithm in TRACED.get(collective, {})


@lru_cache(maxsize=128)
def build(collective: str, algorithm: str, world_size: int, root: int = 0, chunks: int = 1,
          servers: int | None = None) -> Schedule:
    """The schedule for one run's shape (`servers`: RunSpec.servers, for a collective with
    servers; None: its builder's default). Cached: schedules are immutable data."""
    try:
        builder = ALGORITHMS[collective][algorithm]
    except KeyError:
        raise ValueError(f"no stepwise algorithm {algorithm!r} for {collective!r}") from None
    if world_size < 1:
        raise ValueError(f"world_size must be at least 1, not {world_size}")
    if not 0 <= root < world_size:
        raise ValueError(f"root must be a rank of the group, 0..{world_size - 1}, not {root}")
    if chunks < 1:
        raise ValueError(f"chunks must be at least 1, not {chunks}")
    if servers is not None:
        builder = partial(builder, servers=servers)
    if (collective, algorithm) not in USER:
        schedule = builder(world_size, root, chunks)
        check(schedule)
        return schedule
    try:
        schedule = builder(world_size, root, chunks)
    except Exception as e:  # the user's code, whatever it raised: say so, and where
        raise ScheduleError(f"{algorithm} could not build its steps for {world_size} ranks: {type(e).__name__}: {e}") from e
    check(schedule)
    check_definition(schedule)
    return schedule
