"""Point-to-point traffic per peer, and the sends and receives a rank is blocked in. gloo's
Flight Recorder records no sends or receives, so ProcessGroup's send and recv (which isend,
irecv, send, recv and batch_isend_irecv all call, however the user imported them) are
wrapped: the wrapper counts the bytes and the op, numbers it (the nth send to that peer, or
receive from it: its peer's nth receive, or send, is the other side), and keeps it until it
is done. Work.wait is wrapped too, so a send or receive the rank waits on (a blocking send or
recv waits at once) is said as one it is blocked in: a rank blocked in a receive from a peer
blocked in a receive from it is a deadlock, certain at sight.

A receive from any source (recv_anysource) names no peer when it is issued and is not counted."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from dataclasses import dataclass

import torch.distributed as dist
from torch._C._distributed_c10d import ProcessGroup, Work

from ringside.worker_agent.core.watch_protocol import MAX_WAITS, Link, P2PWait

MAX_OPEN = 4096  # sends and receives not yet done, kept at most (one never waited on is let go when done)


@dataclass
class Open:
    work: Work
    wait: P2PWait


class Traffic:
    def __init__(self):
        self.lock = threading.Lock()  # counted on the user's threads, taken on the reporter's
        # peer -> sent, received, sends, receives: since the last take
        self.links: dict[int, list[int]] = {}
        self.issued: dict[int, list[int]] = {}  # peer -> sends, receives: in all
        self.open: dict[int, Open] = {}  # id(work) -> a send or receive not yet seen done

    def count(self, peer: int, nbytes: int, sending: bool) -> int:
        """One more send to `peer` (or receive from it) of `nbytes`: its number, that way."""
        with self.lock:
            link = self.links.setdefault(peer, [0, 0, 0, 0])
            link[0 if sending else 1] += nbytes
            link[2 if sending else 3] += 1
            issued = self.issued.setdefault(peer, [0, 0])
            issued[0 if sending else 1] += 1
            return issued[0 if sending else 1]

    def issued_op(self, work: Work | None, wait: P2PWait) -> None:
        """A send or receive issued: kept till it is done (its `work`; None: the backend gave none)."""
        if work is None:
            return
        with self.lock:
            if len(self.open) < MAX_OPEN:
                self.open[id(work)] = Open(work, wait)

    def waiting(self, work: Work, on: bool) -> None:
        """The rank begins (or ends) waiting on `work`, if it is a send or receive."""
        if id(work) not in self.open:  # a collective's, mostly: no lock taken (a read of a dict is atomic)
            return
        with self.lock:
            held = self.open.get(id(work))
            if held is None or held.work is not work:
                return
            if on:
                held.wait = held.wait.model_copy(update={"blocked": True})
            else:
                del self.open[id(work)]

    def take(self) -> list[Link]:
        """The traffic since the last take, with each peer's totals."""
        with self.lock:
            links, self.links = self.links, {}
            issued = {p: tuple(self.issued[p]) for p in links}
        return [
            Link(
                peer=p,
                sent=s,
                received=r,
                sends=n,
                receives=m,
                sends_total=issued[p][0],
                receives_total=issued[p][1],
            )
            for p, (s, r, n, m) in links.items()
        ]

    def waits(self) -> list[P2PWait]:
        """The sends and receives the rank is blocked in now; those done are let go."""
        with self.lock:
            held = list(self.open.items())
        done = [key for key, one in held if _done(one.work)]
        with self.lock:
            for key in done:
                self.open.pop(key, None)
        gone = set(done)
        return [one.wait for key, one in held if key not in gone and one.wait.blocked][:MAX_WAITS]


def _done(work: Work) -> bool:
    try:
        return work.is_completed()
    except Exception:  # a work the backend has failed: it waits on nothing any more
        return True


def _global(group: ProcessGroup, group_rank: int) -> int | None:
    try:
        return dist.get_global_rank(group, group_rank)
    except (ValueError, RuntimeError):
        return None


_installed = False


def install(traffic: Traffic) -> None:
    """Wrap ProcessGroup's send and recv, and Work's wait (once a process)."""
    global _installed
    if _installed:
        return
    _installed = True

    def wrap(name: str, sending: bool):
        original = getattr(ProcessGroup, name)

        @functools.wraps(original)
        def wrapper(self, tensors, peer, *args, **kwargs):
            work = original(self, tensors, peer, *args, **kwargs)
            with contextlib.suppress(Exception):  # counting must never break the user's call
                _note(traffic, self, tensors, peer, sending, work)
            return work

        return wrapper

    original_wait = Work.wait

    @functools.wraps(original_wait)
    def wait(self, *args, **kwargs):
        traffic.waiting(self, True)
        try:
            return original_wait(self, *args, **kwargs)
        finally:
            traffic.waiting(self, False)

    # patched on the class, on purpose: every call reaches it, whoever imported what (mypy forbids it)
    ProcessGroup.send = wrap("send", True)  # type: ignore[method-assign]
    ProcessGroup.recv = wrap("recv", False)  # type: ignore[method-assign]
    Work.wait = wait  # type: ignore[method-assign]


def _note(traffic: Traffic, group: ProcessGroup, tensors, peer: int, sending: bool, work) -> None:
    glob = _global(group, peer)
    if glob is None:
        return
    nbytes = sum(t.numel() * t.element_size() for t in tensors)
    nth = traffic.count(glob, nbytes, sending)
    first = tensors[0] if tensors else None
    wait = P2PWait(
        peer=glob,
        send=sending,
        nth=nth,
        count=sum(t.numel() for t in tensors),
        dtype=str(first.dtype).removeprefix("torch.") if first is not None else "",
        t_ns=time.time_ns(),
        blocked=False,
    )
    traffic.issued_op(work, wait)
