"""DDP's gradient buckets by name, when the user lets Ringside install a comm hook
(`--ddp-hook`, or `ringside.watch(..., ddp_hook=True)`).

The hook is DDP's own all-reduce (default_hooks.allreduce_hook) with a note taken
around it: the bucket's index, its element count and its parameters' names, and how
long the all-reduce took until its future completed, which gloo's Flight Recorder
cannot say. DDP takes one comm hook per model, so Ringside's is registered at a model's
first forward, and only if the job has not registered its own by then. It is opt-in:
a job that registers its hook after its first forward would be refused by DDP.

The reporter gives each all-reduce the Flight Recorder reads to the oldest note of the
same group and element count (DDP issues its buckets in order on every rank)."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

import torch
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

from ringside.worker_agent.core.watch_protocol import MAX_ISSUED, MAX_PARAMS, Bucket, Issued

MAX_NOTES = 4096  # notes not yet matched; the oldest go first


@dataclass
class Note:
    group: str
    bucket: Bucket
    started: float = field(default_factory=time.perf_counter)
    duration_s: float | None = None


class Buckets:
    def __init__(self):
        self.lock = threading.Lock()
        self.notes: deque[Note] = deque(maxlen=MAX_NOTES)

    def note(self, note: Note) -> None:
        with self.lock:
            self.notes.append(note)

    def match(self, group: str, numel: int) -> Note | None:
        """The oldest note of this group and size, taken."""
        with self.lock:
            for note in self.notes:
                if note.group == group and note.bucket.numel == numel:
                    self.notes.remove(note)
                    return note
        return None


class BucketNames:
    """The reporter's side: each all-reduce the recorder read named with the bucket it carried, where
    the hook noted one; one whose all-reduce had not completed when it was read is sent again, timed,
    once it has."""

    def __init__(self, buckets: Buckets):
        self.buckets = buckets
        self.untimed: list[tuple[Issued, Note]] = []  # sent before their all-reduce completed

    def named(self, one: Issued) -> Issued:
        """An all-reduce with the DDP bucket it carried, where the hook noted one."""
        if one.op != "all_reduce" or one.bucket is not None:
            return one
        note = self.buckets.match(one.group, one.count)
        if note is None:
            return one
        named = one.model_copy(
            update={"bucket": note.bucket, "duration_s": one.duration_s or note.duration_s}
        )
        if named.duration_s is None:
            self.untimed.append((named, note))
        return named

    def timed_since(self) -> list[Issued]:
        """The buckets sent untimed whose all-reduce has completed since."""
        timed = [
            one.model_copy(update={"duration_s": note.duration_s})
            for one, note in self.untimed
            if note.duration_s is not None
        ]
        self.untimed = [(one, note) for one, note in self.untimed if note.duration_s is None][-MAX_ISSUED:]
        return timed


class _State:
    def __init__(self, ddp, buckets: Buckets):
        self.process_group = ddp.process_group
        self.group = str(torch.distributed.distributed_c10d._get_process_group_name(ddp.process_group))
        self.names = {id(p): name for name, p in ddp.module.named_parameters()}
        self.buckets = buckets


def _hook(state: _State, bucket):
    tensor = bucket.buffer()
    note = Note(
        state.group,
        Bucket(
            index=bucket.index(),
            numel=tensor.numel(),
            params=[state.names.get(id(p), "?") for p in bucket.parameters()][:MAX_PARAMS],
        ),
    )
    state.buckets.note(note)
    future = default_hooks.allreduce_hook(state.process_group, bucket)

    def done(fut):
        note.duration_s = time.perf_counter() - note.started
        return fut.value()

    return future.then(done)


def install(buckets: Buckets) -> None:
    """Every DistributedDataParallel model takes the hook at its first forward, unless the job has
    registered a hook of its own by then: DDP takes one per model, and the job's comes first."""
    ddp = torch.nn.parallel.DistributedDataParallel
    register, builtin, forward = ddp.register_comm_hook, ddp._register_builtin_comm_hook, ddp.forward

    def register_comm_hook(self, *args, **kwargs):
        self._ringside_hooked = True  # the job's own: Ringside's steps aside
        return register(self, *args, **kwargs)

    def register_builtin_comm_hook(self, *args, **kwargs):
        self._ringside_hooked = True
        return builtin(self, *args, **kwargs)

    def first_forward(self, *args, **kwargs):
        if not getattr(self, "_ringside_hooked", False):
            self._ringside_hooked = True
            register(self, _State(self, buckets), _hook)
        return forward(self, *args, **kwargs)

    # patched on the class, on purpose: the job's own models take the hook (mypy forbids assigning methods)
    ddp.register_comm_hook = register_comm_hook  # type: ignore[method-assign]
    ddp._register_builtin_comm_hook = register_builtin_comm_hook  # type: ignore[method-assign]
    ddp.forward = first_forward  # type: ignore[method-assign]
