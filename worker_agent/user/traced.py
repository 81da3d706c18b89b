"""Send/recv code that users write (user_algorithms.traced), run on the real ranks and
recorded call by call, then rebuilt into a Schedule that is animated like any other.

Recording (Tracer). For the duration of the user's function, torch.distributed's
point-to-point calls (send, recv, isend, irecv, batch_isend_irecv, P2POp) are replaced
by ones that post the real call and note it: the peer, which part of the working buffer
it reads or fills (from the view's storage offset and length; a tensor that is no view
of the buffer is scratch), whether it blocks, when it was posted and completed, and the
line of the user's file it came from. A blocking call is an isend or irecv and a wait
with the run's timeout, so code that deadlocks stops within it, knowing which call it
was blocked in. What reaches the buffer is followed through scratch by a torch function
mode: a tensor received into carries that message, whatever is computed from it carries
it on, and writing it into a part of the buffer copies the message there, or reduces it
in when that part went into the value written too (`buf[a:b] += tmp`).

Pooling (pool). Every rank's record, or the call it was blocked in, goes through the
group's rendezvous store, which still works when the group's own links are stuck; so
every rank learns what all did, and a deadlock is told as its wait-for cycle.

Rebuilding (rebuild.py, pure): the records become a Schedule, steps by what happened
before what. The steps, simulated on the run's inputs, must give every rank's buffer as
the code left it, or the run stops saying so.

Each rank's calls (posted, waited for, completed) go with the run too, so a page can
show where a rank blocked (the built-in point-to-point lesson, algorithms/p2p.py).
"""

from __future__ import annotations

import inspect
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as c10d
from torch.overrides import TorchFunctionMode

from ..core.algorithms import TRACED
from ..core.inputs import numpy_input
from ..core.protocol import MAX_CALLS, MAX_RUN_VALUES, CallTime
from .rebuild import (
    Call,
    Rebuilt,
    Record,
    Region,
    TraceError,
    Write,
    rebuild,
    size,
    stuck,
)
from ..core.schedule import Schedule
from ..core.simulate import initial_buffers
from ..core.simulate import states as simulate_states
from ..rank.verify import compare

EXPLAIN_UP_TO = 1 << 22  # values in all ranks' buffers up to which a recorded pass is checked against its steps


class Blocked(Exception):
    """A call that did not complete within the run's timeout."""

    def __init__(self, call: Call):
        super().__init__(f"blocked in {call.name} with rank {call.peer} at {call.line}")
        self.call = call


# --- recording ---------------------------------------------------------------


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

    def __init__(self, op: Callable, tensor: torch.Tensor, peer: int | None = None, group=None, tag: int = 0,
                 group_peer: int | None = None):
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer if peer is not None else group_peer, group, tag


