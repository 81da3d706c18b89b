"""parameter_server: S of the group's ranks are servers, each holding one shard of the
model's weights; the others are workers, each holding a gradient for the whole model.
Workers pull every shard of the weights, then push every shard of their gradient to
that shard's server, which folds them into its weights with the run's op.

The servers are the S group ranks from the root on (root, root+1, ... mod P); server j
holds shard j. The model has `count` elements cut into S equal shards, and one block is
one shard, so a rank's working buffer is 2S blocks:

    blocks 0 .. S-1    the weights, shard by shard   (a server's input and output: its own shard)
    blocks S .. 2S-1   the gradient, shard by shard  (a worker's input)

What a run computes, precisely: every worker ends with the weights as the servers held
them before (what it pulled: [W_0 ... W_{S-1}]); server j ends with W_j op g_a,j op g_b,j
... over the workers a < b < ... in group order. With SUM that is aggregate and update
in one: a worker that pushes -lr/K times its gradient makes it an SGD step on the mean
of K workers' gradients. A run's workers start from their pattern negated (`given`): they
push -η·g with η = 1, so the servers' SUM is the seed's w ← w − η·Σg. AVG is not taken: it
would divide the weights too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from .base import Collective, NativeArgs, Sized, Start, combine

if TYPE_CHECKING:
    import torch
    from torch.distributed import ReduceOp, Work


# The value that leaves x unchanged under each op, for servers that take part in another
# server's native reduce: "max" and "min" stand for the dtype's largest and smallest values.
IDENTITY: dict[str, int | str] = {
    "SUM": 0,
    "BOR": 0,
    "BXOR": 0,
    "PRODUCT": 1,
    "BAND": -1,
    "MIN": "max",
    "MAX": "min",
}


class ParameterServer(Collective):
    name = "parameter_server"
    rooted = True  # the root is the first server
    reduces = True
    has_servers = True
    min_ranks = 2  # a server and a worker

    def __init__(self, servers: int = 1):
        self.servers = servers

    def with_servers(self, servers: int) -> ParameterServer:
        return _with(servers)

    def server_ranks(self, p: int, root: int) -> list[int]:
        """Group ranks of the servers, shard by shard (a world of S or fewer ranks: all of them)."""
        return [(root + j) % p for j in range(min(self.servers, p))]

    def workers(self, p: int, root: int) -> list[int]:
        servers = set(self.server_ranks(p, root))
        return [r for r in range(p) if r not in servers]

    def shard_of(self, rank: int, p: int, root: int) -> int | None:
        """The shard a server holds; None for a worker."""
        servers = self.server_ranks(p, root)
        return servers.index(rank) if rank in servers else None

    # --- the buffer ----------------------------------------------------------

    def count(self, spec: Sized) -> int:
        """One block is one shard: the model's `count` elements over the servers (validated to divide)."""
        return spec.count // max(1, spec.servers or 1)

    def blocks(self, p: int) -> int:
        return 2 * self.servers

    def given(self, values: np.ndarray, rank: int, p: int, root: int) -> np.ndarray:
        """A worker's gradient blocks hold what it pushes, −η·g (η = 1): the servers' SUM is then
        the seed's update, w ← w − η·Σg."""
        return values if self.shard_of(rank, p, root) is not None else -values

    def input_blocks(self, rank: int, p: int, root: int) -> range:
        j = self.shard_of(rank, p, root)
        return range(j, j + 1) if j is not None else range(self.servers, 2 * self.servers)

    def output_blocks(self, rank: int, p: int, root: int, peer: int) -> range:
        j = self.shard_of(rank, p, root)
        return range(j, j + 1) if j is not None else range(self.servers)

    def message_blocks(self, p: int) -> int:
        return self.servers  # the model

    def bus_factor(self, p: int) -> float:
        """Each server's link carries (P-S)/S of the model each way: the bottleneck."""
        return (p - self.servers) / self.servers

    # --- what a run of it means ----------------------------------------------

    def reference(
        self, inputs: list[np.ndarray], op: str | None, root: int, peer: int
    ) -> list[np.ndarray | None]:
        p = len(inputs)
        servers, workers = self.server_ranks(p, root), self.workers(p, root)
        weights = [inputs[s] for s in servers]
        gradients = {w: np.array_split(inputs[w], self.servers) for w in workers}
        out: list[np.ndarray | None] = [np.concatenate(weights) if w in gradients else None for w in range(p)]
        for j, s in enumerate(servers):
            pushed = [gradients[w][j] for w in workers]
            out[s] = combine(op, [weights[j]] + pushed) if workers else weights[j].copy()
        return out

    def sources(self, rank: int, p: int, root: int, peer: int) -> dict[int, list[tuple[int, int]]]:
        servers = self.server_ranks(p, root)
        j = self.shard_of(rank, p, root)
        if j is None:
            return {i: [(s, i)] for i, s in enumerate(servers)}
        return {j: [(rank, j)] + [(w, self.servers + j) for w in self.workers(p, root)]}

    def native(self, a: NativeArgs) -> tuple[Start, torch.Tensor | None]:
        """The backend's own calls: every server broadcasts its shard (pull), then every shard is
        reduced onto its server (push), the other servers giving the op's identity to it."""
        servers, s = self.server_ranks(a.p, a.root), self.servers
        j = self.shard_of(a.me, a.p, a.root)
        # what this rank gives to shard k's reduce, made before the clock starts
        pushed = [
            a.blocks[k] if k == j else a.blocks[s + k] if j is None else _identity(a.blocks[k], a.op, a.dist)
            for k in range(s)
        ]

        def start() -> _Then:
            pulls = [
                a.dist.broadcast(a.blocks[k], a.ranks[servers[k]], a.group, async_op=True) for k in range(s)
            ]
            return _Then(pulls, push)

        def push() -> list[Work]:
            return [
                a.dist.reduce(pushed[k], a.ranks[servers[k]], a.op, a.group, async_op=True) for k in range(s)
            ]

        return start, a.blocks[j] if j is not None else a.buffer[: a.buffer.numel() // 2]


class _Then:
    """Works to wait for, then more to start and wait for: a server's push lands in the shard
    its pull sends, so the pushes start when the pulls are done. Waited on as a torch Work."""

    def __init__(self, first: list[Work], then: Callable[[], list[Work]]):
        self.first, self.then = first, then

    def wait(self, timeout: timedelta = timedelta(0)) -> bool:  # torch's default: 0, no limit
        for work in self.first:
            work.wait(timeout)
        for work in self.then():
            work.wait(timeout)
        return True


def _identity(like: torch.Tensor, op: ReduceOp.RedOpType | None, dist: ModuleType) -> torch.Tensor:
    """A tensor shaped as `like` that leaves any value unchanged under `op` (a dist.ReduceOp)."""
    import torch  # here, not above: the server imports the descriptors and no torch

    name = next(k for k in IDENTITY if getattr(dist.ReduceOp, k) == op)
    extreme = IDENTITY[name]
    value: float
    if not isinstance(extreme, str):
        value = extreme
    elif like.dtype.is_floating_point:  # the dtype's largest or smallest value
        value = float("inf") if extreme == "max" else float("-inf")
    else:
        limits = torch.iinfo(like.dtype)
        value = limits.max if extreme == "max" else limits.min
    return torch.full_like(like, value)


@lru_cache(maxsize=64)
def _with(servers: int) -> ParameterServer:
    return ParameterServer(servers)


PARAMETER_SERVER = _with(1)
