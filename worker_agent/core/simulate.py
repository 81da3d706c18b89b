"""Run a schedule in plain numpy, for any world size: the buffers after every
step, the bytes on every link, and the alpha-beta-gamma prediction of its time.

Each step is applied as whole arrays (gather every send, then scatter every
write), so a ring all_reduce over 1024 ranks takes well under a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from .collectives import UFUNCS, average, get
from .schedule import Schedule, Step

# per element or transfer moved, one array each: (source row, source column, target row, target
# column, reduces) in _element_moves; (step, src, dst, bytes, reduces) in _moves
Moves = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def initial_buffers(schedule: Schedule, inputs: list[np.ndarray], count: int) -> np.ndarray:
    """Rank r's working buffer (a row) with its input in place and zeros elsewhere."""
    p, collective = schedule.world_size, get(schedule.collective, schedule.servers)
    dtype = np.result_type(*[x.dtype for x in inputs])
    buffers = np.zeros((p, schedule.blocks * count), dtype=dtype)  # a scratch buffer's blocks too
    for r, x in enumerate(inputs):
        blocks = collective.input_blocks(r, p, schedule.root)
        if len(blocks):
            buffers[r, blocks.start * count : blocks.stop * count] = x
    return buffers


def _element_moves(step: Step, starts: np.ndarray, sizes: np.ndarray) -> Moves:
    """Per element moved in `step`: source row/column, target row/column, and whether it reduces."""
    t = step.table
    src, dst, chunk, into, reduces = t.T
    lengths = sizes[chunk]
    which = np.repeat(np.arange(len(t)), lengths)
    offset = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return (
        src[which],
        starts[chunk][which] + offset,
        dst[which],
        starts[into][which] + offset,
        reduces[which] == 1,
    )


def states(
    schedule: Schedule, buffers: np.ndarray, count: int, op: str | None = "SUM"
) -> Iterator[np.ndarray]:
    """Apply the steps to `buffers` in place, yielding it after each step (op None: nothing reduces)."""
    bounds = np.asarray(schedule.chunk_bounds(count), dtype=np.int64).reshape(-1, 2)
    starts, sizes = bounds[:, 0], bounds[:, 1] - bounds[:, 0]
    ufunc = UFUNCS[op or "SUM"]
    for step in schedule.steps:
        src, src_col, dst, dst_col, reduces = _element_moves(step, starts, sizes)
        values = buffers[src, src_col]  # every send reads the buffers as they were before the step
        buffers[dst[~reduces], dst_col[~reduces]] = values[~reduces]
        # in transfer order, as the executor
        ufunc.at(buffers, (dst[reduces], dst_col[reduces]), values[reduces])
        yield buffers


def outputs(
    schedule: Schedule, buffers: np.ndarray, count: int, op: str | None, peer: int
) -> list[np.ndarray | None]:
    p, collective = schedule.world_size, get(schedule.collective, schedule.servers)
    result = []
    for r in range(p):
        blocks = collective.output_blocks(r, p, schedule.root, peer)
        out = buffers[r, blocks.start * count : blocks.stop * count].copy() if len(blocks) else None
        result.append(out if out is None else average(op, out, p))
    return result


def simulate(
    schedule: Schedule, inputs: list[np.ndarray], count: int, op: str | None = "SUM", peer: int = 1
) -> list[np.ndarray | None]:
    """Every rank's output after running the whole schedule on `inputs`."""
    buffers = initial_buffers(schedule, inputs, count)
    for _ in states(schedule, buffers, count, op):
        pass
    return outputs(schedule, buffers, count, op, peer)


class LinkDoc(TypedDict):
    src: int
    dst: int
    bytes: int


class TrafficDoc(TypedDict):
    """Traffic as JSON (to_json)."""

    sent: list[int]
    received: list[int]
    total: int
    busiest_link: LinkDoc | None
    step_bytes: list[int]
    step_reduced: list[int]


@dataclass(frozen=True)
class Traffic:
    sent: np.ndarray  # bytes each rank sends over the whole schedule
    received: np.ndarray  # bytes each rank receives
    links: dict[tuple[int, int], int]  # bytes on every directed link that carries any
    step_bytes: np.ndarray  # per step: the most any one rank sends or receives in it
    step_reduced: np.ndarray  # per step: the most any one rank reduces in it

    @property
    def total(self) -> int:
        return int(self.sent.sum())

    @property
    def busiest_link(self) -> tuple[tuple[int, int], int] | None:
        return max(self.links.items(), key=lambda kv: kv[1], default=None)

    def to_json(self) -> TrafficDoc:
        link = self.busiest_link
        return {
            "sent": self.sent.tolist(),
            "received": self.received.tolist(),
            "total": self.total,
            "busiest_link": None
            if link is None
            else {"src": link[0][0], "dst": link[0][1], "bytes": link[1]},
            "step_bytes": self.step_bytes.tolist(),
            "step_reduced": self.step_reduced.tolist(),
        }


