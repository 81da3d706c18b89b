"""Ringside's table, on every rank together, for one (dtype, op) pair: size by size, the algorithms
taking turns at each, then auto at every size; every rank's numbers gathered on every rank."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator

from ringside.bench.auto import model_of, pick
from ringside.bench.compare import not_run, row
from ringside.bench.plan import records, spec_for, unfit
from ringside.bench.wrong import CHECK_CAP, count_wrong, expected, reference_bytes
from ringside.worker_agent.core.algorithms import NATIVE, Algorithm, algorithm_of
from ringside.worker_agent.core.collectives import get
from ringside.worker_agent.core.run_shape import peer_of
from ringside.worker_agent.core.simulate import Sharing
from ringside.worker_agent.user.user_algorithms import load

PAUSE_EVERY = 10  # rounds of iterations between a served bench's asks whether to stop
# what bench/ scripts that call sweep() may leave out
SWEEP_DEFAULTS = {"check": 1, "average": 1, "blocking": 0, "root": 0, "algorithms": [], "agg_iters": 1}
BARRIERED = (1, 3)  # -z values whose iterations here start at a barrier, outside the time


def rounds(n: int, pause: Callable[[], None] | None) -> Iterator[int]:
    """range(n), calling `pause` (on every rank alike, outside any timed part) before every
    PAUSE_EVERY-th round: one size of a served bench may take hours, and its cancel must not wait
    for the size to end."""
    for i in range(n):
        if pause is not None and i and i % PAUSE_EVERY == 0:
            pause()
        yield i


def interleaved(
    passes: list, iterations: int, warmup: int, blocking: int, pause: Callable[[], None] | None = None
) -> list[list[float]]:
    """Each run's per-iteration seconds on this rank, the runs taking turns and each turn starting
    one further on (A B C, B C A, C A B, ...): with no barrier between them, the first of a turn
    absorbs the ranks' skew from the last, so a fixed order would charge that to one run alone
    (native against itself measured 0.07x, 'marked', when native always went first)."""
    import torch.distributed as dist

    for _ in rounds(warmup, pause):
        for run in passes:
            run.once()
    times: list[list[float]] = [[] for _ in passes]
    n = len(passes)
    for i in rounds(iterations, pause):
        for k in range(n):
            j = (i + k) % n  # the same order on every rank: they must call the same collectives
            if blocking in BARRIERED:
                dist.barrier()
            times[j].append(passes[j].once())
    return times


def measure(
    world,
    a: argparse.Namespace,
    size: int,
    runs: list[tuple[str, int]],
    pause: Callable[[], None] | None = None,
) -> list[tuple]:
    """On every rank together: `runs` ((algorithm, chunks) each) at one size, taking turns; for
    each, every rank's seconds ([rank, iteration], on every rank) and its elements wrong on all
    ranks together (None with -c 0). `pause`: see rounds."""
    import torch
    import torch.distributed as dist

    from ringside.worker_agent.rank.runner import Runner

    runner, p = Runner(world, lambda event: None), world.world_size
    passes = [
        runner.open(f"bench-{algorithm}-{size}", spec_for(a, size, algorithm, p, chunks))
        for algorithm, chunks in runs
    ]
    mine = torch.tensor(
        interleaved(passes, a.iterations, a.warmup, a.blocking, pause),
        dtype=torch.float64,
        device=world.device,
    )
    everyone = [torch.empty_like(mine) for _ in range(p)]
    dist.all_gather(everyone, mine)
    times = torch.stack(everyone).cpu().numpy()  # [rank, run, iteration]
    wrong = _wrong(world, a, passes)
    return [(times[:, i, :], wrong[i]) for i in range(len(runs))]


def _wrong(world, a: argparse.Namespace, passes: list) -> list:
    """Each run's elements wrong on all ranks together, from the first of -c checked passes that has
    any (0: none had); None each with -c 0 or past CHECK_CAP. Every pass is from the run's input."""
    import torch
    import torch.distributed as dist

    p, spec = world.world_size, passes[0].spec  # one input for all of them: same seed, same count
    collective = get(spec.collective, spec.servers)
    # the collective's own dtype: a barrier's token is int64 whatever dtype the run was given
    count, root, dtype = collective.count(spec), spec.root, collective.dtype(spec)
    if not (a.check and reference_bytes(collective, dtype, count, p, root) <= CHECK_CAP):
        return [None] * len(passes)
    peer = peer_of(spec, list(range(p)))
    want = expected(collective, dtype, count, collective.op(spec), root, peer, world.rank, p, spec.seed)
    found = [0] * len(passes)
    for _ in range(a.check):
        here = [count_wrong(collective.reduces, run.output_once(), want, p) for run in passes]
        counts = torch.tensor(here, dtype=torch.int64, device=world.device)
        dist.all_reduce(counts)
        found = [f or c for f, c in zip(found, counts.tolist())]
        if all(found):
            break
    return found


