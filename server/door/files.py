"""The open-file limit as a bound like the others. A process inherits a soft limit (often 1,024
on Linux, 256 on macOS) far below what it may use: at start the server raises it to the hard
one, then sizes its connection caps from what it has, with room kept for what is not a
client's (the store's file and its journal on two connections, the log, a health check) and
for a burst of accepts (asyncio accepts up to `backlog` connections before it closes the
refused ones). Past the caps a connection is closed as it is accepted, so the process never
runs out of files: out of them, every accept failed and asyncio logged each failure."""

from __future__ import annotations

import logging
import resource
import time
from dataclasses import dataclass

log = logging.getLogger("ringside.server")

RESERVED = 64  # files kept for what is not a client's connection
# what the soft limit is raised to, the first the kernel takes: the hard limit, or under an
# "unlimited" one (macOS's) a million, then macOS's OPEN_MAX
TARGETS = (1 << 20, 10240)
BACKLOG = 2048  # uvicorn's: connections accepted in one go, and the kernel's queue of them
SAY_EVERY_S = 60.0  # refusals are said in one line a minute at most


@dataclass(frozen=True)
class Caps:
    files: int  # the soft limit, once raised
    in_all: int  # connections from clients at once
    per_address: int  # from one client address: an eighth of all at most, so no five can fill it
    backlog: int  # accepted in one go
    # audience pages of a hall behind one address (viewer sockets with a token that lets them watch),
    # counted apart from `per_address`: half of all at most, so one address never fills the server
    hall: int = 2


def raised(per_address_most: int, hall_most: int = 2) -> Caps:
    """The soft limit raised as far as the hard one lets it, and the caps sized from it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    unlimited = resource.RLIM_INFINITY
    targets = TARGETS if hard == unlimited else (hard, *(t for t in TARGETS if t < hard))
    for target in (t for t in targets if soft != unlimited and soft < t):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
            break
        except (ValueError, OSError):  # more than the kernel gives one process: try less
            continue
    files = TARGETS[0] if soft == unlimited else soft
    backlog = min(BACKLOG, max(files // 8, 16))
    in_all = max(files - RESERVED - backlog, 16)
    per_address = min(per_address_most, max(in_all // 8, 2))
    return Caps(files, in_all, per_address, backlog, min(hall_most, max(in_all // 2, 2)))


class Refusals:
    """Connections refused past a cap, said in a summary line at most once a SAY_EVERY_S."""

    def __init__(self) -> None:
        self.count = 0
        self.said_at = float("-inf")

    def add(self, caps: Caps) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.said_at >= SAY_EVERY_S:
            log.warning(
                "refused %d connection%s past the caps (%d per address, %d in all, of %d open files)",
                self.count,
                "" if self.count == 1 else "s",
                caps.per_address,
                caps.in_all,
                caps.files,
            )
            self.count, self.said_at = 0, now