class Tracer:
    """Runs fn(buffer, rank, size) with the point-to-point calls replaced. `ranks[i]` is the
    global rank of group rank i. With `record`, every call and every write into the buffer is
    noted (Record) with the values each write left; without, calls only wait with the timeout."""

    def __init__(self, fn: Callable, buffer: torch.Tensor, me: int, ranks: list[int], group, timeout: float, record: bool,
                 roles: dict | None = None):
        self.fn, self.buffer, self.me, self.ranks, self.group = fn, buffer, me, ranks, group
        self.roles = roles or {}  # root and peer, for code that takes them
        self.timeout = timedelta(seconds=timeout)
        self.recording = record
        self.file = fn.__code__.co_filename
        self.record = Record()
        self.values: list[torch.Tensor] = []  # per write: the part's values right after it
        self.works: list[TracedWork] = []
        self.clock = 0
        self.start = 0.0
        self.quiet = False  # the tracer's own torch calls are not the user's
        self.keep = True  # keep the values each write left (for the steps' states)
        self.storage = buffer.untyped_storage().data_ptr()
        self.carries: dict[int, dict[Region, frozenset]] = defaultdict(dict)  # scratch bytes -> what they hold

    # the calls the user's code makes, in place of torch.distributed's

    def run(self) -> Record:
        self.start = time.perf_counter()
        names = ("send", "recv", "isend", "irecv", "batch_isend_irecv", "P2POp", "get_rank", "get_world_size")
        saved = {name: getattr(dist, name) for name in names}
        replaced = {"send": self.send, "recv": self.recv, "isend": self.isend, "irecv": self.irecv,
                    "batch_isend_irecv": self.batch_isend_irecv, "P2POp": P2POp,
                    "get_rank": lambda group=None: self.me, "get_world_size": lambda group=None: len(self.ranks)}
        for name in names:
            setattr(dist, name, replaced[name])
        try:
            if self.recording:
                with _Follow(self):
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
        self._wait(self._post("send", "send", tensor, dst if dst is not None else group_dst, group, tag, line), line)

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
            raise TraceError(f"{line}: leave out group: peers are ranks of the run's group (0 to {len(self.ranks) - 1})")
        if not isinstance(peer, int) or not 0 <= peer < len(self.ranks) or peer == self.me:
            raise TraceError(f"{line}: {name} needs a peer, another rank of the group (0 to {len(self.ranks) - 1}), not {peer!r}")
        self.quiet = True
        try:
            region = self._region(tensor, line)
            if kind == "send" and region is None and self.recording:
                region = self._held_part(tensor, line)
            call = Call(kind, name, peer, int(tag), region, tensor.numel(), line, self._tick(), self._now())
            real = c10d.isend if kind == "send" else c10d.irecv
            work = TracedWork(self, len(self.record.calls), real(tensor, self.ranks[peer], group=self.group, tag=tag), tensor)
        finally:
            self.quiet = False
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
            self.quiet = True
            try:
                self._received(work.index, call, work.tensor)
            finally:
                self.quiet = False

    def _received(self, index: int, call: Call, tensor: torch.Tensor) -> None:
        if call.region is not None:  # straight into the buffer: a copy, there and then
            self._note_write(Write(call.done, call.region, [index], None, False, call.line))
        else:
            self._carry(tensor, frozenset({("msg", index)}))

    # where the data goes: the buffer's parts, and what scratch tensors carry

    def _region(self, t: torch.Tensor, line: str, strict: bool = True) -> Region | None:
        """The part of the buffer `t` views; None for a tensor that is not the buffer's. A view
        that is no contiguous run of the buffer is refused where it is sent or written (`strict`)."""
        if not isinstance(t, torch.Tensor) or t.untyped_storage().data_ptr() != self.storage or t.numel() == 0:
            return None
        if t.dtype != self.buffer.dtype or not t.is_contiguous():
            if not strict:
                return None
            raise TraceError(f"{line}: a view of the buffer that is not one contiguous run of its elements "
                             f"({t.dtype}, strides {t.stride()}): slice the buffer (buf[a:b], buf.chunk(n))")
        start = t.storage_offset() - self.buffer.storage_offset()
        return (start, start + t.numel())

    def _span(self, t: torch.Tensor) -> tuple[int, Region]:
        size = t.element_size()
        lo = t.storage_offset() * size
        return t.untyped_storage().data_ptr(), (lo, lo + t.numel() * size)

    def _carried(self, t: torch.Tensor, line: str) -> frozenset:
        region = self._region(t, line, strict=False)
        if region is not None:
            return frozenset({("buf", region)})
        ptr, (lo, hi) = self._span(t)
        return frozenset().union(*(held for (a, b), held in self.carries.get(ptr, {}).items() if a < hi and lo < b))

    def _carry(self, t: torch.Tensor, held: frozenset) -> None:
        ptr, (lo, hi) = self._span(t)
        spans = self.carries[ptr]
        for a, b in [s for s in spans if s[0] < hi and lo < s[1]]:  # memory reused: what was there is gone
            del spans[(a, b)]
        if held:
            spans[(lo, hi)] = held

    def _held_part(self, t: torch.Tensor, line: str) -> Region:
        """The part of the buffer a scratch tensor about to be sent holds a copy of."""
        held = self._carried(t, line)
        parts = [r for kind, r in held if kind == "buf"]
        if len(held) == 1 and parts and parts[0][1] - parts[0][0] == t.numel():
            return parts[0]
        raise TraceError(f"{line}: this send's tensor holds no one part of the buffer (it holds "
                         f"{'received data' if held else 'nothing traced'}): send a view of the buffer "
                         "(buf[a:b]), so that the transfer can be drawn between the ranks' buffers")

    def _observe(self, func, args, kwargs, out) -> None:
        """A torch call the user's code made: follow what it writes and what its result carries."""
        name = getattr(func, "__name__", "")
        line = self._line()
        target, reads, inputs = _written(name, args, kwargs)
        if target is None:  # a new tensor, or a view: it carries what went into it
            held = frozenset() if name.endswith("_like") or name in FACTORIES else \
                frozenset().union(*(self._carried(t, line) for t in inputs))
            for t in _tensors(out):
                if t.untyped_storage().data_ptr() != self.storage:
                    self._carry(t, held)
            return
        held = frozenset().union(*(self._carried(t, line) for t in inputs))
        region = self._region(target, line)
        if region is None:  # scratch written in place
            self._carry(target, held | (self._carried(target, line) if reads else frozenset()))
            return
        self._wrote(region, held, reads, line)

    def _wrote(self, region: Region, held: frozenset, reads: bool, line: str) -> None:
        if held == frozenset({("buf", region)}):  # a part written with itself (`buf[a:b] += x` stores the view back)
            return
        messages = sorted(i for kind, i in held if kind == "msg")
        parts = {r for kind, r in held if kind == "buf"}
        reads = reads or region in parts
        parts.discard(region)
        if messages and not parts and (reads or len(messages) == 1):
            self._note_write(Write(self._tick(), region, messages, None, reads, line))
        elif not messages and len(parts) == 1 and not reads and size(next(iter(parts))) == size(region):
            self._note_write(Write(self._tick(), region, [], parts.pop(), False, line))
        elif not messages and not parts and not reads and not held:
            raise TraceError(f"{line}: the code overwrites part {list(region)} of its buffer with data that came from "
                             "no send/recv; Ringside draws only what ranks send each other")
        elif not messages and not parts:
            raise TraceError(f"{line}: the code changes part {list(region)} of its buffer with nothing it received; "
                             "Ringside draws only what ranks send each other")
        elif not messages:
            raise TraceError(f"{line}: the code combines parts of its own buffer; Ringside draws what ranks send each "
                             "other, and whole copies of a part within a rank")
        else:
            raise TraceError(f"{line}: the code mixes received data with other parts of its buffer, or copies "
                             "two messages into one part; write each message into its part on its own")

    def _note_write(self, write: Write) -> None:
        self.record.writes.append(write)
        a, b = write.region
        self.values.append(self.buffer[a:b].clone() if self.keep else None)

    def _line(self) -> str:
        """file:line of the innermost frame of the user's file on the stack."""
        frame = sys._getframe(1)
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


