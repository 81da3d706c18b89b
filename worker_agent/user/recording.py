"""Recording send/recv code that users write (user_algorithms.traced) as it runs on the
real ranks. For the duration of the user's function, torch.distributed's point-to-point
calls (send, recv, isend, irecv, batch_isend_irecv, P2POp) are replaced by ones that post
the real call and note it: the peer, which part of the working buffer it reads or fills,
whether it blocks, when it was posted and completed, and the line of the user's file it
came from. A blocking call is an isend or irecv and a wait with the run's timeout, so code
that deadlocks stops within it, knowing which call it was blocked in. What reaches the
buffer is followed by following.py.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import FrameType

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d

from .following import Flow, Follow
from .rebuild import Call, Record, TraceError


class Blocked(Exception):
    """A call that did not complete within the run's timeout."""

    def __init__(self, call: Call):
        super().__init__(f"blocked in {call.name} with rank {call.peer} at {call.line}")
        self.call = call


class TracedWork:
    """What isend/irecv return under the tracer: wait() waits with the run's timeout and notes
    when the call completed."""

    def __init__(self, tracer: Tracer, index: int, work, tensor: torch.Tensor):
        self.tracer, self.index, self.work, self.tensor = tracer, index, work, tensor

    def wait(self, timeout=None) -> bool:
        self.tracer._wait(self, self.tracer._line())
        return True

    def is_completed(self) -> bool:
        return self.tracer.record.calls[self.index].done is not None or self.work.is_completed()


class P2POp:
    """torch's P2POp under the tracer: the op (isend or irecv) and its arguments, kept for
    batch_isend_irecv (torch's own checks that op is its own isend, which it no longer is)."""

    def __init__(
        self,
        op: Callable,
        tensor: torch.Tensor,
        peer: int | None = None,
        group=None,
        tag: int = 0,
        group_peer: int | None = None,
    ):
        self.op, self.tensor, self.group, self.tag = op, tensor, group, tag
        self.peer = peer if peer is not None else group_peer


class Tracer:
    """Runs fn(buffer, rank, size) with the point-to-point calls replaced. `ranks[i]` is the
    global rank of group rank i. With `record`, every call and every write into the buffer is
    noted (Record) with the values each write left; without, calls only wait with the timeout."""

    def __init__(
        self,
        fn: Callable,
        buffer: torch.Tensor,
        me: int,
        ranks: list[int],
        group,
        timeout: float,
        record: bool,
        roles: dict | None = None,
    ):
        self.fn, self.buffer, self.me, self.ranks, self.group = fn, buffer, me, ranks, group
        self.roles = roles or {}  # root and peer, for code that takes them
        self.timeout = timedelta(seconds=timeout)
        self.recording = record
        self.file = fn.__code__.co_filename
        self.record = Record()
        self.flow = Flow(buffer, self.record.writes, self._tick, self._line)  # where the data goes
        self.works: list[TracedWork] = []
        self.clock = 0
        self.start = 0.0

    # the calls the user's code makes, in place of torch.distributed's

    def run(self) -> Record:
        self.start = time.perf_counter()
        names = ("send", "recv", "isend", "irecv", "batch_isend_irecv", "P2POp", "get_rank", "get_world_size")
        saved = {name: getattr(dist, name) for name in names}
        replaced = {
            "send": self.send,
            "recv": self.recv,
            "isend": self.isend,
            "irecv": self.irecv,
            "batch_isend_irecv": self.batch_isend_irecv,
            "P2POp": P2POp,
            "get_rank": lambda group=None: self.me,
            "get_world_size": lambda group=None: len(self.ranks),
        }
        for name in names:
            setattr(dist, name, replaced[name])
        try:
            if self.recording:
                with Follow(self.flow):
                    self.fn(self.buffer, self.me, len(self.ranks), **self.roles)
            else:
                self.fn(self.buffer, self.me, len(self.ranks), **self.roles)
            for work in list(self.works):  # what the code never waited for is over when it returns
                self._wait(work, work.tracer.record.calls[work.index].line)
        finally:
            for name, value in saved.items():
                setattr(dist, name, value)
        return self.record

    def isend(self, tensor, dst=None, group=None, tag=0, group_dst=None):
        return self._post("send", "isend", tensor, dst if dst is not None else group_dst, group, tag)

    def irecv(self, tensor, src=None, group=None, tag=0, group_src=None):
        return self._post("recv", "irecv", tensor, src if src is not None else group_src, group, tag)

    def send(self, tensor, dst=None, group=None, tag=0, group_dst=None):
        line = self._line()
        peer = dst if dst is not None else group_dst
        self._wait(self._post("send", "send", tensor, peer, group, tag, line), line)

    def recv(self, tensor, src=None, group=None, tag=0, group_src=None):
        line = self._line()
        peer = src if src is not None else group_src
        self._wait(self._post("recv", "recv", tensor, peer, group, tag, line), line)
        return peer

    def batch_isend_irecv(self, ops):
        line = self._line()
        out = []
        for op in ops:
            kind = "send" if op.op in (self.isend, dist.isend, c10d.isend) else "recv"
            out.append(self._post(kind, "i" + kind, op.tensor, op.peer, op.group, op.tag, line))
        return out

    def _post(self, kind: str, name: str, tensor, peer, group, tag, line: str | None = None) -> TracedWork:
        line = line or self._line()
        if group is not None:
            raise TraceError(
                f"{line}: leave out group: peers are ranks of the run's group (0 to {len(self.ranks) - 1})"
            )
        if not isinstance(peer, int) or not 0 <= peer < len(self.ranks) or peer == self.me:
            raise TraceError(
                f"{line}: {name} needs a peer, another rank of the group "
                f"(0 to {len(self.ranks) - 1}), not {peer!r}"
            )
        self.flow.quiet = True
        try:
            region = self.flow.region(tensor, line)
            if kind == "send" and region is None and self.recording:
                region = self.flow.held_part(tensor, line)
            call = Call(kind, name, peer, int(tag), region, tensor.numel(), line, self._tick(), self._now())
            real = c10d.isend if kind == "send" else c10d.irecv
            posted = real(tensor, self.ranks[peer], group=self.group, tag=tag)
            work = TracedWork(self, len(self.record.calls), posted, tensor)
        finally:
            self.flow.quiet = False
        self.record.calls.append(call)
        self.works.append(work)
        return work

    def _wait(self, work: TracedWork, line: str) -> None:
        call = self.record.calls[work.index]
        if call.done is not None:
            return
        call.waited_at, call.t_wait = line, self._now()
        try:
            work.work.wait(self.timeout)
        except RuntimeError:  # timed out, or its peer gave up waiting first and closed the link
            raise Blocked(call) from None
        call.done, call.t_done = self._tick(), self._now()
        self.works.remove(work)
        if call.kind == "recv" and self.recording:
            self.flow.quiet = True
            try:
                self.flow.received(work.index, call, work.tensor)
            finally:
                self.flow.quiet = False

    def _line(self) -> str:
        """file:line of the innermost frame of the user's file on the stack."""
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != self.file:
            frame = frame.f_back
        return f"{Path(self.file).name}:{frame.f_lineno}" if frame is not None else Path(self.file).name

    def _tick(self) -> int:
        self.clock += 1
        return self.clock

    def _now(self) -> float:
        if self.buffer.device.type == "cuda":
            torch.cuda.synchronize(self.buffer.device)
        return time.perf_counter() - self.start
