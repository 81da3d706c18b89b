"""Import an algorithm file in the XML format that msccl-tools writes (MSCCL's
algorithm files), so that algorithms synthesised elsewhere are watched and timed
here as schedules.

An MSCCL algorithm is, per GPU, thread blocks that each talk to one send peer and
one receive peer and run their steps in order, with dependencies on other thread
blocks' steps. A Ringside schedule is steps of transfers that happen at once. So
the import plays the thread blocks in rounds (_rounds says how); the k-th send on
a connection meets its k-th receive, and one round becomes one step. Fused
operations are cut into their receive and their send, which follows one round
later. The schedule then passes the same checks as
any user's (schedule.check and provenance.check_definition).

Supported: one thread block per connection and channel; in-place allreduce and allgather over the input/output buffers
(operations s, r, rcs, rrc, rrs, rrcs, cpy, re, nop). The working buffer has no
scratch space, so an rrs keeps its partial result in its local source chunk.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from ..core.algorithms import Built, register
from ..core.collectives import Collective, get
from ..core.schedule import Step, Transfer

COLLECTIVES = {"allreduce": "all_reduce", "allgather": "all_gather"}
RECEIVES = {"r", "rcs", "rrc", "rrs", "rrcs"}
SENDS = {"s", "rcs", "rrs", "rrcs"}
MAX_ROUNDS = 10_000


class MscclError(ValueError):
    """An MSCCL file that cannot be imported; says what and where."""


@dataclass
class Part:
    """One half of an operation: a send, a receive, or a local one."""

    kind: str  # "send", "recv", "local"
    gpu: int
    tb: tuple[int, int]  # (gpu, tb id)
    op: tuple[int, int, int]  # (gpu, tb id, step): what dependencies name
    src: int  # chunk read (send, local) or combined with (receive that reduces)
    dst: int  # chunk written
    reduce: bool
    peer: int = -1
    chan: int = 0
    after: list[tuple[int, int, int]] = field(default_factory=list)  # operations that must be done first


def load_xml(path: str | Path) -> str:
    """Register the file's algorithm; returns its name."""
    try:
        root = ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError) as e:
        raise MscclError(f"{path}: {e}") from None
    name, collective, p, built = parse(root, str(path))
    register(collective, name, user=True)(_fixed(name, p, built))
    return name


def parse(algo: ElementTree.Element, where: str) -> tuple[str, str, int, Built]:
    """(name, collective, the world size it was written for, its steps)."""
    coll = algo.get("coll", "")
    if coll not in COLLECTIVES:
        raise MscclError(f"{where}: coll={coll!r} is not imported (supported: {', '.join(COLLECTIVES)})")
    if algo.get("inplace", "1") != "1":
        raise MscclError(f"{where}: only in-place algorithms are imported (inplace=\"1\")")
    collective = get(COLLECTIVES[coll])
    p, per_loop = _int(algo, "ngpus", where), _int(algo, "nchunksperloop", where)
    pieces, uneven = divmod(per_loop, collective.blocks(p))  # MSCCL's chunks are the whole buffer's
    if pieces < 1 or uneven:
        raise MscclError(f"{where}: nchunksperloop={per_loop} does not split over {p} GPUs")
    parts = {}
    for gpu in algo.iter("gpu"):
        g = _int(gpu, "id", where)
        for tb in gpu.iter("tb"):
            parts[(g, _int(tb, "id", where))] = _parts(g, tb, collective, p, pieces, where)
    name = "msccl_" + re.sub(r"[^a-z0-9_]+", "_", algo.get("name", "algorithm").lower()).strip("_")[:30]
    return name, collective.name, p, Built(pieces, tuple(_rounds(parts, where)))


def _parts(g: int, tb: ElementTree.Element, collective: Collective, p: int, pieces: int,
           where: str) -> list[Part]:
    send_to, recv_from, chan = _int(tb, "send", where), _int(tb, "recv", where), int(tb.get("chan", "0"))
    out = []
    for st in tb.iter("step"):
        kind, op = st.get("type", ""), (g, _int(tb, "id", where), _int(st, "s", where))
        here = f"{where}: gpu {g} tb {op[1]} step {op[2]}"
        cnt = _int(st, "cnt", where)
        after = [] if st.get("depid", "-1") == "-1" else [(g, _int(st, "depid", where), _int(st, "deps", where))]
        chunk = partial(_chunk, st, g=g, collective=collective, p=p, pieces=pieces, here=here)
        src = [chunk("src") + k for k in range(cnt)] if kind != "r" else [0] * cnt
        dst = [chunk("dst") + k for k in range(cnt)]
        if kind == "nop":
            out.append(Part("local", g, (g, op[1]), op, -1, -1, False, after=after))
            continue
        if kind not in RECEIVES | SENDS | {"cpy", "re"}:
            raise MscclError(f"{here}: operation type {kind!r} is not known")
        for k in range(cnt):
            if kind in ("cpy", "re"):
                out.append(Part("local", g, (g, op[1]), op, src[k], dst[k], kind == "re", after=after))
            if kind in RECEIVES:
                into = src[k] if kind == "rrs" else dst[k]  # rrs keeps its partial result in its source
                out.append(Part("recv", g, (g, op[1]), op, src[k], into, kind.startswith("rr"), recv_from, chan, after))
            if kind in SENDS:
                read = src[k] if kind == "s" else (src[k] if kind == "rrs" else dst[k])
                out.append(Part("send", g, (g, op[1]), op, read, -1, False, send_to, chan, after))
    return out


