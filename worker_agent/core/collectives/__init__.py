"""Every collective, as one descriptor each (base.py says what a descriptor holds).
Adding a collective is one new module here and one line below."""

from __future__ import annotations

from .all_gather import ALL_GATHER
from .all_reduce import ALL_REDUCE
from .all_to_all import ALL_TO_ALL
from .barrier import BARRIER
from .base import UFUNCS, Collective, NativeArgs, average, combine
from .broadcast import BROADCAST
from .gather import GATHER
from .parameter_server import PARAMETER_SERVER
from .reduce import REDUCE
from .reduce_scatter import REDUCE_SCATTER
from .scatter import SCATTER
from .send_recv import SEND_RECV

# In the order the page lists them (keys 1-0 pick them in this order).
COLLECTIVES: dict[str, Collective] = {
    c.name: c
    for c in (
        BROADCAST,
        SCATTER,
        GATHER,
        REDUCE,
        ALL_REDUCE,
        ALL_GATHER,
        REDUCE_SCATTER,
        ALL_TO_ALL,
        BARRIER,
        SEND_RECV,
        PARAMETER_SERVER,
    )
}

__all__ = ["COLLECTIVES", "UFUNCS", "Collective", "NativeArgs", "average", "combine", "get"]


def get(name: str, servers: int | None = None) -> Collective:
    """The descriptor of `name`; with `servers`, the one for a run with that many servers
    (RunSpec.servers, Schedule.servers), which only a collective with servers heeds."""
    try:
        collective = COLLECTIVES[name]
    except KeyError:
        raise ValueError(f"unknown collective {name!r} (known: {', '.join(COLLECTIVES)})") from None
    return collective if not servers else collective.with_servers(servers)
