"""Rebuilding steps from what send/recv code did (recording.py records it): pure data, no
torch. A rank's Record lists its point-to-point calls and its writes into its buffer;
`rebuild` turns every rank's record into a Schedule, and `stuck` words a group whose
code did not finish everywhere (a deadlock's wait-for cycle).

The k-th send from a to b meets the k-th receive on b from a (per tag). A message's step
is one more than the step of every message its sender had seen complete before posting
it (happens-before: sends that block one after another take a step each, isends posted
together share one), pushed later where a rank writes a part of its buffer that it sent
or wrote before in the same or a later step. The bounds of all the parts used become the
chunks: the fewest near-equal pieces per block that fall on every one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field

from ..core.algorithms.captions import named
from ..core.protocol import MAX_CHUNKS, MAX_PHASE, MAX_RANK_CHUNKS, MAX_STEPS, MAX_TRANSFERS
from ..core.schedule import Row, Schedule, ScheduleError, Step, check, chunk_bounds

Region = tuple[int, int]  # [start, stop) in elements of the working buffer


class TraceError(RuntimeError):
    """The user's code did something that cannot be traced or drawn; the words say what and where."""


@dataclass
class Call:
    kind: str  # "send" or "recv"
    name: str  # as the code called it: send, recv, isend, irecv
    peer: int  # group rank
    tag: int
    region: Region | None  # the part of the buffer it reads or fills; None: scratch
    numel: int
    line: str  # "file.py:14"
    posted: int  # place in the rank's order of events
    t_posted: float
    done: int | None = None
    t_done: float | None = None
    waited_at: str | None = None  # where the code waited for it (non-blocking calls)
    t_wait: float | None = None  # when it began to wait: from then to t_done the rank was blocked


@dataclass
class Write:
    """The code wrote received data (or a part of its own buffer) into a part of its buffer."""

    at: int
    region: Region
    messages: list[int]  # this rank's receive calls (indices) whose data it writes
    local: Region | None  # or the part of its own buffer that it copies
    reduce: bool  # the part itself went into the value: the data is combined in
    line: str


@dataclass
class Record:
    calls: list[Call] = field(default_factory=list)
    writes: list[Write] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"calls": [asdict(c) for c in self.calls], "writes": [asdict(w) for w in self.writes]}

    @classmethod
    def from_json(cls, doc: dict) -> Record:
        def region(r):
            return None if r is None else tuple(r)

        calls = [Call(**{**c, "region": region(c["region"])}) for c in doc["calls"]]
        writes = [
            Write(**{**w, "region": region(w["region"]), "local": region(w["local"])}) for w in doc["writes"]
        ]
        return cls(calls, writes)


def stuck(statuses: list[dict], ranks: list[int]) -> str | None:
    """The words for a group whose code did not finish everywhere: the wait-for cycle of a
    deadlock ("deadlock: rank 0 waits in send to rank 1 (f.py:14) → … → rank 0"), or the chain
    of waits that ends at a rank that finished or failed; None when every rank finished."""
    blocked = {r: s["blocked"] for r, s in enumerate(statuses) if "blocked" in s}
    raised = {r: s["raised"] for r, s in enumerate(statuses) if "raised" in s}
    if not blocked and not raised:
        return None

    def waits(r: int) -> str:
        c = blocked[r]
        waited = c["waited_at"] not in (None, c["line"])
        where = f"{c['line']}, waited for at {c['waited_at']}" if waited else c["line"]
        return (
            f"rank {ranks[r]} waits in {c['name']} {'to' if c['kind'] == 'send' else 'from'} rank "
            f"{ranks[c['peer']]} ({where})"
        )

    for start in sorted(blocked):
        path, r = [], start
        while r in blocked and r not in path:
            path.append(r)
            r = blocked[r]["peer"]
        if r in path:  # a cycle: told from its lowest rank
            cycle = path[path.index(r) :]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]
            return "deadlock: " + " → ".join(waits(x) for x in cycle) + f" → rank {ranks[cycle[0]]}"
    if raised:
        r = min(raised)
        chain = [x for x in sorted(blocked) if blocked[x]["peer"] == r]
        waiting = "; ".join(waits(x) for x in chain)
        return f"rank {ranks[r]} stopped: {raised[r]}" + (f"; {waiting}" if waiting else "")
    r = min(blocked)
    return f"{waits(r)}, which finished its code without a matching call"


