"""Point-to-point traffic per peer. gloo's Flight Recorder does not record sends and
receives, so the launcher wraps torch.distributed's isend and irecv (send, recv and
batch_isend_irecv go through them) before the user's code imports them: the wrapper
counts the bytes and calls the original. Only the launcher installs it: a module that
had already taken the originals (`from torch.distributed import isend`) would hold
functions that batch_isend_irecv no longer recognises.

A receive from any source (src=None) names no peer when it is issued and is not counted."""

from __future__ import annotations

import functools
import threading
from collections import defaultdict

import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from ringside.worker_agent.core.watch_protocol import Link


class Traffic:
    def __init__(self):
        self.lock = threading.Lock()  # counted on the user's threads, taken on the reporter's
        # peer -> sent, received, sends, receives
        self.links: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])

    def count(self, peer: int | None, nbytes: int, sending: bool) -> None:
        if peer is None or peer < 0:
            return
        with self.lock:
            link = self.links[peer]
            link[0 if sending else 1] += nbytes
            link[2 if sending else 3] += 1

    def take(self) -> list[Link]:
        """The traffic since the last take."""
        with self.lock:
            links, self.links = self.links, defaultdict(lambda: [0, 0, 0, 0])
        return [Link(peer=p, sent=s, received=r, sends=n, receives=m) for p, (s, r, n, m) in links.items()]


def _peer(peer: int | None, group, group_peer: int | None) -> int | None:
    if peer is not None:
        return peer
    if group_peer is None:
        return None
    try:
        return dist.get_global_rank(group or c10d._get_default_group(), group_peer)
    except (ValueError, RuntimeError):
        return None


def install(traffic: Traffic) -> None:
    """Wrap isend and irecv in torch.distributed (and in distributed_c10d, whose send, recv and
    batch_isend_irecv call them by their global names)."""
    originals = {name: getattr(c10d, name) for name in ("isend", "irecv")}

    def wrap(name: str, sending: bool):
        original = originals[name]
        side = "dst" if sending else "src"

        @functools.wraps(original)
        def wrapper(tensor, *args, **kwargs):
            try:
                peer = kwargs.get(side, args[0] if args else None)
                peer = _peer(peer, kwargs.get("group"), kwargs.get(f"group_{side}"))
                traffic.count(peer, tensor.numel() * tensor.element_size(), sending)
            except Exception:  # counting must never break the user's call
                pass
            return original(tensor, *args, **kwargs)

        return wrapper

    for name, sending in (("isend", True), ("irecv", False)):
        wrapped = wrap(name, sending)
        setattr(c10d, name, wrapped)
        setattr(dist, name, wrapped)