FACTORIES = frozenset({"empty", "zeros", "ones", "full", "arange", "rand", "randn", "randint", "tensor", "empty_strided"})
NOT_READING = frozenset({"copy_", "fill_", "zero_", "set_", "resize_", "normal_", "uniform_", "random_"})


def _tensors(x):
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _tensors(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _tensors(y)


def _written(name: str, args, kwargs) -> tuple[torch.Tensor | None, bool, list[torch.Tensor]]:
    """(the tensor a torch call writes in place or None, whether it reads it first, the tensors it reads)."""
    if name == "__setitem__" and isinstance(args[0], torch.Tensor):
        return args[0][args[1]], False, list(_tensors(args[2:]))
    out = kwargs.get("out")
    if isinstance(out, torch.Tensor):
        inputs = [t for t in _tensors((args, {k: v for k, v in kwargs.items() if k != "out"}))]
        return out, False, inputs
    in_place = (name.endswith("_") and not name.startswith("_")) or (name.startswith("__i") and name.endswith("__"))
    if in_place and args and isinstance(args[0], torch.Tensor):
        return args[0], name not in NOT_READING, list(_tensors((args[1:], kwargs)))
    return None, False, list(_tensors((args, kwargs)))


class _Follow(TorchFunctionMode):
    def __init__(self, tracer: Tracer):
        super().__init__()
        self.tracer = tracer

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not self.tracer.quiet:
            self.tracer._observe(func, args, kwargs, out)
        return out


# --- pooling through the store -------------------------------------------------


def pool(key: str, mine: dict, me: int, size: int, timeout: float) -> list[dict]:
    """Every group rank's `mine`, through the rendezvous store (rank i's under key/i). The
    store outlives the group's links, so ranks stuck in a send or recv still reach it."""
    store = c10d._get_default_store()
    store.set(f"{key}/{me}", json.dumps(mine))
    keys = [f"{key}/{r}" for r in range(size)]
    try:
        store.wait(keys, timedelta(seconds=timeout))
    except Exception:  # noqa: BLE001 - whatever the store says, the answer is who is missing
        missing = [r for r, k in enumerate(keys) if not store.check([k])]
        raise TraceError(f"group ranks {missing} neither finished their code nor blocked in a send or recv within "
                         f"{timeout:g} s") from None
    out = [json.loads(store.get(k)) for k in keys]
    store.set(f"{key}/read/{me}", "1")
    if dist.get_rank() == 0:  # the store lives in world rank 0: it stays until every rank has read
        store.wait([f"{key}/read/{r}" for r in range(size)], timedelta(seconds=timeout))
    return out


# --- one run's traced code, for the runner --------------------------------------


def traced_of(spec, collective, buffer: torch.Tensor, me: int, ranks: list[int], group, root: int,
              count: int, world_size: int, peer: int) -> TracedRun | None:
    """The run's traced code on this rank, or None when its algorithm is no traced one."""
    entry = TRACED.get(spec.collective, {}).get(spec.algorithm)
    if entry is None:
        return None
    return TracedRun(entry.fn, spec, collective, buffer, me, ranks, group, root, count, entry.layout, world_size, peer)

_PASSES: dict[str, int] = defaultdict(int)  # traced passes per run id: one store key each


class TracedRun:
    """The traced algorithm of one run on this rank: the recorded pass (which learns the
    schedule), then plain passes for the timed iterations."""

    def __init__(self, fn: Callable, spec, collective, buffer: torch.Tensor, me: int, ranks: list[int], group,
                 root: int, count: int, layout: str, world_size: int, peer: int):
        self.fn, self.spec, self.collective, self.buffer = fn, spec, collective, buffer
        taken = inspect.signature(fn).parameters
        self.roles = {k: v for k, v in (("root", root), ("peer", peer)) if k in taken}
        self.me, self.ranks, self.group, self.root, self.count, self.layout = me, ranks, group, root, count, layout
        self.world_size = world_size
        self.rebuilt: Rebuilt | None = None
        self.tracer: Tracer | None = None

    def learn(self, run_id: str) -> Schedule:
        """Run the code once, recorded, on every rank; pool the records; rebuild the steps."""
        spec = self.spec
        c10d.barrier(self.group, async_op=True).wait(timedelta(seconds=spec.timeout))  # one start: times compare
        tracer = Tracer(self.fn, self.buffer, self.me, self.ranks, self.group, spec.timeout, record=True, roles=self.roles)
        tracer.keep = spec.capture != "none"
        try:
            status = {"done": tracer.run().to_json()}
        except Blocked as e:
            status = {"blocked": asdict(e.call)}
        except Exception as e:  # noqa: BLE001 - the user's code: what it raised, and where, goes to the group
            status = {"raised": f"{type(e).__name__}: {e}" if isinstance(e, TraceError) else
                      f"{type(e).__name__}: {e} ({_where(e, tracer.file)})"}
        _PASSES[run_id] += 1
        statuses = pool(f"ringside/traced/{run_id}/{_PASSES[run_id]}", status, self.me, len(self.ranks), spec.timeout)
        words = stuck(statuses, self.ranks)
        if words is not None:
            raise TraceError(words)
        rebuilt = rebuild([Record.from_json(s["done"]) for s in statuses], self.collective, spec.algorithm, self.root,
                          self.count, self.layout)
        p, values = len(self.ranks), self.collective.blocks(len(self.ranks)) * self.count
        if spec.capture == "full" and len(rebuilt.schedule.steps) * p * values > MAX_RUN_VALUES:
            raise TraceError(f"capture: 'full' would ship up to {len(rebuilt.schedule.steps) * p * values} values over "
                             f"{len(rebuilt.schedule.steps)} steps, more than the {MAX_RUN_VALUES} a run keeps; use 'summary'")
        self.tracer, self.rebuilt = tracer, rebuilt
        verdicts = pool(f"ringside/traced/{run_id}/{_PASSES[run_id]}/explained", {"words": self._unexplained()}, self.me,
                        len(self.ranks), spec.timeout)
        words = next((v["words"] for v in verdicts if v["words"]), None)
        if words is not None:  # every rank stops alike, whichever rank's buffer the steps do not explain
            raise TraceError(words)
        return rebuilt.schedule

    def _unexplained(self) -> str | None:
        """Why the rebuilt steps, simulated on the run's inputs, do not give this rank's buffer
        as the code left it; None when they do (as they must, or the animation would lie).
        Checked up to EXPLAIN_UP_TO values in all (every rank simulates every buffer)."""
        schedule, spec = self.rebuilt.schedule, self.spec
        if len(self.ranks) * self.buffer.numel() > EXPLAIN_UP_TO:
            return None
        inputs = [numpy_input(spec, r, self.world_size) for r in range(len(self.ranks))]
        buffers = initial_buffers(schedule, inputs, self.count)
        for _ in simulate_states(schedule, buffers, self.count, self.collective.op(spec)):
            pass
        want = torch.from_numpy(buffers[self.me]).to(dtype=self.buffer.dtype, device=self.buffer.device)
        verdict = compare(self.collective.reduces, self.buffer, want, len(self.ranks))
        if verdict.verified:
            return None
        i, got, wanted = verdict.mismatches[0]
        return (f"the recorded calls do not explain rank {self.ranks[self.me]}'s buffer: at element {i} it holds {got:g} "
                f"where the rebuilt steps give {wanted:g}; the code changed it in a way Ringside does not follow")

    def states(self, step: int) -> list[tuple[int, torch.Tensor]]:
        """(chunk, values) of every chunk this rank wrote in `step`, as the step left it (none
        at capture `none`, where the values are not kept)."""
        if not self.tracer.keep:
            return []
        bounds = self.rebuilt.schedule.chunk_bounds(self.count)
        out: dict[int, torch.Tensor] = {}
        for w in self.rebuilt.writes[self.me][step]:
            a, b = self.tracer.record.writes[w].region
            values = self.tracer.values[w]
            for c, (lo, hi) in enumerate(bounds):
                if a <= lo and hi <= b:
                    out[c] = values[lo - a : hi - a]
        return sorted(out.items())

    def times(self) -> list[tuple[float, float]]:
        return self.rebuilt.times[self.me]

    def calls(self) -> list[CallTime]:
        """This rank's calls in the recorded pass, in the order posted: when each was posted,
        began to be waited for and completed (a blocking call waits from its post)."""
        return [CallTime(name=c.name, peer=self.ranks[c.peer], line=c.line, posted=c.t_posted,
                         waited=c.t_wait if c.t_wait is not None else c.t_done, done=c.t_done)
                for c in self.tracer.record.calls[:MAX_CALLS]]

    def bytes(self) -> tuple[int, int]:
        size = self.buffer.element_size()
        return self.rebuilt.bytes_sent[self.me] * size, self.rebuilt.bytes_received[self.me] * size

    def run_once(self) -> None:
        """One timed pass: the calls wait with the run's timeout, nothing is recorded."""
        try:
            Tracer(self.fn, self.buffer, self.me, self.ranks, self.group, self.spec.timeout, record=False,
                   roles=self.roles).run()
        except Blocked as e:
            raise TraceError(f"rank {self.ranks[self.me]} blocked in {e.call.name} with rank {self.ranks[e.call.peer]} "
                             f"({e.call.line}) in a timed pass, though the recorded pass finished") from None


def _where(e: Exception, file: str) -> str:
    """file:line in the user's file where `e` was raised."""
    tb, line = e.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == file:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"{Path(file).name}:{line}" if line is not None else Path(file).name