def size(r: Region) -> int:
    return r[1] - r[0]


# --- rebuilding the steps ------------------------------------------------------


@dataclass
class Rebuilt:
    schedule: Schedule
    writes: list[list[list[int]]]  # per rank, per step: its writes (indices) in that step, in order
    times: list[list[tuple[float, float]]]  # per rank, per step: (t0, t1) of its calls in it
    bytes_sent: list[int]  # per rank: elements sent
    bytes_received: list[int]


@dataclass
class _Transfer:
    node: int  # the message (or local copy) it belongs to: one step for all its transfers
    src: int
    dst: int
    src_region: Region
    dst_region: Region
    reduce: bool
    rank: int  # the rank that wrote it
    write: int  # its write on that rank
    lines: tuple[str, str, str]  # sent at, received at, written at


def rebuild(records: list[Record], collective, algorithm: str, root: int, count: int, layout: str) -> Rebuilt:
    """The steps that the ranks' records describe (group ranks). Raises TraceError."""
    p = len(records)
    messages, node_of = _pair(records)
    transfers = _transfers(records, messages, node_of)
    nodes = len(messages) + sum(1 for rec in records for w in rec.writes if w.local is not None)
    step = _order(records, transfers, node_of, nodes)
    used = sorted({step[t.node] for t in transfers})
    compact = {s: i for i, s in enumerate(used)}
    blocks = collective.blocks(p)
    pieces, chunks_of = _chunks(transfers, blocks, count)
    tables: list[list[Row]] = [[] for _ in used]
    lines: list[dict] = [{} for _ in used]
    for t in transfers:
        k = compact[step[t.node]]
        for a, b in zip(chunks_of(t.src_region), chunks_of(t.dst_region)):
            tables[k].append((t.src, t.dst, a, b, int(t.reduce)))
        lines[k].setdefault(t.lines + (t.reduce,), None)
    steps = tuple(Step(_phase(ls), named(_caption(ls), table), table) for ls, table in zip(lines, tables))
    if len(steps) > MAX_STEPS or sum(len(t) for t in tables) > MAX_TRANSFERS:
        raise TraceError(
            f"the code's transfers make {len(steps)} steps of {sum(len(t) for t in tables)} "
            f"chunk transfers, more than Ringside draws ({MAX_STEPS} steps, "
            f"{MAX_TRANSFERS} transfers)"
        )
    schedule = Schedule(collective.name, algorithm, p, root, blocks, pieces, steps, layout)
    try:
        check(schedule)
    except ScheduleError as e:
        raise TraceError(f"the calls cannot be drawn as steps: {e}") from None
    return Rebuilt(schedule, *_per_rank(records, transfers, step, compact, node_of))


