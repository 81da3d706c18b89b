"""The bench, as a kind of job (`ringside bench --server`): nccl-tests' table of the connected
cluster. It holds the cluster alone, as a training does (it does not queue: refused, 409, while
anything else holds it), so that nothing else's traffic is in its numbers.

The server plans it from the bench's flags (which algorithms, which sizes: plan.prepare, for
this cluster's world) and refuses what no rank could run before any rank hears of it. Every rank
runs the bench's own sweep, which gathers every rank's numbers on every rank; rank 0 sends the
merged table (BenchFinished), the others say they are done. A bench is not a run: its table is
kept in memory for its client to fetch (the last KEPT ended ones), never stored, so a stopped
server forgets it (it ended, interrupted, with the server)."""

from __future__ import annotations

import argparse
import time
from collections import OrderedDict

from starlette.requests import HTTPConnection

from ringside.bench import dtypes
from ringside.bench.plan import STEP, compared, default_algorithms, pairs, prepare, records
from ringside.server.cluster.cluster import Cluster
from ringside.server.dispatch.dispatcher import Dispatcher
from ringside.server.dispatch.job import Job, JobState
from ringside.server.dispatch.ranked import RankedRecord
from ringside.worker_agent.core.algorithms import NATIVE
from ringside.worker_agent.core.protocol import (
    MAX_BENCH_NUMBERS,
    MAX_BENCH_ROWS,
    MAX_BENCH_SIZES,
    BenchCommand,
    BenchFinished,
    BenchResult,
    BenchRow,
    BenchSetting,
    BenchSpec,
    ErrorEvent,
    RunCancelled,
)
from ringside.worker_agent.core.validation import SpecError

KEPT = 16  # ended benches whose tables wait for their clients
ALLOWED_S = 24 * 3600.0  # as the local bench allows its ranks: a sweep's length is the user's choice


class Bench(RankedRecord):
    """One bench on the cluster: what was asked, what the server planned, and the merged table."""

    id: str
    state: JobState = JobState.QUEUED
    spec: BenchSpec
    world_size: int
    backend: str
    algorithms: list[str]
    sizes: list[int]
    skipped: list[str] = []  # algorithms written for another world size, and why
    error: str | None = None
    cancel_requested: bool = False
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    setting: BenchSetting | None = None
    results: list[BenchResult] = []  # nccl-tests' table
    rows: list[BenchRow] = []  # Ringside's

    def on_finished(self, event: BenchFinished) -> None:
        self.finished(event.rank)
        if event.rank == 0:
            self.setting, self.results, self.rows = event.setting, event.results, event.rows

    def conclude(self, state: JobState, error: str | None) -> None:
        self.ended(state, error)
        if self.state == JobState.DONE and not self.results:  # every rank finished, rank 0 sent nothing
            self.state, self.error = JobState.FAILED, "rank 0 finished without sending the table"


class BenchJob(Job):
    kind = "bench"
    queues = False
    events = (BenchFinished, RunCancelled, ErrorEvent)

    def __init__(self, record: Bench, benches: Benches):
        super().__init__(record)
        self.bench, self.benches = record, benches

    def save(self, landed) -> None:
        landed()  # never stored (the module says why): it is as kept as it will be

    def command(self) -> BenchCommand:
        b = self.bench
        return BenchCommand(run_id=b.id, spec=b.spec, algorithms=b.algorithms, sizes=b.sizes)

    def allowed_s(self) -> float:
        return ALLOWED_S

    def begin(self) -> None:
        self.bench.state, self.bench.started_at = JobState.RUNNING, time.time()

    def take(self, event) -> None:
        if isinstance(event, BenchFinished):
            self.bench.on_finished(event)
        elif isinstance(event, RunCancelled):
            self.bench.on_cancelled(event)
        else:
            self.bench.on_error(event)

    def end(self, state: JobState, error: str | None) -> None:
        self.bench.conclude(state, error)
        self.benches.keep(self.bench)


def named(spec: BenchSpec) -> BenchSpec:
    """The spec with its dtype and op in the bench's own names (`half`: float16, `prod`: PRODUCT),
    as every rank reads them; raises SpecError naming a name that is neither."""
    names = {}
    for field, flag, read in (("dtype", "datatype", dtypes.dtype_name), ("op", "op", dtypes.op_name)):
        try:
            names[field] = read(getattr(spec, field))
        except ValueError as e:
            raise SpecError(flag, str(e)) from None
    return spec.model_copy(update=names)


