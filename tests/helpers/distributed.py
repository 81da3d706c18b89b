"""Real gloo ranks for the tests (see worker_agent/rank/local.py), users' algorithms
registered for one test module only, and torchrun stopped whatever its state (harness.py)."""

import contextlib

from ringside.worker_agent.clients.harness import stop_torchrun
from ringside.worker_agent.core import predict
from ringside.worker_agent.core.algorithms import algorithms, build, registry
from ringside.worker_agent.rank.local import Died, RankError, free_port, run_ranks, unwrap

__all__ = ["Died", "RankError", "free_port", "run_ranks", "unwrap", "registered_here", "stop_torchrun"]


@contextlib.contextmanager
def registered_here(load_all):
    """What `load_all()` registers, for the `with` only: the modules after it, in whatever order a
    test process runs them (pytest-xdist gives a process modules in any order), see the built-ins."""
    before = {(a.collective, a.name) for a in algorithms()}
    load_all()
    try:
        yield
    finally:
        for collective, name in {(a.collective, a.name) for a in algorithms()} - before:
            registry._TABLE[collective].pop(name)
        build.cache_clear()
        predict.forget()