def _pair(records: list[Record]) -> tuple[list[tuple[int, int, int, int]], dict[tuple[int, int], int]]:
    """Messages (src, send call, dst, recv call): the k-th send a→b (per tag) meets the k-th
    receive on b from a. node_of[(rank, call)] is the message a call belongs to."""
    # (sender, receiver, tag) -> the calls, in each rank's order
    sends: defaultdict[tuple[int, int, int], list[int]] = defaultdict(list)
    recvs: defaultdict[tuple[int, int, int], list[int]] = defaultdict(list)
    for r, rec in enumerate(records):
        for i, c in enumerate(rec.calls):
            (sends[(r, c.peer, c.tag)] if c.kind == "send" else recvs[(c.peer, r, c.tag)]).append(i)
    messages: list[tuple[int, int, int, int]] = []
    node_of: dict[tuple[int, int], int] = {}
    for key in sorted(set(sends) | set(recvs)):
        a, b, _ = key
        out, into = sends.get(key, []), recvs.get(key, [])
        for s, q in zip(out, into):
            sc, rc = records[a].calls[s], records[b].calls[q]
            if sc.numel != rc.numel:
                raise TraceError(
                    f"rank {a} sends {sc.numel} elements ({sc.line}) that rank {b} receives "
                    f"into {rc.numel} ({rc.line})"
                )
            node_of[(a, s)] = node_of[(b, q)] = len(messages)
            messages.append((a, s, b, q))
        for r, extra in ((a, out[len(into) :]), (b, into[len(out) :])):
            if extra:
                c = records[r].calls[extra[0]]
                raise TraceError(
                    f"rank {r}'s {c.name} {'to' if c.kind == 'send' else 'from'} rank {c.peer} "
                    f"({c.line}) was never matched"
                )
    return messages, node_of


def _transfers(records, messages, node_of) -> list[_Transfer]:
    out, node = [], len(messages)
    for r, rec in enumerate(records):
        for w_index, w in enumerate(rec.writes):
            if w.local is not None:
                out.append(
                    _Transfer(node, r, r, w.local, w.region, False, r, w_index, (w.line, w.line, w.line))
                )
                node_of[(r, "write", w_index)] = node
                node += 1
                continue
            for q in w.messages:
                a, s, _, _ = messages[node_of[(r, q)]]
                sent, got = records[a].calls[s], rec.calls[q]
                if sent.region is None:
                    raise TraceError(
                        f"rank {a} sends ({sent.line}) a tensor that holds no part of its buffer"
                    )
                if size(sent.region) != size(w.region):
                    raise TraceError(
                        f"rank {r} writes {got.numel} received elements ({w.line}) into a "
                        f"part of {size(w.region)}"
                    )
                out.append(
                    _Transfer(
                        node_of[(r, q)],
                        a,
                        r,
                        sent.region,
                        w.region,
                        w.reduce,
                        r,
                        w_index,
                        (sent.line, got.line, w.line),
                    )
                )
    return out


def _order(records, transfers, node_of, nodes: int) -> list[int]:
    """Each node's step: the least that happens-before and the rules of a step allow (longest paths)."""
    # per rank: (time, kind, node, region, reduce)
    events: list[list[tuple[int, str, int, Region | None, bool]]] = [[] for _ in records]
    for r, rec in enumerate(records):
        for i, c in enumerate(rec.calls):
            m = node_of[(r, i)]
            if c.kind == "send":
                events[r].append((c.posted, "post", m, c.region, False))
            events[r].append((c.done, "known", m, None, False))
    for t in transfers:
        w = records[t.rank].writes[t.write]
        if t.src == t.dst:  # a local copy reads its part, is known at once
            events[t.rank].append((w.at, "post", t.node, t.src_region, False))
            events[t.rank].append((w.at, "known", t.node, None, False))
        events[t.rank].append((w.at, "write", t.node, t.dst_region, t.reduce))
    order = {"post": 0, "write": 1, "known": 2}
    for e in events:
        e.sort(key=lambda x: (x[0], order[x[1]]))
    step = [0] * nodes
    for _ in range(nodes + 2):
        changed = False
        for e in events:
            known = -1
            reads: list[tuple[Region, int]] = []
            writes: list[tuple[Region | None, int, bool]] = []  # a write's region is never None
            for _, kind, m, region, reduce in e:
                need = step[m]
                if kind == "post":
                    need = max(need, known + 1)
                    if region is not None:
                        reads.append((region, m))
                elif kind == "write":
                    for part, other in reads:  # a part sent before it is written: sent first
                        if other != m and _overlap(part, region):
                            need = max(need, step[other] + (0 if reduce else 1))
                    for written, other, both in writes:  # written twice: in that order
                        if other != m and _overlap(written, region):
                            need = max(need, step[other] + (0 if reduce and both else 1))
                    writes.append((region, m, reduce))
                else:
                    known = max(known, step[m])
                if need != step[m]:
                    step[m], changed = need, True
        if not changed:
            return step
    raise TraceError("the calls cannot be put in steps: what each rank received and wrote makes a circle")


