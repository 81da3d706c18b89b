"""Import an algorithm file in the XML format that msccl-tools writes (MSCCL's
algorithm files), so that algorithms synthesised elsewhere are watched and timed
here as schedules.

An MSCCL algorithm is, per GPU, thread blocks that each talk to one send peer and
one receive peer and run their operations in order, with dependencies on other thread
blocks' operations. A Ringside schedule is steps of transfers that happen at once. So
the import plays the thread blocks in rounds (_Player says how): in a round every thread
block posts the sends at the head of its queue and then does one receive or local
operation, whole (an operation of `cnt` chunks moves them all at once); the k-th send on
a connection meets its k-th receive; a fused operation (rcs, rrcs, rrs) forwards what it
received one round later; and one round becomes one step. So a file's rounds are its
steps: recursive doubling's log2 P, a ring's 2(P-1).

What the file's buffers become in the one working buffer every Ringside rank holds
(its collective's blocks, each cut into nchunksperloop / (blocks of a message) pieces):
the input buffer `i` is the blocks a rank's input fills, the output buffer `o` the blocks
its output is read from (for an in-place file the two are one buffer, and so they are
here), and the scratch buffer `s` is working space after the collective's own blocks,
shown like them. An out-of-place file's input and output overlap here where the
collective's blocks do (all_reduce: one block); what that would break is refused by the
check every user's schedule passes (provenance.check_definition).

Imported: allreduce, allgather, reducescatter and alltoall (out-of-place: Ringside's
all_to_all keeps what a rank sends apart from what it receives, as an in-place file
cannot), in place or not, with scratch; operations s, r, rcs, rrc, rrs, rrcs, cpy and
nop; one thread block per connection and channel. Refused, saying so: other collectives,
in-place alltoall, a local reduce (re: a schedule combines only what arrives from another
rank), a receive that reduces into a chunk other than the one it combines with.

The world size is the file's: the algorithm is offered only at that size (Algorithm.fits).
Its name is the file's, whole: "msccl_" and the name lower-cased; two files that give one
name are refused naming both.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path

from ..core.algorithms import Built, algorithm_of, register
from ..core.collectives import Collective, get
from ..core.schedule import Step, Transfer

COLLECTIVES = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "reducescatter": "reduce_scatter",
    "reduce_scatter": "reduce_scatter",
    "alltoall": "all_to_all",
}
RECEIVES = {"r", "rcs", "rrc", "rrs", "rrcs"}
SENDS = {"s", "rcs", "rrs", "rrcs"}
FUSED = RECEIVES & SENDS  # forward what they received, one round later
REDUCING = {"rrc", "rrs", "rrcs"}
KNOWN = RECEIVES | SENDS | {"cpy", "nop", "re"}
MAX_ROUNDS = 10_000
MAX_NAME = 120  # characters of an algorithm's name, "msccl_" included


class MscclError(ValueError):
    """An MSCCL file that cannot be imported; says what and where."""


OpKey = tuple[int, int, int]  # (gpu, thread block, step): what a dependency names


@dataclass
class Op:
    """One operation of a thread block, in the working buffer's chunks."""

    key: OpKey
    kind: str
    send_to: int
    recv_from: int
    chan: int
    sends: list[int]  # local chunks its send half reads
    writes: list[int]  # local chunks its receive half writes (a reducing one combines into them)
    copies: list[tuple[int, int]]  # cpy: (from, to), local
    after: list[OpKey] = field(default_factory=list)  # operations that must be done first
    received: bool = False  # a fused operation: its receive half is done, its send half is next


def load_xml(path: str | Path) -> str:
    """Register the file's algorithm; returns its name. The same file loaded again (a rank
    that loads what its parent already did) is not registered twice."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as e:
        raise MscclError(f"{path}: {e}") from None
    source = str(Path(path).resolve())
    name, collective, p, built = parse(root, str(path))
    taken = algorithm_of(collective, name, None)
    if taken is not None and taken.source == source:
        return name
    register(collective, name, user=True, world_sizes=[p], source=source)(_fixed(name, p, built))
    return name


def name_of(algo: ElementTree.Element, where: str) -> str:
    """The file's name, whole: msccl_ and the name, lower-case letters, digits and _."""
    name = "msccl_" + re.sub(r"[^a-z0-9_]+", "_", algo.get("name", "algorithm").lower()).strip("_")
    if len(name) > MAX_NAME:
        raise MscclError(f"{where}: name={algo.get('name', '')[:40]!r}… is over {MAX_NAME - 6} characters")
    return name


