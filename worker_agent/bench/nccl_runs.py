"""nccl-tests' table, measured as nccl-tests measure theirs: torch's own call at every size, out
of place then in place (placement.py), each after -w warm-up calls and one more that every rank
waits for, then -n timed iterations of -m calls each, as -z says:

- 0: launched back to back, waited for once at the end;
- 1: each iteration waited for (the device too), then a barrier, all in the time;
- 2: each iteration waited for, no barrier;
- 3: each iteration waited for, then a barrier outside the time.

A rank's time is its timed span over -n x -m calls; the row's combines the ranks' as -a says. Then
-c N checked calls, each from a fresh input: #wrong is the first one's elements off the collective's
definition, summed over the ranks (it stops at the first that has any, as nccl-tests do)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import partial

import numpy as np
import torch
import torch.distributed as dist

from ringside.bench.dtypes import TYPES, Pair
from ringside.bench.placement import Placed, finish, place
from ringside.bench.plan import count_for
from ringside.bench.statistics import combined
from ringside.bench.sweep import PAUSE_EVERY
from ringside.bench.wrong import CHECK_CAP, count_wrong, expected, rank_input, reference_bytes
from ringside.worker_agent.core.collectives import Collective, get

PLACES = ("out_of_place", "in_place")  # nccl-tests' order


def results(
    world,
    a: argparse.Namespace,
    pairs: list[Pair],
    size_list: list[int],
    between: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """On every rank together: a result per (dtype, op) pair and size, in nccl-tests' order.
    `between(done, total)`, if given, is called on every rank before each result and every
    PAUSE_EVERY calls within one (a served bench asks there whether to stop)."""
    out: list[dict] = []
    total = len(pairs) * len(size_list)
    for dtype, op in pairs:
        for size in size_list:
            pause = None if between is None else partial(between, len(out), total)
            if pause is not None:
                pause()
            out.append(_Result(world, a, dtype, op, size, pause).measure())
    return out


class _Result:
    """One row of nccl-tests' table: its layout on this rank, and its measurement."""

    def __init__(self, world, a: argparse.Namespace, dtype: str | None, op: str | None, size: int, pause):
        self.world, self.a, self.dtype, self.op, self.pause = world, a, dtype, op, pause
        self.collective: Collective = get(a.collective)
        p, c = world.world_size, self.collective
        self.itemsize = TYPES[dtype].itemsize if dtype else 0
        self.count = count_for(a.collective, size, self.itemsize, p) if c.payload else 0
        self.nbytes = c.message_bytes(self.count, self.itemsize, p) if c.payload else 0
        self.root = a.root if c.rooted else 0
        self.peer = (self.root + 1) % p  # send_recv's receiver: the rank after the sender
        self.timeout = timedelta(seconds=world.timeout)

    def measure(self) -> dict:
        mine, wrong = [], []
        for k in PLACES:
            mine.append(self._timed(self._placed(k == "in_place", seed=0)))
            wrong.append(self._wrong(k == "in_place"))
        times = _gathered(self.world, mine)  # [rank, placement]
        c, p = self.collective, self.world.world_size
        cells = {}
        for i, k in enumerate(PLACES):
            seconds = combined(times[:, i : i + 1], self.a.average, 0)[0]
            algbw = self.nbytes / seconds if seconds > 0 else 0.0
            cells[k] = {"time": seconds, "algbw": algbw, "busbw": algbw * c.bus_factor(p), "wrong": wrong[i]}
        return {
            "size": self.nbytes,
            "count": self.count,
            "type": self.dtype,
            "redop": self.op,
            "root": self.root if c.rooted else -1,
            **cells,
            "rank_times": {k: times[:, i].tolist() for i, k in enumerate(PLACES)},
        }

    def _placed(self, in_place: bool, seed: int) -> Placed:
        """This rank's call in one placement, its input made from `seed`."""
        c, world, p = self.collective, self.world, self.world.world_size
        dtype = getattr(torch, self.dtype) if self.dtype else torch.float32
        buffer = torch.zeros(max(1, c.blocks(p) * self.count), dtype=dtype, device=world.device)
        if self.dtype:
            mine = c.input_blocks(world.rank, p, self.root)
            if len(mine):
                x = rank_input(c, TYPES[self.dtype], self.count, world.rank, p, self.root, seed)
                buffer[mine.start * self.count : mine.stop * self.count] = x.to(world.device)
        ranks = list(range(p))
        return place(c, buffer, self.count or 1, ranks, world.rank, self.root, self.peer, self.op, in_place)

    def _timed(self, placed: Placed) -> float:
        """This rank's seconds a call, as -z and -m say."""
        timeout = self.timeout
        for calls in self._segments(self.a.warmup):
            works = [placed.start() for _ in range(calls)]
            for work in works:
                finish(work, timeout)
        placed.once(timeout)  # the one every rank waits for, as nccl-tests' do before timing
        self._synchronize()
        self._barrier()
        spent = sum(self._segment(placed, n) for n in self._segments(self.a.iterations))
        return spent / (self.a.iterations * self.a.agg_iters)

    def _segments(self, n: int) -> Iterator[int]:
        """n iterations in one go, or (a served bench) in runs of PAUSE_EVERY, asking between them."""
        step = n if self.pause is None else PAUSE_EVERY
        for start in range(0, n, max(step, 1)):
            if start and self.pause is not None:
                self.pause()
            yield min(step, n - start)

    def _segment(self, placed: Placed, iterations: int) -> float:
        """The seconds of `iterations` iterations of -m calls each, as -z says."""
        blocking, agg = self.a.blocking, self.a.agg_iters
        if blocking == 3:
            spent = 0.0
            for _ in range(iterations):
                began = time.perf_counter()
                self._launch(placed, agg)
                spent += time.perf_counter() - began
                self._barrier()
            return spent
        began = time.perf_counter()
        if blocking == 0:
            self._launch(placed, iterations * agg)
        else:
            for _ in range(iterations):
                self._launch(placed, agg)
                if blocking == 1:
                    self._barrier()
        return time.perf_counter() - began

    def _launch(self, placed: Placed, calls: int) -> None:
        """`calls` calls launched back to back, then waited for (the device too)."""
        works = [placed.start() for _ in range(calls)]
        for work in works:
            finish(work, self.timeout)
        self._synchronize()

    def _wrong(self, in_place: bool) -> int | None:
        """Elements wrong over every rank, -c calls from fresh inputs; None: unchecked (-c 0, every
        rank's input past CHECK_CAP, or in-place all_to_all, which nccl-tests do not check)."""
        c, p, dtype = self.collective, self.world.world_size, self.dtype
        if not self.a.check:
            return None
        if dtype is None:  # nothing of the user's moves: nothing to be wrong
            return 0
        if reference_bytes(c, dtype, self.count, p, self.root) > CHECK_CAP:
            return None
        for rep in range(1, self.a.check + 1):
            placed = self._placed(in_place, seed=rep)
            if not placed.checked:
                return None
            placed.once(self.timeout)
            self._synchronize()
            want = expected(c, dtype, self.count, self.op, self.root, self.peer, self.world.rank, p, rep)
            counts = torch.tensor(
                [count_wrong(c.reduces, placed.output, want, p)], dtype=torch.int64, device=self.world.device
            )
            dist.all_reduce(counts)
            if counts.item():
                return int(counts.item())
        return 0

    def _synchronize(self) -> None:
        if self.world.device.type == "cuda":
            torch.cuda.synchronize(self.world.device)

    def _barrier(self) -> None:
        dist.barrier(async_op=True).wait(self.timeout)


def _gathered(world, mine: list[float]) -> np.ndarray:
    """Every rank's numbers, [rank, i], on every rank."""
    x = torch.tensor(mine, dtype=torch.float64, device=world.device)
    everyone = [torch.empty_like(x) for _ in range(world.world_size)]
    dist.all_gather(everyone, x)
    return torch.stack(everyone).cpu().numpy()