def _overlap(a: Region | None, b: Region | None) -> bool:
    """Whether two parts of the working buffer share an element (None, scratch, is none of it)."""
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def _chunks(transfers: list[_Transfer], blocks: int, count: int):
    """The fewest near-equal pieces per block whose bounds fall on every part's bounds and pair
    each transfer's chunks one to one; and region -> its chunks."""
    needed = {x for t in transfers for r in (t.src_region, t.dst_region) for x in r}
    # as many as a rank may report
    for pieces in range(1, min(count, MAX_CHUNKS, MAX_RANK_CHUNKS // blocks) + 1):
        bounds = chunk_bounds(blocks, pieces, count)
        starts = {a: i for i, (a, _) in enumerate(bounds)}
        stops = {b: i for i, (_, b) in enumerate(bounds)}
        edges = set(starts) | set(stops)
        if not needed <= edges:
            continue

        def chunks_of(region: Region, starts=starts, stops=stops) -> range:
            return range(starts[region[0]], stops[region[1]] + 1)

        sizes = [b - a for a, b in bounds]
        if all(
            [sizes[c] for c in chunks_of(t.src_region)] == [sizes[c] for c in chunks_of(t.dst_region)]
            for t in transfers
        ):
            return pieces, chunks_of
    raise TraceError(
        f"the parts of the buffer the code sends do not fit {MAX_CHUNKS} near-equal chunks per block"
    )


def _phase(lines: dict) -> str:
    """The lines that sent, as many as a phase holds (protocol.MAX_PHASE)."""
    sent = list(dict.fromkeys(sent.split(":")[-1] for sent, *_ in lines))
    phase = f"line{'s' if len(sent) > 1 else ''} {', '.join(sent)}"
    while len(phase) > MAX_PHASE:
        sent.pop()
        phase = f"lines {', '.join(sent)}, …"
    return phase


def _caption(lines: dict) -> str:
    said = []
    for sent, got, wrote, reduce in lines:
        words = f"sent at {sent}, received at line {got.split(':')[-1]}"
        if reduce:
            words += f", added in at line {wrote.split(':')[-1]}"
        elif wrote != got:
            words += f", copied in at line {wrote.split(':')[-1]}"
        said.append(words)
    return "; ".join(said).replace("{", "{{").replace("}", "}}")


def _per_rank(records, transfers, step, compact, node_of):
    p, k = len(records), len(compact)
    writes: list[list[list[int]]] = [[[] for _ in range(k)] for _ in range(p)]
    for t in transfers:
        slot = writes[t.rank][compact[step[t.node]]]
        if t.write not in slot:
            slot.append(t.write)
    for per_step in writes:
        for slot in per_step:
            slot.sort(key=lambda w: w)
    times, sent, received = [], [0] * p, [0] * p
    for r, rec in enumerate(records):
        spans: dict[int, list[float]] = {}
        for i, c in enumerate(rec.calls):
            s = compact.get(step[node_of[(r, i)]])
            if s is not None:
                span = spans.setdefault(s, [c.t_posted, c.t_done])
                span[0], span[1] = min(span[0], c.t_posted), max(span[1], c.t_done)
            if c.kind == "send":
                sent[r] += c.numel
            else:
                received[r] += c.numel
        row, last = [], 0.0
        for s in range(k):
            t0, t1 = spans.get(s, (last, last))
            row.append((t0, t1))
            last = t1
        times.append(row)
    return writes, times, sent, received
