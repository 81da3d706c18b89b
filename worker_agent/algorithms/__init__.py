"""Every stepwise algorithm, by collective and name: a pure function
(world_size, root, chunks) -> Schedule. `native` is the backend's own call and
has no schedule."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from ..schedule import Schedule, check
from . import all_reduce

NATIVE = "native"

Builder = Callable[[int, int, int], Schedule]

ALGORITHMS: dict[str, dict[str, Builder]] = {
    "all_reduce": {"ring": all_reduce.ring},
}


def algorithms_for(collective: str) -> list[str]:
    return [NATIVE, *ALGORITHMS.get(collective, {})]


@lru_cache(maxsize=128)
def build(collective: str, algorithm: str, world_size: int, root: int = 0, chunks: int = 1) -> Schedule:
    """The schedule for one run's shape. Cached: schedules are immutable data."""
    try:
        builder = ALGORITHMS[collective][algorithm]
    except KeyError:
        raise ValueError(f"no stepwise algorithm {algorithm!r} for {collective!r}") from None
    schedule = builder(world_size, root, chunks)
    check(schedule)
    return schedule