def plan(spec: BenchSpec, world_size: int, backend: str) -> tuple[list[str], list[int], list[str]]:
    """(algorithms, sizes, skipped) for this cluster, as the local bench plans them; raises SpecError
    naming the flag (the bench's long names) of what no rank could run. `spec` as named() gives it."""
    step = None if spec.factor and spec.factor > 1 else spec.step or STEP
    if (
        step is not None
        and spec.max_bytes >= spec.min_bytes
        and (spec.max_bytes - spec.min_bytes) // step >= MAX_BENCH_SIZES
    ):
        raise SpecError(
            "stepbytes",
            f"a served bench has at most {MAX_BENCH_SIZES} sizes; "
            f"-i {step} from {spec.min_bytes} to {spec.max_bytes} makes more",
        )
    args = argparse.Namespace(
        **{
            **spec.model_dump(),
            "only": ",".join(spec.only) if spec.only else None,
            "algorithms": [],
            "backend": backend,
        }
    )
    names, sizes = prepare(args, world_size, say=False)
    asked = spec.only or default_algorithms(spec.collective)
    kept, left = pairs(args, backend)
    skipped = [a.misfit(world_size) for a in records(spec.collective, asked) if not a.fits(world_size)] + left
    ours = [pair for pair in kept if compared(pair)] if set(names) - {NATIVE} else []
    results, rows = len(kept) * len(sizes), len(names) * len(sizes) * len(ours)
    if max(results, rows) > MAX_BENCH_ROWS:
        raise SpecError(
            "maxbytes",
            f"{len(sizes)} sizes x {len(kept)} (dtype, op) pairs"
            + (f" x {len(names)} algorithms" if rows > results else "")
            + f" make {max(results, rows)} rows; a served bench has at most {MAX_BENCH_ROWS}",
        )
    if rows * (spec.iterations + world_size) + results * 2 * world_size > MAX_BENCH_NUMBERS:
        raise SpecError(
            "iters",
            f"{rows} rows of {spec.iterations} iterations on {world_size} ranks: more "
            f"than the {MAX_BENCH_NUMBERS} times a served bench's table carries",
        )
    return names, sizes, skipped


class Benches:
    """Starting, finding and cancelling benches; the ended ones kept a while for their clients."""

    def __init__(self, dispatcher: Dispatcher, cluster: Cluster):
        self.dispatcher, self.cluster = dispatcher, cluster
        self.next_id = 1
        self.ended: OrderedDict[str, Bench] = OrderedDict()

    async def submit(self, spec: BenchSpec) -> Bench:
        """Start a bench, or raise SpecError (NotReady, Busy) naming what is wrong, starting nothing."""
        self.dispatcher.check_whole("bench")
        world_size, backend = self.cluster.world_size, self.cluster.backend or "gloo"
        spec = named(spec)
        names, sizes, skipped = plan(spec, world_size, backend)
        record = Bench(
            id=f"b-{self.next_id:06d}",
            spec=spec,
            world_size=world_size,
            backend=backend,
            algorithms=names,
            sizes=sizes,
            skipped=skipped,
            created_at=time.time(),
        )
        self.next_id += 1
        await self.dispatcher.submit(BenchJob(record, self))  # refused (Busy) while the cluster is held
        return record

    def find(self, bench_id: str) -> Bench | None:
        job = self.dispatcher.find(bench_id)
        return job.bench if isinstance(job, BenchJob) else self.ended.get(bench_id)

    def cancel(self, bench_id: str) -> Bench | None:
        """Cancel a bench: its ranks stop together within a few iterations (jobs.Dispatcher.cancel)."""
        job = self.dispatcher.find(bench_id)
        if not isinstance(job, BenchJob):
            return self.ended.get(bench_id)  # ended, or none: nothing to cancel
        self.dispatcher.cancel(job)
        return job.bench

    def keep(self, record: Bench) -> None:
        self.ended[record.id] = record
        while len(self.ended) > KEPT:
            self.ended.popitem(last=False)


async def benches_of(conn: HTTPConnection) -> Benches:
    return conn.app.state.benches
