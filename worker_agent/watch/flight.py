"""The collectives a rank issued, read from PyTorch's c10d Flight Recorder in this process.

The recorder keeps a ring of the last N collectives of every process group (gloo and
NCCL; on by default, N from TORCH_FR_BUFFER_SIZE). Each read dumps the whole ring, so
its cost grows with N while it holds the GIL (measured here: 1.5 ms at 256 entries,
12.5 ms at 2,000): the launcher sets a smaller ring when the user has not chosen one,
and the reporter reads only as often as the ring needs and its cost allows (pace.py).

gloo records each collective's group, sequence number, op, sizes and dtypes and the
time it was issued, but no durations. NCCL with TORCH_NCCL_ENABLE_TIMING=1 adds when it
started and completed: such an entry is read again until it has completed, and sent a
second time with its duration.

gloo records no sends or receives (p2p.py sees those); NCCL records each, with its peer in
the profiling name ("nccl:send 0->1", group ranks). They are kept (P2PSeen): counted per
peer, so each pairs with its peer's by order, and those not yet done are what the rank waits
in on the GPU, where its CPU does not wait."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable
from dataclasses import dataclass

# torch's stub (torch/_C/_distributed_c10d.pyi) leaves out this private binding, which the module has
from torch._C._distributed_c10d import _dump_fr_trace  # type: ignore[attr-defined]

from ringside.worker_agent.core.watch_protocol import Issued, Link, P2PWait

DEFAULT_RING = 2048  # entries, when the launcher chooses (TORCH_FR_BUFFER_SIZE unset): a second
# at 2,000 collectives a second; reads come when half of it is new (pace.py), so a reporter
# starved of the CPU for half a second loses none
MAX_TIMING = 4096  # NCCL entries waited on for their duration at most
MAX_OPEN_P2P = 1024  # NCCL sends and receives not yet done, kept at most
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


@dataclass(frozen=True)
class P2PSeen:
    """A send or receive as the recorder keeps it: the peer is the global rank."""

    send: bool
    peer: int
    count: int
    nbytes: int
    dtype: str
    t_ns: int
    done: bool  # retired: complete


def p2p_seen(entry: dict, ranks_of: Callable[[str], list[int] | None]) -> P2PSeen | None:
    """A recorder's p2p entry, its peer made global by its group's ranks (`ranks_of`: a group's ranks
    by name, or None: the default group's ranks are the global ones); None where it names none."""
    name = entry.get("profiling_name", "").rpartition(":")[2]
    op, _, peers = name.partition(" ")
    # "send 0->1" (this rank, then its peer); "recv 0<-1" (this rank, then its peer): group ranks
    mine, _, peer = peers.partition("->" if op == "send" else "<-")
    if op not in ("send", "recv") or not peer.strip().isdigit() or not mine.strip().isdigit():
        return None
    ranks = ranks_of(str(entry["process_group"][0]))
    local = int(peer)
    if ranks is not None and local >= len(ranks):
        return None
    sizes = entry.get("input_sizes") if op == "send" else entry.get("output_sizes")
    dtypes = entry.get("input_dtypes" if op == "send" else "output_dtypes") or [""]
    count = sum(math.prod(s) for s in sizes or [])
    return P2PSeen(
        send=op == "send",
        peer=ranks[local] if ranks is not None else local,
        count=count,
        nbytes=count * ITEMSIZE.get(dtypes[0], 0),
        dtype=DTYPE.get(dtypes[0], dtypes[0].lower()),
        t_ns=entry.get("time_created_ns", 0),
        done=bool(entry.get("retired", True)),
    )


class FlightP2P:
    """The recorder's sends and receives, read as they come: each the nth with its peer that way,
    the traffic per peer since the last take, and the ones not done (what the rank waits in)."""

    def __init__(self):
        self.issued: dict[tuple[int, bool], int] = {}  # (peer, send) -> how many, in all
        self.traffic: dict[int, list[int]] = {}  # peer -> sent, received, sends, receives: since the take
        self.open: dict[int, P2PWait] = {}  # record id -> not yet done

    def saw(self, record: int, one: P2PSeen) -> None:
        """A new entry."""
        nth = self.issued[(one.peer, one.send)] = self.issued.get((one.peer, one.send), 0) + 1
        link = self.traffic.setdefault(one.peer, [0, 0, 0, 0])
        link[0 if one.send else 1] += one.nbytes
        link[2 if one.send else 3] += 1
        if not one.done and len(self.open) < MAX_OPEN_P2P:
            self.open[record] = P2PWait(
                peer=one.peer,
                send=one.send,
                nth=nth,
                count=one.count,
                dtype=one.dtype,
                t_ns=one.t_ns,
                blocked=False,  # on the GPU: its CPU went on
            )

    def done(self, record: int) -> None:
        self.open.pop(record, None)

    def waits(self) -> list[P2PWait]:
        return list(self.open.values())

    def take(self) -> list[Link]:
        """The traffic since the last take, with each peer's totals."""
        traffic, self.traffic = self.traffic, {}
        return [
            Link(
                peer=p,
                sent=s,
                received=r,
                sends=n,
                receives=m,
                sends_total=self.issued.get((p, True), 0),
                receives_total=self.issued.get((p, False), 0),
            )
            for p, (s, r, n, m) in traffic.items()
        ]


class FlightReader:
    def __init__(self, ranks_of: Callable[[str], list[int] | None] = lambda group: None):
        self.last = -1  # the last record id read
        self.missed = 0  # records the ring overwrote before a read saw them
        self.timing: set[int] = set()  # record ids sent without a duration that the backend will time
        self.fresh = 0  # records the last take found new
        self.pending: dict[str, int] = {}  # per group, the oldest collective issued and not completed
        self.ranks_of = ranks_of  # a group's ranks by name (the reporter's), to make a p2p peer global
        self.p2p = FlightP2P()

    def read(self) -> list[Issued]:
        """The collectives issued since the last read (and any newly timed), oldest first."""
        raw = _dump_fr_trace(includeCollectives=True, includeStackTraces=False, onlyActive=False)
        return self.take(pickle.loads(raw))

    def take(self, dump: dict) -> list[Issued]:
        """What a dump of the recorder holds that the last take did not, oldest first: this process's
        own, or one torch wrote to a file or served (post-mortem reads those alike)."""
        records = sorted(dump.get("entries", ()), key=lambda e: e["record_id"])
        self.pending = pending(records)
        out = []
        # the recorder numbers its records from 0: a first read that finds the ring wrapped missed some too
        if records and records[0]["record_id"] > self.last + 1:
            self.missed += records[0]["record_id"] - self.last - 1
        for entry in records:
            record = entry["record_id"]
            if entry.get("is_p2p"):
                self._p2p(record, entry)
            elif record > self.last:
                out.append(issued(entry))
                if _timed(entry) and len(self.timing) < MAX_TIMING:
                    self.timing.add(record)
            elif record in self.timing and entry.get("state") == "completed":
                self.timing.discard(record)
                out.append(issued(entry))
        self.fresh = sum(e["record_id"] > self.last for e in records)
        if records:
            self.last = max(self.last, records[-1]["record_id"])
            first = records[0]["record_id"]
            for gone in [r for r in self.p2p.open if r < first]:  # out of the ring: its state is unknown
                self.p2p.done(gone)
            # what fell out of the ring is gone
            self.timing.intersection_update(e["record_id"] for e in records)
        return out

    def open(self) -> bool:
        """Whether the last read found something not done, which a later one may find done."""
        return bool(self.pending or self.timing or self.p2p.open)

    def _p2p(self, record: int, entry: dict) -> None:
        if record > self.last:
            seen = p2p_seen(entry, self.ranks_of)
            if seen is not None:
                self.p2p.saw(record, seen)
        elif entry.get("retired", True):
            self.p2p.done(record)


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
        count_out=out,
        bytes=max(count, out) * itemsize,
        t_ns=entry["time_created_ns"],
        duration_s=duration / 1e3 if isinstance(duration, (int, float)) and duration > 0 else None,
    )
