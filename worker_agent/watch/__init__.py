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

from ringside.worker_agent.core.watch_protocol import hang_after_of

from . import ddp_hook, p2p
from .reporter import Reporter

_reporter: Reporter | None = None  # this process's: the launcher's, or the one line's


def watch(
    server: str | None = None,
    token: str | None = None,
    ddp_hook: bool = False,
    hang_after: float | None = None,
) -> Reporter:
    """Report this rank's collectives and its sends and receives to the server (default
    $RINGSIDE_SERVER) with the worker token (default $RINGSIDE_WORKER_TOKEN); `hang_after`: seconds
    a wait on this job lasts before the server names it a hang (default: the server's). Once per process:
    a later call, or the line in a script the launcher runs, gets the reporter there is. The
    goodbye says the exception that ended the program, if one did."""
    if _reporter is None:
        traffic = p2p.Traffic()
        reporter = start(server, token, traffic, ddp_hook=ddp_hook, hang_after=hang_after)
        p2p.install(traffic)
        said_on_the_way_out(reporter)
        atexit.register(lambda: reporter.close(exit_code_of(reporter.raised), reporter.raised))
        return reporter
    return _reporter


def said_on_the_way_out(reporter: Reporter) -> None:
    """The exception that ends the program, kept for the goodbye (atexit runs after the hook; the
    hook there was, the job's or Python's, still prints it)."""
    previous = sys.excepthook

    def hook(kind, value, traceback):
        reporter.raised = f"{kind.__name__}: {value}"[:300] if str(value) else kind.__name__
        previous(kind, value, traceback)

    sys.excepthook = hook


def exit_code_of(raised: str | None) -> int | None:
    """What a program that ended so exits with: 1 for an exception, 130 for ^C; unknown otherwise
    (atexit cannot see a sys.exit's code)."""
    if raised is None:
        return None
    return 130 if raised.startswith("KeyboardInterrupt") else 1


def start(
    server: str | None,
    token: str | None,
    traffic=None,
    ddp_hook: bool = False,
    hang_after: float | None = None,
) -> Reporter:
    global _reporter
    server = server or os.environ.get("RINGSIDE_SERVER")
    if not server:
        raise ValueError(
            'ringside.watch needs the server\'s address: server="http://HOST:8000" or $RINGSIDE_SERVER'
        )
    if hang_after is not None:
        try:
            hang_after = hang_after_of(hang_after)
        except ValueError as e:
            raise ValueError(f"ringside.watch: hang_after {e}") from None
    buckets = None
    if ddp_hook:
        buckets = _ddp_hook.Buckets()
        _ddp_hook.install(buckets)
    _reporter = Reporter(
        server, token or os.environ.get("RINGSIDE_WORKER_TOKEN"), traffic, buckets, hang_after
    )
    _reporter.start()
    after("new_group", _reporter.groups.learn)  # a group made and gone between two polls is still known
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