def sweep(
    world,
    args_dict: dict,
    names: list[str],
    size_list: list[int],
    between: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """On every rank: the whole table, size by size, the algorithms taking turns at each; then auto
    at every size, taking turns with native; rows in size order. `between(done, total)`, if given,
    is called on every rank before each size and every few rounds of iterations within one (a served
    bench asks there whether to stop)."""
    a = argparse.Namespace(**{**SWEEP_DEFAULTS, **args_dict})
    for path in a.algorithms:  # ranks fork from a server that has not seen the user's files
        load(path)
    asked = records(a.collective, names)
    run = _Sweep(world, a, size_list, len(size_list) * len(asked), between)
    hosts = hosts_of(world)
    run.measure_all([x for x in asked if not x.chosen])
    auto = next((x for x in asked if x.chosen), None)
    if auto is not None:
        run.measure_auto(auto)
    order = {x.name: i for i, x in enumerate(asked)}
    for r in run.rows:
        r["hosts"] = hosts
    return sorted(run.rows, key=lambda r: (r["size"], order[r["algorithm"]]))


class _Sweep:
    """The rows of one sweep as they are measured, and the progress they make."""

    def __init__(
        self,
        world,
        a: argparse.Namespace,
        size_list: list[int],
        total: int,
        between: Callable[[int, int], None] | None,
    ):
        self.world, self.a, self.size_list, self.total, self.between = world, a, size_list, total, between
        self.rows: list[dict] = []

    def measure_all(self, measured: list[Algorithm]) -> None:
        """Every algorithm but auto, at every size, taking turns; one that cannot run at a size (too
        few elements for its chunks) has a row that says why, and the others run."""
        world, a, p = self.world, self.a, self.world.world_size
        for size in self.size_list:
            pause = self._starting()
            why = {x.name: unfit(a, x.name, size, p) for x in measured}
            running = [x for x in measured if why[x.name] is None]
            results = measure(world, a, size, [(x.name, 1) for x in running], pause) if running else []
            native = next((times for x, (times, _) in zip(running, results) if x.reference), None)
            for algorithm, (times, wrong) in zip(running, results):
                self.rows.append(row(a, p, world.backend, size, algorithm, times, wrong, native))
            for algorithm in measured:
                reason = why[algorithm.name]
                if reason is not None:
                    self.rows.append(not_run(a, p, world.backend, size, algorithm, reason))
            self._done()

    def measure_auto(self, auto: Algorithm) -> None:
        """At every size, what the model fitted to the rows so far picks, taking turns with native."""
        world, a, p = self.world, self.a, self.world.world_size
        sharing = sharing_of(world)
        fitted, native_fit = model_of(self.rows, a.collective, p, sharing)
        for size in self.size_list:
            pause = self._starting()
            choice = pick(a, p, size, fitted, native_fit, sharing)
            turns = [(NATIVE, 1), (choice.algorithm, choice.chunks)]
            (native, _), (times, wrong) = measure(world, a, size, turns, pause)
            ran = algorithm_of(a.collective, choice.algorithm)
            r = row(a, p, world.backend, size, auto, times, wrong, native, ran=ran)
            r["ran"] = choice.algorithm + (f" x{choice.chunks}" if choice.chunks > 1 else "")
            r["why"] = choice.why
            self.rows.append(r)
            self._done()

    def _starting(self) -> Callable[[], None] | None:
        """Before a size: `between`, then the pause that rounds() calls within it."""
        if self.between is None:
            return None
        done, between, total = len(self.rows), self.between, self.total
        between(done, total)
        return lambda: between(done, total)

    def _done(self) -> None:
        if self.world.rank == 0:
            progress(len(self.rows), self.total)


def hosts_of(world) -> dict[str, int]:
    """How many of the table's ranks run on each host, in rank order."""
    import torch.distributed as dist

    everyone: list[str] = [""] * world.world_size  # all_gather_object fills in each rank's host
    dist.all_gather_object(everyone, world.host)
    return {host: everyone.count(host) for host in everyone}


def sharing_of(world) -> Sharing:
    """How the table's ranks share cores, as the server reads it from their hellos."""
    import torch.distributed as dist

    hello = world.hello()
    everyone: list[tuple[str, int]] = [("", 0)] * world.world_size  # each rank's, once gathered
    dist.all_gather_object(everyone, (hello.host, hello.cores))
    return Sharing.of(everyone)


def progress(done: int, total: int, width: int = 30) -> None:
    """A plain-text bar on stderr, redrawn in place; only on a terminal, so logs stay clean."""
    if not sys.stderr.isatty():
        return
    filled = width * done // total
    end = "\r\033[K" if done == total else ""
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
    sys.stderr.flush()
