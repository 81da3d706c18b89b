"""The collectives a rank issued, read from PyTorch's c10d Flight Recorder in this process.

The recorder keeps a ring of the last N collectives of every process group (gloo and
NCCL; on by default, N from TORCH_FR_BUFFER_SIZE). Each read dumps the whole ring, so
its cost grows with N while it holds the GIL (measured here: 1.5 ms at 256 entries,
12.5 ms at 2,000): the launcher sets a smaller ring when the user has not chosen one,
and the reporter spaces its reads by what they cost (reporter.py).

gloo records each collective's group, sequence number, op, sizes and dtypes and the
time it was issued, but no durations. NCCL with TORCH_NCCL_ENABLE_TIMING=1 adds when it
started and completed: such an entry is read again until it has completed, and sent a
second time with its duration. Point-to-point ops are left to p2p.py, which knows the
peer."""

from __future__ import annotations

import math
import pickle
import time

# torch's stub (torch/_C/_distributed_c10d.pyi) leaves out this private binding, which the module has
from torch._C._distributed_c10d import _dump_fr_trace  # type: ignore[attr-defined]

from ringside.worker_agent.core.watch_protocol import Issued

DEFAULT_RING = 512  # entries, when the launcher chooses (TORCH_FR_BUFFER_SIZE unset)
MAX_TIMING = 4096  # NCCL entries waited on for their duration at most
ITEMSIZE = {
    "Float": 4,
    "Double": 8,
    "Half": 2,
    "BFloat16": 2,
    "Int": 4,
    "Long": 8,
    "Short": 2,
    "Char": 1,
    "Byte": 1,
    "Bool": 1,
    "ComplexFloat": 8,
    "ComplexDouble": 16,
}
DTYPE = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Int": "int32",
    "Long": "int64",
    "Short": "int16",
    "Char": "int8",
    "Byte": "uint8",
    "Bool": "bool",
    "ComplexFloat": "complex64",
    "ComplexDouble": "complex128",
}


class FlightReader:
    def __init__(self):
        self.last = -1  # the last record id read
        self.missed = 0  # records the ring overwrote before a read saw them
        self.timing: set[int] = set()  # record ids sent without a duration that the backend will time
        self.cost = 0.0  # seconds the last read held the GIL for
        self.filling = False  # the last read found half the ring new: read again soon, or lose some
        self.pending: dict[str, int] = {}  # per group, the oldest collective issued and not completed

    def read(self) -> list[Issued]:
        """The collectives issued since the last read (and any newly timed), oldest first."""
        began = time.perf_counter()
        entries = pickle.loads(
            _dump_fr_trace(includeCollectives=True, includeStackTraces=False, onlyActive=False)
        )
        self.cost = time.perf_counter() - began
        return self.take(entries)

    def take(self, entries: dict) -> list[Issued]:
        """What a dump of the recorder holds that the last take did not, oldest first: this process's
        own, or one torch wrote to a file or served (post-mortem reads those alike)."""
        records = sorted(entries.get("entries", ()), key=lambda e: e["record_id"])
        self.pending = pending(records)
        out = []
        if records and self.last >= 0 and records[0]["record_id"] > self.last + 1:
            self.missed += records[0]["record_id"] - self.last - 1
        for entry in records:
            record = entry["record_id"]
            if record > self.last and not entry.get("is_p2p"):
                out.append(issued(entry))
                if _timed(entry) and len(self.timing) < MAX_TIMING:
                    self.timing.add(record)
            elif record in self.timing and entry.get("state") == "completed":
                self.timing.discard(record)
                out.append(issued(entry))
        self.filling = 2 * sum(e["record_id"] > self.last for e in records) >= max(len(records), 2)
        if records:
            self.last = max(self.last, records[-1]["record_id"])
            # what fell out of the ring is gone
            self.timing.intersection_update(e["record_id"] for e in records)
        return out


def pending(records: list[dict]) -> dict[str, int]:
    """Per group, the oldest collective this rank issued and has not completed: the recorder retires
    an entry once its work is done (gloo too), so a rank that waits in a collective every rank issued
    (one of them stopped inside it) says which, where issue times alone cannot."""
    oldest: dict[str, int] = {}
    for entry in records:
        if not entry.get("retired", True) and not entry.get("is_p2p"):
            group, seq = str(entry["process_group"][0]), entry["collective_seq_id"]
            oldest[group] = min(oldest.get(group, seq), seq)
    return oldest


def _timed(entry: dict) -> bool:
    """Whether the backend times this entry (NCCL with timing on starts its clock)."""
    return entry.get("state") != "completed" and "duration_ms" in entry


def issued(entry: dict) -> Issued:
    sizes_in, sizes_out = entry.get("input_sizes") or [], entry.get("output_sizes") or []
    dtypes = entry.get("input_dtypes") or entry.get("output_dtypes") or [""]
    itemsize = ITEMSIZE.get(dtypes[0], 0)
    count = sum(math.prod(s) for s in sizes_in)
    out = sum(math.prod(s) for s in sizes_out)
    duration = entry.get("duration_ms")
    return Issued(
        group=str(entry["process_group"][0]),
        seq=entry["collective_seq_id"],
        op=entry["profiling_name"].rpartition(":")[2],
        dtype=DTYPE.get(dtypes[0], dtypes[0].lower()),
        count=count,
        bytes=max(count, out) * itemsize,
        t_ns=entry["time_created_ns"],
        duration_s=duration / 1e3 if isinstance(duration, (int, float)) and duration > 0 else None,
    )
