"""Watch your own job: every collective a torchrun job issues, rank by rank, live in
Ringside, with no change to its code:

    RINGSIDE_WORKER_TOKEN=… torchrun --nproc-per-node=4 -m ringside.watch --server http://HOST:8000 train.py
    ARGS…

or, for those who prefer a line in the script, after init_process_group:

    import ringside.watch
    ringside.watch(server="http://HOST:8000")

The module is callable so that the line reads as it does; `ringside.watch.watch` is the
same function."""

from __future__ import annotations

import atexit
import functools
import os
import sys
import types

import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from . import ddp_hook
from .reporter import Reporter

_reporter: Reporter | None = None  # this process's: the launcher's, or the one line's


def watch(server: str | None = None, token: str | None = None, ddp_hook: bool = False) -> Reporter:
    """Report this rank's collectives to the server (default $RINGSIDE_SERVER) with the worker
    token (default $RINGSIDE_WORKER_TOKEN). Once per process: a later call, or the line in a
    script the launcher runs, gets the reporter there is. Point-to-point traffic is counted
    only under the launcher (p2p.py says why)."""
    if _reporter is None:
        reporter = start(server, token, ddp_hook=ddp_hook)
        atexit.register(reporter.close, None)
        return reporter
    return _reporter


def start(server: str | None, token: str | None, traffic=None, ddp_hook: bool = False) -> Reporter:
    global _reporter
    server = server or os.environ.get("RINGSIDE_SERVER")
    if not server:
        raise ValueError(
            'ringside.watch needs the server\'s address: server="http://HOST:8000" or $RINGSIDE_SERVER'
        )
    buckets = None
    if ddp_hook:
        buckets = _ddp_hook.Buckets()
        _ddp_hook.install(buckets)
    _reporter = Reporter(server, token or os.environ.get("RINGSIDE_WORKER_TOKEN"), traffic, buckets)
    _reporter.start()
    after("new_group", _reporter.learn_groups)  # a group made and gone between two polls is still known
    return _reporter


def after(name: str, then) -> None:
    """torch.distributed's `name` (and distributed_c10d's, which the rest of torch calls) calls
    `then` once it has returned."""
    original = getattr(c10d, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        then()
        return result

    setattr(c10d, name, wrapper)
    setattr(dist, name, wrapper)


_ddp_hook = ddp_hook  # the parameter of the same name shadows the module inside the functions


class _CallableModule(types.ModuleType):
    def __call__(self, *args, **kwargs) -> Reporter:
        return watch(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