def parse(algo: ElementTree.Element, where: str) -> tuple[str, str, int, Built]:
    """(name, collective, the world size it was written for, its steps)."""
    coll = algo.get("coll", "")
    if coll not in COLLECTIVES:
        raise MscclError(
            f"{where}: coll={coll!r} is not imported (imported: allreduce, allgather, "
            "reducescatter, alltoall)"
        )
    collective = get(COLLECTIVES[coll])
    inplace = algo.get("inplace", "1") == "1"
    if inplace and not collective.in_place:
        raise MscclError(
            f"{where}: an in-place {coll} is not imported: Ringside's {collective.name} keeps what "
            'a rank sends apart from what it receives (inplace="0" files are)'
        )
    p, per_loop = _int(algo, "ngpus", where), _int(algo, "nchunksperloop", where)
    pieces, uneven = divmod(per_loop, collective.message_blocks(p))  # MSCCL's chunks are a whole message's
    if p < 1 or pieces < 1 or uneven:
        raise MscclError(f"{where}: nchunksperloop={per_loop} does not split over {p} GPUs")
    scratch = max(
        (_int(g, "s_chunks", where) for g in algo.iter("gpu") if g.get("s_chunks") is not None), default=0
    )
    layout = _Buffers(collective, p, pieces, scratch)
    ops: dict[tuple[int, int], list[Op]] = {}
    for gpu in algo.iter("gpu"):
        g = _int(gpu, "id", where)
        if not 0 <= g < p:
            raise MscclError(f"{where}: gpu id={g} is outside ngpus={p}")
        for tb in gpu.iter("tb"):
            ops[(g, _int(tb, "id", where))] = _ops(g, tb, layout, where)
    steps = _Player(ops, p, where).play()
    return name_of(algo, where), collective.name, p, Built(pieces, tuple(steps), layout.scratch_blocks)


@dataclass
class _Buffers:
    """Where the file's buffers lie in a rank's working buffer, in chunks."""

    collective: Collective
    p: int
    pieces: int
    scratch: int  # the file's scratch chunks (the most any GPU uses)

    @property
    def scratch_blocks(self) -> int:
        return math.ceil(self.scratch / self.pieces)

    def chunk(self, g: int, buf: str, off: int, cnt: int, here: str) -> list[int]:
        """The working buffer's chunks for `cnt` chunks of buffer `buf` from `off` on gpu `g`."""
        if buf == "s":
            start, size = self.collective.blocks(self.p) * self.pieces, self.scratch
        elif buf in ("i", "o"):
            blocks = (
                self.collective.input_blocks(g, self.p, 0)
                if buf == "i"
                else self.collective.output_blocks(g, self.p, 0, 0)
            )
            start, size = blocks.start * self.pieces, len(blocks) * self.pieces
        else:
            raise MscclError(f"{here}: unknown buffer {buf!r}")
        if off < 0 or off + cnt > size:
            what = {"i": "input", "o": "output", "s": "scratch"}[buf]
            raise MscclError(f"{here}: chunks {off}..{off + cnt - 1} are outside the {what} buffer's {size}")
        return [start + off + k for k in range(cnt)]


def _step_chunks(
    layout: _Buffers, g: int, st: ElementTree.Element, which: str, cnt: int, here: str
) -> list[int]:
    """The working buffer's chunks of a step's `which` side ("src" or "dst"): its buffer and offset."""
    return layout.chunk(g, st.get(f"{which}buf", "i"), _int(st, f"{which}off", here), cnt, here)


def _ops(g: int, tb: ElementTree.Element, layout: _Buffers, where: str) -> list[Op]:
    t = _int(tb, "id", where)
    send_to, recv_from, chan = _int(tb, "send", where), _int(tb, "recv", where), int(tb.get("chan", "0"))
    out = []
    for st in tb.iter("step"):
        key = (g, t, _int(st, "s", where))
        here = f"{where}: gpu {g} tb {t} step {key[2]}"
        kind, cnt = st.get("type", ""), _int(st, "cnt", where)
        if kind not in KNOWN:
            raise MscclError(f"{here}: operation type {kind!r} is not known")
        if kind == "re":
            raise MscclError(
                f"{here}: a local reduce (re) is not imported: a schedule combines only what "
                "arrives from another rank"
            )
        if (
            kind in SENDS
            and not 0 <= send_to < layout.p
            or kind in RECEIVES
            and not 0 <= recv_from < layout.p
        ):
            raise MscclError(
                f"{here}: a {kind} on a thread block whose peers are send={send_to} recv={recv_from}"
            )
        after = (
            [] if st.get("depid", "-1") == "-1" else [(g, _int(st, "depid", where), _int(st, "deps", where))]
        )
        if kind == "nop" or cnt == 0:
            out.append(Op(key, "nop", send_to, recv_from, chan, [], [], [], after))
            continue

        # a receive's own src is the sender's, a send's dst the receiver's
        src = _step_chunks(layout, g, st, "src", cnt, here) if kind in {"s", "cpy"} | REDUCING else []
        dst = (
            _step_chunks(layout, g, st, "dst", cnt, here)
            if kind in {"r", "rcs", "rrc", "rrcs", "cpy"}
            else []
        )
        if kind in ("rrc", "rrcs") and src != dst:
            raise MscclError(
                f"{here}: {kind} combines chunks {src} with what arrives into chunks {dst}; a "
                "schedule reduces into the chunk it combines with"
            )
        written = src if kind == "rrs" else dst  # an rrs keeps its partial result where it read its own
        sends = src if kind in ("s", "rrs") else dst if kind in FUSED else []
        out.append(
            Op(
                key,
                kind,
                send_to,
                recv_from,
                chan,
                sends,
                written if kind in RECEIVES else [],
                list(zip(src, dst)) if kind == "cpy" else [],
                after,
            )
        )
    return out


