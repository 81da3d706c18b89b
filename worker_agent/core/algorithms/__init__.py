"""Every algorithm, one record each (registry.py). The built-in ones register as their
modules are imported, in the page's order within each collective: a stepwise one is a pure
function (world_size, root, chunks) -> its steps; p2p.py's are send/recv code."""

from __future__ import annotations

from . import (  # noqa: F401  # noqa: F401
    all_gather,
    all_reduce,
    all_to_all,
    barrier,
    broadcast,
    p2p,
    parameter_server,
    reduce,
    reduce_scatter,
    scatter_gather,
    send_recv,
)
from .registry import (
    AUTO,
    CUSTOM,
    NATIVE,
    Algorithm,
    Built,
    Kind,
    UnknownAlgorithm,
    algorithm_of,
    algorithms,
    build,
    register,
)

__all__ = [
    "AUTO",
    "CUSTOM",
    "NATIVE",
    "Algorithm",
    "Built",
    "Kind",
    "UnknownAlgorithm",
    "algorithm_of",
    "algorithms",
    "build",
    "register",
]
