"""Following the data of traced send/recv code (recording.py) into its buffer. While the
user's function runs, a torch function mode sees every torch call it makes: a tensor
received into carries that message, whatever is computed from it carries it on, and
writing it into a part of the buffer copies the message there, or reduces it in when that
part went into the value written too (`buf[a:b] += tmp`). A view of the buffer is known
by its storage offset and length; any other tensor is scratch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import torch
from torch.overrides import TorchFunctionMode

from .rebuild import Call, Region, TraceError, Write, size


class Flow:
    """Where one rank's data goes: what scratch tensors carry (messages, or a copy of a part
    of the buffer), and every write into the buffer (noted in `writes`, the rank's Record's),
    with the values it left there (`values`, while `keep`). `tick` numbers events in the
    rank's order (calls and writes share it); `line` names the line of the user's file that
    is running."""

    def __init__(
        self, buffer: torch.Tensor, writes: list[Write], tick: Callable[[], int], line: Callable[[], str]
    ):
        self.buffer, self.writes, self.tick, self.line = buffer, writes, tick, line
        self.values: list[torch.Tensor | None] = []  # per write: the part's values right after it
        self.keep = True  # keep the values each write left (for the steps' states)
        self.quiet = False  # the tracer's own torch calls are not the user's
        self.storage = buffer.untyped_storage().data_ptr()
        # scratch bytes -> what they hold
        self.carries: dict[int, dict[Region, frozenset]] = defaultdict(dict)

    def received(self, index: int, call: Call, tensor: torch.Tensor) -> None:
        if call.region is not None:  # straight into the buffer: a copy, there and then
            assert call.done is not None  # a receive is followed once it is done
            self._note_write(Write(call.done, call.region, [index], None, False, call.line))
        else:
            self._carry(tensor, frozenset({("msg", index)}))

    def region(self, t: torch.Tensor, line: str, strict: bool = True) -> Region | None:
        """The part of the buffer `t` views; None for a tensor that is not the buffer's. A view
        that is no contiguous run of the buffer is refused where it is sent or written (`strict`)."""
        if (
            not isinstance(t, torch.Tensor)
            or t.numel() == 0
            or t.untyped_storage().data_ptr() != self.storage
        ):
            return None
        if t.dtype != self.buffer.dtype or not t.is_contiguous():
            if not strict:
                return None
            raise TraceError(
                f"{line}: a view of the buffer that is not one contiguous run of its elements "
                f"({t.dtype}, strides {t.stride()}): slice the buffer (buf[a:b], buf.chunk(n))"
            )
        start = int(t.storage_offset() - self.buffer.storage_offset())  # an int on a real tensor: no SymInt
        return (start, start + t.numel())

    def _span(self, t: torch.Tensor) -> tuple[int, Region]:
        size = t.element_size()
        lo = int(t.storage_offset()) * size
        return t.untyped_storage().data_ptr(), (lo, lo + t.numel() * size)

    def _carried(self, t: torch.Tensor, line: str) -> frozenset:
        region = self.region(t, line, strict=False)
        if region is not None:
            return frozenset({("buf", region)})
        ptr, (lo, hi) = self._span(t)
        spans = self.carries.get(ptr, {}).items()
        return frozenset().union(*(held for (a, b), held in spans if a < hi and lo < b))

    def _carry(self, t: torch.Tensor, held: frozenset) -> None:
        ptr, (lo, hi) = self._span(t)
        spans = self.carries[ptr]
        for a, b in [s for s in spans if s[0] < hi and lo < s[1]]:  # memory reused: what was there is gone
            del spans[(a, b)]
        if held:
            spans[(lo, hi)] = held

    def held_part(self, t: torch.Tensor, line: str) -> Region:
        """The part of the buffer a scratch tensor about to be sent holds a copy of."""
        held = self._carried(t, line)
        parts = [r for kind, r in held if kind == "buf"]
        if len(held) == 1 and parts and parts[0][1] - parts[0][0] == t.numel():
            return parts[0]
        raise TraceError(
            f"{line}: this send's tensor holds no one part of the buffer (it holds "
            f"{'received data' if held else 'nothing traced'}): send a view of the buffer "
            "(buf[a:b]), so that the transfer can be drawn between the ranks' buffers"
        )

    def observe(self, func, args, kwargs, out) -> None:
        """A torch call the user's code made: follow what it writes and what its result carries."""
        name = getattr(func, "__name__", "")
        line = self.line()
        target, reads, inputs = _written(name, args, kwargs)
        if target is None:  # a new tensor, or a view: it carries what went into it
            held = (
                frozenset()
                if name.endswith("_like") or name in FACTORIES
                else frozenset().union(*(self._carried(t, line) for t in inputs))
            )
            for t in _tensors(out):
                if t.untyped_storage().data_ptr() != self.storage:
                    self._carry(t, held)
            return
        held = frozenset().union(*(self._carried(t, line) for t in inputs))
        region = self.region(target, line)
        if region is None:  # scratch written in place
            self._carry(target, held | (self._carried(target, line) if reads else frozenset()))
            return
        self._wrote(region, held, reads, line)

    def _wrote(self, region: Region, held: frozenset, reads: bool, line: str) -> None:
        if held == frozenset({("buf", region)}):  # written with itself: `buf[a:b] += x` stores the view back
            return
        messages = sorted(i for kind, i in held if kind == "msg")
        parts = {r for kind, r in held if kind == "buf"}
        reads = reads or region in parts
        parts.discard(region)
        if messages and not parts and (reads or len(messages) == 1):
            self._note_write(Write(self.tick(), region, messages, None, reads, line))
        elif not messages and len(parts) == 1 and not reads and size(next(iter(parts))) == size(region):
            self._note_write(Write(self.tick(), region, [], parts.pop(), False, line))
        elif not messages and not parts and not reads and not held:
            raise TraceError(
                f"{line}: the code overwrites part {list(region)} of its buffer with data that "
                "came from no send/recv; Ringside draws only what ranks send each other"
            )
        elif not messages and not parts:
            raise TraceError(
                f"{line}: the code changes part {list(region)} of its buffer with nothing it "
                "received; Ringside draws only what ranks send each other"
            )
        elif not messages:
            raise TraceError(
                f"{line}: the code combines parts of its own buffer; Ringside draws what ranks "
                "send each other, and whole copies of a part within a rank"
            )
        else:
            raise TraceError(
                f"{line}: the code mixes received data with other parts of its buffer, or "
                "copies two messages into one part; write each message into its part on its own"
            )

    def _note_write(self, write: Write) -> None:
        self.writes.append(write)
        a, b = write.region
        self.values.append(self.buffer[a:b].clone() if self.keep else None)


FACTORIES = frozenset(
    {"empty", "zeros", "ones", "full", "arange", "rand", "randn", "randint", "tensor", "empty_strided"}
)
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
    in_place = (name.endswith("_") and not name.startswith("_")) or (
        name.startswith("__i") and name.endswith("__")
    )
    if in_place and args and isinstance(args[0], torch.Tensor):
        return args[0], name not in NOT_READING, list(_tensors((args[1:], kwargs)))
    return None, False, list(_tensors((args, kwargs)))


class Follow(TorchFunctionMode):
    """The torch function mode that shows a Flow the user's torch calls."""

    def __init__(self, flow: Flow):
        super().__init__()
        self.flow = flow

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if not self.flow.quiet:
            self.flow.observe(func, args, kwargs, out)
        return out