class _Player:
    """The thread blocks played round by round. A round: every thread block posts the sends
    at the head of its queue (a send, or the send half of a fused operation received in an
    earlier round), each into its connection's FIFO (gpu, peer, channel); then each does its
    next receive or local operation if it is ready, whole. Every round's receives and local
    copies make one step.

    An operation is ready when the operations it depends on are done, and, if it writes
    chunks, when no send posted from those chunks is still to be received: a transfer reads
    its chunk as its step begins, so what a GPU sent must be taken before it changes. A send
    is done once it is received; a fused operation once it has received (its forward is
    guarded as a send); any other once it has been played."""

    def __init__(self, ops: dict[tuple[int, int], list[Op]], p: int, where: str):
        self.queues = {tb: list(q) for tb, q in ops.items()}
        self.where = where
        self.done: set[OpKey] = set()
        # (src, dst, chan) -> posted sends
        self.fifo: dict[tuple[int, int, int], list[tuple[Op, list[int]]]] = {}
        self.in_flight: dict[tuple[int, int], int] = {}  # (gpu, chunk) -> sends from it not yet received
        self.known = {op.key for q in ops.values() for op in q}
        for q in ops.values():
            for op in q:
                for dep in op.after:
                    if dep not in self.known:
                        raise MscclError(
                            f"{where}: gpu {op.key[0]} tb {op.key[1]} step {op.key[2]} depends "
                            f"on tb {dep[1]} step {dep[2]}, which gpu {dep[0]} does not have"
                        )

    def ready(self, op: Op) -> bool:
        return all(d in self.done for d in op.after) and not any(
            self.in_flight.get((op.key[0], c)) for c in op.writes
        )

    def post(self, op: Op) -> None:
        self.fifo.setdefault((op.key[0], op.send_to, op.chan), []).append((op, op.sends))
        for c in op.sends:
            self.in_flight[(op.key[0], c)] = self.in_flight.get((op.key[0], c), 0) + 1

    def play(self) -> list[Step]:
        steps: list[Step] = []
        for _ in range(MAX_ROUNDS):
            if not any(self.queues.values()):
                return steps
            transfers, finished, moved = [], [], False
            # every send first: a receive this round may meet one posted this round
            for q in self.queues.values():
                while q and (q[0].kind == "s" and self.ready(q[0]) or q[0].kind in FUSED and q[0].received):
                    self.post(q.pop(0))  # a send is done when received; a fused one was when it received
                    moved = True
            for q in self.queues.values():
                if not q or q[0].kind == "s" or q[0].received or not self.ready(q[0]):
                    continue
                op = q[0]
                if op.kind in RECEIVES:
                    waiting = self.fifo.get((op.recv_from, op.key[0], op.chan))
                    if not waiting:
                        continue
                    send, chunks = waiting.pop(0)
                    if len(chunks) != len(op.writes):
                        raise MscclError(
                            f"{self.where}: gpu {send.key[0]} tb {send.key[1]} step "
                            f"{send.key[2]} sends {len(chunks)} chunks where gpu {op.key[0]} tb "
                            f"{op.key[1]} step {op.key[2]} receives {len(op.writes)}"
                        )
                    for c, into in zip(chunks, op.writes):
                        transfers.append(Transfer(send.key[0], op.key[0], c, into, op.kind in REDUCING))
                        self.in_flight[(send.key[0], c)] -= 1
                    if send.kind == "s":
                        finished.append(send)
                    if op.kind in FUSED:
                        op.received = True  # its send half goes out next round; what it wrote is there now
                        finished.append(op)
                        moved = True
                        continue
                else:
                    transfers += [Transfer(op.key[0], op.key[0], a, b, False) for a, b in op.copies if a != b]
                finished.append(q.pop(0))
                moved = True
            if not moved:
                stuck = ", ".join(f"gpu {tb[0]} tb {tb[1]}" for tb, q in self.queues.items() if q)
                raise MscclError(f"{self.where}: no operation can go on ({stuck} wait for each other)")
            self.done.update(op.key for op in finished)
            if transfers:
                steps.append(Step("msccl", f"round {len(steps)} of the MSCCL algorithm", transfers))
        raise MscclError(f"{self.where}: more than {MAX_ROUNDS} rounds")


def _fixed(name: str, world_size: int, built: Built):
    """A builder for the one world size (and one chunking) the file was written for."""

    def build(p: int, root: int = 0, chunks: int = 1) -> Built:
        if p != world_size or chunks != 1:
            raise ValueError(
                f"{name} is an MSCCL algorithm for {world_size} ranks and one chunk "
                f"per piece, not {p} ranks and {chunks}"
            )
        return built

    return build


def _int(el: ElementTree.Element, attr: str, where: str) -> int:
    try:
        return int(el.get(attr, ""))
    except ValueError:
        raise MscclError(f"{where}: <{el.tag}> needs an integer {attr}, not {el.get(attr)!r}") from None