def _chunk(st: ElementTree.Element, which: str, g: int, collective: Collective, p: int, pieces: int,
           here: str) -> int:
    """A buffer offset as a chunk of the working buffer. In place, `i` and `o` are one
    buffer, and the input is the blocks rank g's input fills (an allgather's: block g)."""
    buf, off = st.get(f"{which}buf", "i"), _int(st, f"{which}off", here)
    if buf == "s":
        raise MscclError(f"{here}: uses the scratch buffer, which Ringside's working buffer does not have")
    if buf not in ("i", "o"):
        raise MscclError(f"{here}: unknown buffer {buf!r}")
    return collective.input_blocks(g, p, 0).start * pieces + off if buf == "i" else off


def _rounds(parts: dict[tuple[int, int], list[Part]], where: str) -> list[Step]:
    """Play the thread blocks round by round. In a round a thread block posts the sends at
    the head of its queue (they go into their connection's FIFO at once), then does at most
    one receive or local operation that is ready; every round's receives and local
    operations make one step. A transfer reads the sender's chunk as the step begins, which
    is what it sent only if no operation wrote that chunk since: that is checked."""
    queues = {tb: list(ps) for tb, ps in parts.items()}
    pending: dict[tuple[int, int, int], int] = {}  # operation -> its parts not yet done
    for ps in parts.values():
        for part in ps:
            pending[part.op] = pending.get(part.op, 0) + 1
    fifo: dict[tuple[int, int, int], list[tuple[int, Part]]] = {}  # (src, dst, chan) -> [(round sent, send)]
    written: dict[tuple[int, int], int] = {}  # (gpu, chunk) -> last round that wrote it
    steps: list[Step] = []

    def ready(q: list[Part]) -> bool:
        return bool(q) and all(pending.get(d, 0) == 0 for d in q[0].after)

    for round_ in range(MAX_ROUNDS):
        if not any(queues.values()):
            return steps
        done, transfers = [], []
        for q in queues.values():  # every send first: a receive this round may meet one posted this round
            while ready(q) and q[0].kind == "send":
                send = q.pop(0)
                fifo.setdefault((send.gpu, send.peer, send.chan), []).append((round_, send))
                done.append(send)
        for q in queues.values():
            if not ready(q) or q[0].kind == "send":
                continue
            part = q[0]
            if part.kind == "recv":
                waiting = fifo.get((part.peer, part.gpu, part.chan))
                if not waiting:
                    continue
                sent_at, send = waiting.pop(0)
                if written.get((send.gpu, send.src), -1) >= sent_at:
                    raise MscclError(f"{where}: gpu {send.gpu} changes chunk {send.src} before gpu {part.gpu} receives it, "
                                     "which a schedule cannot show")
                transfers.append(Transfer(send.gpu, part.gpu, send.src, part.dst, part.reduce))
            elif part.src >= 0:
                transfers.append(Transfer(part.gpu, part.gpu, part.src, part.dst, part.reduce))
            done.append(q.pop(0))
        if not done:
            stuck = ", ".join(f"gpu {tb[0]} tb {tb[1]}" for tb, q in queues.items() if q)
            raise MscclError(f"{where}: no operation can go on ({stuck} wait for each other)")
        for part in done:
            pending[part.op] -= 1
        for t in transfers:
            written[(t.dst, t.into)] = round_
        if transfers:
            steps.append(Step("msccl", f"round {len(steps)} of the MSCCL algorithm", transfers))
    raise MscclError(f"{where}: more than {MAX_ROUNDS} rounds")


def _fixed(name: str, world_size: int, built: Built):
    """A builder for the one world size (and one chunking) the file was written for."""
    def build(p: int, root: int = 0, chunks: int = 1) -> Built:
        if p != world_size or chunks != 1:
            raise ValueError(f"{name} is an MSCCL algorithm for {world_size} ranks and one chunk "
                             f"per piece, not {p} ranks and {chunks}")
        return built

    return build


def _int(el: ElementTree.Element, attr: str, where: str) -> int:
    try:
        return int(el.get(attr, ""))
    except ValueError:
        raise MscclError(f"{where}: <{el.tag}> needs an integer {attr}, not {el.get(attr)!r}") from None