def traffic(schedule: Schedule, count: int, itemsize: int) -> Traffic:
    """Bytes moved by the schedule; local copies (src == dst) cross no link and are not counted."""
    p = schedule.world_size
    step, src, dst, nbytes, reduces = _moves(schedule, count, itemsize)
    sent = np.bincount(src, nbytes, minlength=p).astype(np.int64)
    received = np.bincount(dst, nbytes, minlength=p).astype(np.int64)
    step_bytes, step_reduced = _step_terms(schedule, step, src, dst, nbytes, reduces)
    keys, total = _totals(src * p + dst, nbytes)
    links = {(k // p, k % p): b for k, b in zip(keys.tolist(), total.tolist())}
    return Traffic(sent, received, links, step_bytes, step_reduced)


def _moves(schedule: Schedule, count: int, itemsize: int) -> Moves:
    """(step, src, dst, bytes, reduces) of every transfer that crosses a link."""
    bounds = np.asarray(schedule.chunk_bounds(count), dtype=np.int64).reshape(-1, 2)
    chunk_bytes = (bounds[:, 1] - bounds[:, 0]) * itemsize
    step, src, dst, chunk, _, reduces = schedule.columns()
    moved = src != dst
    return step[moved], src[moved], dst[moved], chunk_bytes[chunk[moved]], reduces[moved] == 1


def _step_terms(
    schedule: Schedule,
    step: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    nbytes: np.ndarray,
    reduces: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per step: the most bytes any one rank sends or receives, and the most any one rank reduces."""
    p, steps = schedule.world_size, len(schedule.steps)
    step_bytes = _busiest(step, src, nbytes, p, steps)  # the busiest sender or receiver
    np.maximum(step_bytes, _busiest(step, dst, nbytes, p, steps), out=step_bytes)
    return step_bytes, _busiest(step[reduces], dst[reduces], nbytes[reduces], p, steps)


def _busiest(step: np.ndarray, rank: np.ndarray, nbytes: np.ndarray, p: int, steps: int) -> np.ndarray:
    """Per step, the largest total of `nbytes` that any one rank has in it."""
    out = np.zeros(steps, np.int64)
    keys, total = _totals(step * p + rank, nbytes)
    np.maximum.at(out, keys // p, total)
    return out


def _totals(keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys (non-negative) in ascending order and the total weight of each."""
    if len(keys) and keys.max() < 4 * len(keys):  # few enough possible keys to count them all: no sort
        present = np.flatnonzero(np.bincount(keys))
        return present, np.bincount(keys, weights)[present].astype(np.int64)
    order = np.argsort(keys, kind="stable")  # keys come in runs already sorted: timsort merges them
    keys, weights = keys[order], weights[order]
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    return keys[starts], np.add.reduceat(weights, starts) if len(starts) else weights


@dataclass(frozen=True)
class Sharing:
    """Hosts whose ranks outnumber their cores (a laptop running four ranks on two cores):
    each host's ranks, as the schedule numbers them, and the cores they share. A rank not
    listed has a core (or a GPU) of its own. On such a host no rank has a port of its own:
    every copy in and out of its ranks' buffers runs on the same few cores."""

    hosts: tuple[tuple[tuple[int, ...], int], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.hosts)

    @classmethod
    def of(cls, ranks: list[tuple[str, int]]) -> Sharing:
        """From each rank's (host, cores), in the schedule's rank order; cores 0: unknown."""
        by_host: dict[str, list[int]] = {}
        cores: dict[str, int] = {}
        for index, (host, c) in enumerate(ranks):
            by_host.setdefault(host, []).append(index)
            cores[host] = max(cores.get(host, 0), c)
        return cls(
            tuple((tuple(mine), cores[host]) for host, mine in by_host.items() if 0 < cores[host] < len(mine))
        )

    def to_json(self) -> list[list[list[int] | int]]:
        return [[list(ranks), cores] for ranks, cores in self.hosts]

    @classmethod
    def from_json(cls, hosts: Iterable[tuple[Sequence[int], int]]) -> Sharing:
        return cls(tuple((tuple(ranks), cores) for ranks, cores in hosts))


ALONE = Sharing()  # every rank has a core (or a GPU) of its own


@dataclass(frozen=True)
class Cost:
    """The alpha-beta-gamma model's terms, read from the schedule itself. Steps run one
    after another, so each is on the critical path: it costs alpha (latency), beta per byte
    that its busiest rank sends or receives (a rank's port serialises its messages; for
    rings, trees and pairwise exchanges this is the busiest link), and gamma per byte that
    its busiest rank reduces. Ranks that share a host's cores (Sharing) are one resource
    instead: a step costs beta per byte its ranks copy, spread over the cores; gamma per byte
    they reduce, likewise; and alpha once per core's worth of ranks that take part in it."""

    steps: float  # alpha's term: the steps, each weighted by its ranks per core where they share
    bytes: float  # beta's term: busiest rank's (or sharing host's per core) bytes, summed over the steps
    # gamma's term: busiest reducer's (or sharing host's per core) bytes, summed over the steps
    reduced: float

    def time(self, alpha: float, beta: float, gamma: float = 0.0) -> float:
        return self.steps * alpha + self.bytes * beta + self.reduced * gamma


def cost(schedule: Schedule, count: int, itemsize: int, sharing: Sharing = ALONE) -> Cost:
    """The terms alone: no per-rank or per-link totals (a P=1024 ring's million links are not kept)."""
    moves = _moves(schedule, count, itemsize)
    if sharing:
        return _shared_cost(schedule, sharing, *moves)
    step_bytes, step_reduced = _step_terms(schedule, *moves)
    return Cost(len(schedule.steps), int(step_bytes.sum()), int(step_reduced.sum()))


def _shared_cost(
    schedule: Schedule,
    sharing: Sharing,
    step: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    nbytes: np.ndarray,
    reduces: np.ndarray,
) -> Cost:
    """Cost where some hosts' ranks share cores: per step, the busiest rank with a core of its
    own, or a sharing host's copies (each byte is copied out by its sender and in by its
    receiver) and reductions per core, whichever is more; alpha weighted by that host's
    ranks per core in the step when above one."""
    steps, p = len(schedule.steps), schedule.world_size
    shared = np.zeros(p, bool)
    for ranks, _ in sharing.hosts:
        shared[list(ranks)] = True
    own_src, own_dst = ~shared[src], ~shared[dst]
    step_bytes = np.maximum(
        _busiest(step[own_src], src[own_src], nbytes[own_src], p, steps),
        _busiest(step[own_dst], dst[own_dst], nbytes[own_dst], p, steps),
    ).astype(float)
    mine = reduces & own_dst
    step_reduced = _busiest(step[mine], dst[mine], nbytes[mine], p, steps).astype(float)
    weights = np.ones(steps)
    for ranks, cores in sharing.hosts:
        on = np.zeros(p, bool)
        on[list(ranks)] = True
        out, into = on[src], on[dst]
        copied = np.bincount(step[out], nbytes[out], steps) + np.bincount(step[into], nbytes[into], steps)
        np.maximum(step_bytes, copied / (2 * cores), out=step_bytes)
        np.maximum(
            step_reduced,
            np.bincount(step[into & reduces], nbytes[into & reduces], steps) / cores,
            out=step_reduced,
        )
        taking_part = np.unique(np.concatenate([step[out] * p + src[out], step[into] * p + dst[into]])) // p
        np.maximum(weights, np.bincount(taking_part, minlength=steps) / cores, out=weights)
    return Cost(float(weights.sum()), float(step_bytes.sum()), float(step_reduced.sum()))


@dataclass(frozen=True)
class Levels:
    """The terms on a two-level topology, per step: ranks r // per_node share a node (NVLink or PCIe
    inside it, a NIC per rank between nodes). A step waits on the network when any transfer in it
    crosses nodes; each rank has a port at each level, so a step's bytes are its busiest rank's
    inside a node and its busiest rank's between nodes, the slower of the two at their own speeds."""

    crosses: np.ndarray  # per step: some transfer goes between nodes
    inside: np.ndarray  # per step: the most bytes one rank sends or receives inside its node
    between: np.ndarray  # per step: the most bytes one rank sends or receives between nodes
    reduced: np.ndarray  # per step: the most bytes one rank reduces

    def time(
        self, alpha_inside: float, alpha_between: float, beta_inside: float, beta_between: float, gamma: float
    ) -> tuple[float, float]:
        """(latency, seconds per byte of every chunk): the steps' alphas, and their bytes at each level's
        beta (the slower level of each step) with their reductions at gamma."""
        latency = float(np.where(self.crosses, alpha_between, alpha_inside).sum())
        per_byte = np.maximum(self.inside * beta_inside, self.between * beta_between).sum()
        return latency, float(per_byte + self.reduced.sum() * gamma)


def levels(schedule: Schedule, count: int, itemsize: int, per_node: int) -> Levels:
    """Levels for ranks `per_node` to a node, numbered node by node."""
    steps, p = len(schedule.steps), schedule.world_size
    step, src, dst, nbytes, reduces = _moves(schedule, count, itemsize)
    out = src // per_node != dst // per_node
    crosses = np.bincount(step[out], minlength=steps) > 0

    def busiest(mask: np.ndarray) -> np.ndarray:
        most: np.ndarray = np.maximum(
            _busiest(step[mask], src[mask], nbytes[mask], p, steps),
            _busiest(step[mask], dst[mask], nbytes[mask], p, steps),
        )
        return most

    reduced = _busiest(step[reduces], dst[reduces], nbytes[reduces], p, steps)
    return Levels(crosses, busiest(~out), busiest(out), reduced)


def predict(
    schedule: Schedule, count: int, itemsize: int, alpha: float, beta: float, gamma: float = 0.0
) -> float:
    """Predicted seconds for one run of the schedule (Cost.time)."""
    return cost(schedule, count, itemsize).time(alpha, beta, gamma)
