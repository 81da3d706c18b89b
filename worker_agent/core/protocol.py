"""The messages that cross process boundaries: what a run asks for (RunSpec),
what a worker reports (events), and what the server tells a worker
(commands). Every message has a `type` and the protocol version `v`.

Ranks in events are global ranks; `step` indexes the schedule's steps.
Times are seconds since the run's barrier-aligned start on that rank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Literal, NoReturn, TypeAlias
from urllib.parse import urlsplit, urlunsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    StrictBool,
    StrictFloat,
    StrictInt,
    TypeAdapter,
    WithJsonSchema,
    model_validator,
)

from .collectives import COLLECTIVES
from .perturb import Perturb
from .vocabulary import DTYPES, LAYOUTS, OPS

PROTOCOL_VERSION = 1

# Literals of the tables' names (collectives/, vocabulary.py). The names are the tables' data, not
# written out here a second time, so a type checker, which reads no data, sees strings; pydantic
# checks every name against its table.
if TYPE_CHECKING:
    Collective: TypeAlias = str
    DType: TypeAlias = str
    Op: TypeAlias = str
    LayoutName: TypeAlias = str
else:
    Collective = Literal[tuple(COLLECTIVES)]
    DType = Literal[tuple(DTYPES)]
    Op = Literal[tuple(OPS)]
    LayoutName = Literal[tuple(LAYOUTS)]
# the seed's own: "own_rank" (every value is the rank: torch.ones(n) * rank) and "powers"
# (block j holds 10^j * rank: torch.tensor([1, 10, 100, 1000]) * rank), inputs.py; and "origin"
# (block j of rank r holds 100·r + j, which the page writes r2c3: where a copied value came from)
Pattern = Literal["rank", "index", "random_int", "random_float", "digits", "own_rank", "powers", "origin"]
Capture = Literal["full", "summary", "none"]


def _finite_or_word(x: float) -> float | str:
    return x if math.isfinite(x) else ("nan" if x != x else "inf" if x > 0 else "-inf")


# A float whose infinities and NaN cross JSON as "inf", "-inf" and "nan" (JSON has no
# word for them, and a float16 product overflows soon): read back as floats.
Real = Annotated[float, PlainSerializer(_finite_or_word, when_used="json")]
Number = int | Real  # integer dtypes stay exact


def no_constant(word: str) -> NoReturn:
    """For json.loads' parse_constant: NaN and Infinity, which Python's parser takes and JSON
    has not, are refused where anything is read (a forged `pieces: Infinity` must not reach
    int()); a rank says "nan" and "inf" (Real)."""
    raise ValueError(f'{word} is not JSON: NaN and infinities cross as the words "nan", "inf", "-inf"')


# chunks the server's model picks: a word of the chunks field's own, not the algorithm named auto
AUTO_CHUNKS: Literal["auto"] = "auto"


def _chunks(value: object) -> int | Literal["auto"]:
    """A whole number of chunks, or "auto" (the server's model picks it): one check, so that a
    refusal names the field "chunks" and not one member of a union. A JSON number, never a
    string of digits, a float or a boolean (strict, as RunSpec's other numbers are)."""
    if value == AUTO_CHUNKS:
        return AUTO_CHUNKS
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError('must be a whole number of chunks or "auto"')


Chunks = Annotated[
    int | Literal["auto"],
    PlainValidator(_chunks),
    WithJsonSchema({"anyOf": [{"type": "integer"}, {"const": "auto"}]}),
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


MAX_STEPS, MAX_TRANSFERS = 512, 16384  # a schedule sent as data: more than any lecture draws
MAX_CHUNKS = 1024  # pieces per block or segment: more than any picture can show
MAX_FULL_CAPTURE = 4096  # elements per rank's buffer that `full` capture will ship
# values a `full` run may ship in all: what every viewer receives and the store keeps
MAX_RUN_VALUES = 1 << 20
MAX_MISMATCHES = 5  # differing positions a rank reports, for a viewer to see in red
MAX_WORLD = 4096  # ranks a world may have: a hello is only a claim, and the server sizes things by it
# chunks of one rank's buffer (blocks × pieces) that a run may cut: more than a stage draws
MAX_RANK_CHUNKS = 16384
MAX_RUN_STEPS = 2 * MAX_WORLD  # steps of a planned run: a ring all_reduce's 2(P-1) at the largest world
MAX_ITERATIONS = 10_000  # timed iterations of a run
Index = Annotated[int, Field(ge=0, lt=1 << 31)]  # a rank or chunk number sent as data


# a step's words: every built-in's and example's fit (test_schedules.py, test_user_algorithms.py)
MAX_PHASE, MAX_CAPTION = 40, 300
# A pipelined step (schedule.pipelined) says what each piece in flight does: "piece 3: <its round's
# caption>; piece 4: ...", so its caption grows with the pieces in flight, up to MAX_CHUNKS of them.
MAX_PLANNED_CAPTION = MAX_CHUNKS * (len(f"piece {MAX_CHUNKS - 1}: ; ") + MAX_CAPTION)
TransferDoc = tuple[Index, Index, Index, Index, Index]  # [src, dst, chunk, into, reduce]


class StepDoc(Strict):
    phase: str = Field("", max_length=MAX_PHASE)
    caption: str = Field("", max_length=MAX_CAPTION)
    transfers: list[TransferDoc] = Field(
        max_length=MAX_TRANSFERS, description="[src, dst, chunk, into, reduce]"
    )


class ScheduleDoc(Strict):
    """A schedule as data (algorithm "custom"): steps of transfers in group ranks, each
    block of the working buffer cut into `pieces` chunks. Data only: never code."""

    pieces: int = Field(1, ge=1, le=MAX_CHUNKS)
    layout: LayoutName = "ring"
    # Sequence, not list: PlanDoc narrows it to its own steps, which a list of StepDoc, open to any
    # step, would not let it do. A JSON array still comes back as a list.
    steps: Sequence[StepDoc] = Field(max_length=MAX_STEPS)


class PlannedStep(StepDoc):
    """A step of a run's schedule (PlanDoc): as bounded as a run's steps are, not as a schedule
    sent as data is. A pipelined step's caption names every piece in flight, and one step may
    move more chunks than a custom schedule's every step together (a flat broadcast of 1024
    pieces to 63 ranks moves 64,512): the run's checks (validation.py) bound its size, and a
    rank's frame (server/transport.py) the bytes it takes."""

    caption: str = Field("", max_length=MAX_PLANNED_CAPTION)
    transfers: list[TransferDoc] = Field(description="[src, dst, chunk, into, reduce], global ranks")


class PlanDoc(ScheduleDoc):
    """A run's schedule, the one form it has outside a rank (Schedule.to_doc): what rank 0 or
    traced code reports in RunStarted, what the server plans, stores and sends to viewers.
    A ScheduleDoc in global ranks, with what the run says of it. Whether its ranks and chunks
    are the run's own is the run's question (server/runs/run.py: Run._learn)."""

    collective: Collective
    algorithm: str
    world_size: int = Field(ge=1, le=MAX_WORLD, description="ranks of the schedule: the group's")
    root: Index = Field(description="global rank")
    blocks: int = Field(ge=1, le=MAX_RANK_CHUNKS)
    pieces: int = Field(1, ge=1, le=MAX_RANK_CHUNKS)
    servers: int = Field(
        0, ge=0, le=MAX_WORLD, description="a collective with servers: how many, from the root on"
    )
    steps: list[PlannedStep] = Field(max_length=MAX_RUN_STEPS)

    @model_validator(mode="after")
    def _within_a_run(self) -> PlanDoc:
        if self.blocks * self.pieces > MAX_RANK_CHUNKS:
            raise ValueError(
                f"{self.blocks} blocks of {self.pieces} pieces: a run has at most {MAX_RANK_CHUNKS} chunks"
            )
        return self


class RunSpec(Strict):
    """One collective to run on every rank of the group. Checked by validation.validate."""

    collective: Collective
    algorithm: str = Field(
        "native",
        description='native, a stepwise algorithm, or "auto": the server '
        "picks the one its model predicts fastest and the run says "
        "which and why (predict.py)",
    )
    count: StrictInt = Field(16, description="elements per block (see collectives/base.py)")
    dtype: DType = "float32"
    op: Op = Field("SUM", description="reduction; only collectives that reduce take one")
    root: StrictInt = Field(0, description="global rank of the root (send_recv: the sender)")
    peer: StrictInt | None = Field(
        None, description="send_recv: global rank of the receiver (default: the next rank)"
    )
    servers: StrictInt | None = Field(
        None,
        description="parameter_server: how many ranks are servers, "
        "from the root on (default 1); they shard the "
        "model, count elements, in equal parts",
    )
    group: list[StrictInt] | None = Field(
        None, max_length=MAX_WORLD, description="global ranks taking part (default: all)"
    )
    pattern: Pattern = "index"
    inputs: list[list[Number]] | None = Field(
        None,
        max_length=MAX_WORLD,
        description="each rank's input typed in, one list per rank of the group (a rank with no input: "
        "[]), in place of the pattern's; checked against the collective's input size",
    )
    seed: StrictInt = 0
    capture: Capture = "summary"
    chunks: Chunks = Field(
        1,
        description="chunks per segment or pieces per block, as the algorithm uses "
        'them; "auto": the server\'s model picks the count '
        "(predict.py)",
    )
    iterations: StrictInt = 1
    warmup: StrictInt = 0
    verify: StrictBool = True
    timeout: StrictFloat = Field(30.0, description="seconds a rank waits for a peer before the run fails")
    schedule: ScheduleDoc | None = Field(None, description='algorithm "custom": the schedule itself, as data')
    perturb: Perturb | None = Field(
        None, description="a straggler, a slow link or a hang to cause (perturb.py)"
    )
    purpose: Literal["show", "sweep"] = Field(
        "show", description="sweep: one measurement of many, kept off the stage and the audience's pages"
    )


class ChunkState(Strict):
    """One chunk of one rank's buffer. `values` only at capture `full`."""

    chunk: int
    values: list[Number] | None = Field(None, max_length=MAX_FULL_CAPTURE)
    preview: list[Number] = Field([], max_length=8)
    min: Number | None = None
    max: Number | None = None
    sum: Number | None = None
    checksum: int | None = None


class Message(Strict):
    v: int = PROTOCOL_VERSION


class Hello(Message):
    type: Literal["hello"] = "hello"
    rank: int
    world_size: int
    local_rank: int = 0
    host: str
    pid: int
    backend: str
    device: str
    torch_version: str
    local_world_size: int = 1
    master: str = Field("", max_length=256, description="MASTER_ADDR:MASTER_PORT, where the ranks met")
    launcher: str = Field(
        "", max_length=80, description="what started this rank (torchrun, ringside up, a spawning script)"
    )
    cores: int = Field(
        0,
        ge=0,
        le=1 << 16,
        description="CPU cores this rank may run on, when it runs on the "
        "CPU; 0: a device of its own, or unknown",
    )
    world_key: str = Field(
        "",
        max_length=64,
        description="what every rank of one world shares and nobody else knows (RINGSIDE_WORLD_KEY, "
        "or a secret the ranks agree on through their rendezvous store): while a world is up or "
        "restarting, only a hello with its key takes one of its slots",
    )


class Heartbeat(Message):
    type: Literal["heartbeat"] = "heartbeat"
    rank: int
    status: Literal["idle", "busy"] = "idle"
    cpu_percent: float = 0.0
    rss_bytes: int = 0
    gpu_memory_bytes: int | None = None


MAX_CALLS = 1024  # point-to-point calls of one rank that a traced run keeps for its timeline


class CallTime(Strict):
    """One point-to-point call of traced code (traced_run.py), in seconds since the recorded pass
    began on its rank: posted, began to be waited for (a blocking call: at once), completed."""

    name: Literal["send", "recv", "isend", "irecv"]
    peer: int = Field(description="global rank")
    line: str = Field(max_length=200, description="file:line in the user's code")
    posted: Real
    waited: Real
    done: Real


class RunStarted(Message):
    type: Literal["run_started"] = "run_started"
    run_id: str
    rank: int
    group_rank: int
    spec: RunSpec
    schedule: PlanDoc | None = Field(
        None,
        description="the run's schedule, for readers of the JSON lines "
        "(a server plans runs itself); sent by the group's "
        "rank 0 only, but by every rank for traced "
        "send/recv code, whose schedule only its "
        "ranks know",
    )
    chunk_bounds: list[tuple[int, int]] = Field([], max_length=MAX_RANK_CHUNKS)
    inputs: list[ChunkState] = Field(
        [], max_length=MAX_RANK_CHUNKS, description="this rank's buffer before the first step"
    )
    input_chunks: list[int] = Field(
        [], max_length=MAX_RANK_CHUNKS, description="the chunks this rank's own input fills"
    )
    calls: list[CallTime] = Field(
        [], max_length=MAX_CALLS, description="traced send/recv code: this rank's calls"
    )


class StepEvent(Message):
    type: Literal["step"] = "step"
    run_id: str
    rank: int
    step: int
    t0: float
    t1: float
    states: list[ChunkState] = Field(
        [], max_length=MAX_RANK_CHUNKS, description="chunks of this rank that the step changed"
    )


class Arrived(Message):
    """A rank has begun a step: sent only when the run's perturbation asks for live steps
    (a hang), so the server sees who never arrived before the timeout fires."""

    type: Literal["arrived"] = "arrived"
    run_id: str
    rank: int
    step: int
    t0: float


class Timings(Strict):
    iterations: list[float] = Field(
        max_length=MAX_ITERATIONS, description="seconds per timed iteration on this rank"
    )
    steps: list[float] = Field(
        [], max_length=MAX_RUN_STEPS, description="seconds per step of the first iteration"
    )
    starts: list[float] = Field(
        [],
        max_length=MAX_ITERATIONS,
        description="when each timed iteration began, seconds after the first "
        "began; each begins as a barrier lets the group go, so ranks' "
        "starts align",
    )


class RunFinished(Message):
    type: Literal["run_finished"] = "run_finished"
    run_id: str
    rank: int
    output: list[ChunkState] = Field(
        [],
        max_length=MAX_RANK_CHUNKS,
        description="summary of this rank's output, one entry per output chunk",
    )
    checksum: int | None = None
    verified: bool | None = None
    max_diff: Real | None = None
    tolerance: Real | None = None
    mismatches: list[tuple[int, Real, Real]] = Field(
        [],
        max_length=MAX_MISMATCHES,
        description="the first positions that differ from native: (index, got, native)",
    )
    timings: Timings
    bytes_sent: int = 0
    bytes_received: int = 0


class ErrorEvent(Message):
    type: Literal["error"] = "error"
    run_id: str | None = None
    rank: int
    field: str | None = None
    message: str


class RunCancelled(Message):
    """The group stopped between iterations (a training: between steps) because the server asked it to."""

    type: Literal["run_cancelled"] = "run_cancelled"
    run_id: str
    rank: int
    done: int = Field(
        description="iterations run (warm-up included), or a training's steps, before the group stopped"
    )
    total: int


class TrainSpec(Strict):
    """One data-parallel training run on every rank of the world. Checked by training_rules.check."""

    method: str = Field(
        "native",
        description="gradient sync: an all_reduce algorithm (native, ring, tree, ...) or parameter_server",
    )
    servers: StrictInt = Field(
        1, description="parameter_server: ranks that hold a shard of the weights (the rest compute)"
    )
    hidden: StrictInt = Field(64, description="width of the MLP's two hidden layers")
    steps: StrictInt = 100
    lr: StrictFloat = 0.5
    batch: StrictInt = Field(64, description="samples per step over all the ranks that compute")
    seed: StrictInt = 0
    chunks: StrictInt = Field(1, description="a stepwise all_reduce's chunks per block")
    sync_every: StrictInt | None = Field(
        None,
        description="keep one in k steps' gradient syncs for the "
        "stage (summary capture costs the ranks time); "
        "default: every step of a model up to 250 K "
        "parameters, one in four beyond",
    )
    timeout: StrictFloat = 30.0


MAX_REPORTED_SECONDS = 1e7  # a time a rank reports (115 days): beyond it, no chart or sum means anything
MAX_REPORTED_BYTES = 1 << 50


class SyncStep(Strict):
    step: int
    t0: float
    t1: float
    states: list[ChunkState] = Field([], max_length=MAX_RANK_CHUNKS)


class SyncCapture(Strict):
    """One training step's gradient sync on this rank, as a run's events would carry it
    (summary states): the gradient before, every schedule step, the gradient after."""

    inputs: list[ChunkState] = Field([], max_length=MAX_RANK_CHUNKS)
    steps: list[SyncStep] = Field([], max_length=MAX_RUN_STEPS)
    output: list[ChunkState] = Field([], max_length=MAX_RANK_CHUNKS)


class TrainStep(Message):
    """What one rank did in one training step. loss, accuracy: over its part of the batch
    (None on a parameter server's server, which computes none)."""

    type: Literal["train_step"] = "train_step"
    run_id: str
    rank: int
    step: int
    loss: Real | None = None  # inf or NaN when a training diverges: said, not refused
    accuracy: Real | None = Field(None, ge=0, le=1)
    samples: int = Field(0, ge=0, le=1 << 20)
    compute_s: Real = Field(ge=0, le=MAX_REPORTED_SECONDS)
    comm_s: Real = Field(ge=0, le=MAX_REPORTED_SECONDS)
    # None: the backend does not say (native)
    bytes_sent: int | None = Field(None, ge=0, le=MAX_REPORTED_BYTES)
    bytes_received: int | None = Field(None, ge=0, le=MAX_REPORTED_BYTES)
    sync: SyncCapture | None = None


class TrainFinished(Message):
    type: Literal["train_finished"] = "train_finished"
    run_id: str
    rank: int
    test_loss: Real | None = Field(None, description="on the held-out samples; None on a server")
    test_accuracy: Real | None = Field(None, ge=0, le=1)


MAX_BENCH_SIZES = 64  # sizes of one served bench: -f 2 from 1 byte to 8 GiB is 34
MAX_BENCH_ROWS = 1024  # rows of either of its tables: sizes x (dtype, op) pairs [x algorithms]
MAX_BENCH_NUMBERS = 1 << 19  # per-iteration times its table carries in all: within a worker's frame
MAX_BENCH_BYTES = 1 << 34  # one rank's largest message


class BenchSpec(Strict):
    """`ringside bench --server`: the bench's flags (bench.py, nccl-tests' meanings and defaults),
    checked by the server against its cluster (server/benches/service.py, which also reads the
    dtype's and the op's names) and sent to every rank."""

    collective: Collective = "all_reduce"
    only: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        None, max_length=64, description="algorithms to run (default: native, every stepwise one and auto)"
    )
    min_bytes: StrictInt = Field(32 << 20, ge=0, le=MAX_BENCH_BYTES, description="-b")
    max_bytes: StrictInt = Field(32 << 20, ge=0, le=MAX_BENCH_BYTES, description="-e")
    factor: StrictInt | None = Field(None, ge=1, le=1 << 20, description="-f (above 1: instead of -i)")
    step: StrictInt | None = Field(None, ge=1, le=MAX_BENCH_BYTES, description="-i (default 1 MiB)")
    iterations: StrictInt = Field(20, ge=1, le=MAX_ITERATIONS, description="-n")
    warmup: StrictInt = Field(1, ge=0, le=MAX_ITERATIONS, description="-w")
    check: StrictInt = Field(1, ge=0, le=MAX_ITERATIONS, description="-c: checked calls per result")
    op: str = Field("SUM", min_length=1, max_length=20, description="-o: a reduction, or all")
    dtype: str = Field("float32", min_length=1, max_length=40, description="-d: a dtype, or all")
    root: StrictInt = Field(0, ge=0, lt=MAX_WORLD, description="-r")
    average: Literal[0, 1, 2, 3] = Field(1, description="-a")
    blocking: Literal[0, 1, 2, 3] = Field(0, description="-z")


class BenchCell(Strict):
    """One placement's numbers (nccl-tests' out-of-place or in-place columns)."""

    time: Real
    algbw: Real | None = None
    busbw: Real | None = None
    wrong: int | None = Field(None, ge=0)


class BenchRatio(Strict):
    ratio: Real
    low: Real | None = None
    high: Real | None = None
    p: Real | None = Field(None, description="the sign-flip test's (bench/statistics.py)")
    marked: bool


class BenchResult(Strict):
    """One row of nccl-tests' table (bench/nccl_runs.py): torch's call in both placements."""

    size: int = Field(ge=0)
    count: int = Field(ge=0)
    type: str | None = Field(None, max_length=40, description="torch's name of the dtype")
    redop: Op | None = None
    root: int
    out_of_place: BenchCell
    in_place: BenchCell
    rank_times: dict[Literal["out_of_place", "in_place"], list[Real]] = Field(
        description="each rank's seconds a call, by rank"
    )


class BenchDevice(Strict):
    """Where one rank runs (nccl-tests' "Using devices")."""

    rank: int = Field(ge=0)
    host: str = Field(max_length=256)
    pid: int
    index: int = Field(description="the GPU's index; -1 on a CPU")
    bus: str = Field(max_length=40)
    name: str = Field(max_length=200)


class BenchSetting(Strict):
    backend: str = Field(max_length=40)
    torch: str = Field(max_length=80)
    devices: list[BenchDevice] = Field(max_length=MAX_WORLD)


class BenchRow(Strict):
    """One row of Ringside's table (bench/compare.py): an algorithm, every rank's numbers merged."""

    size: int = Field(ge=0)
    count: int = Field(ge=0)
    block: int = Field(ge=0)
    type: DType | None = None
    redop: Op | None = None
    root: int
    algorithm: str = Field(max_length=200)
    out_of_place: BenchCell | None = None
    in_place: BenchCell | None = None
    time: Real
    time_median: Real
    time_min: Real
    iterations: list[Real] = Field(max_length=MAX_ITERATIONS)
    rank_times: list[Real] = Field(max_length=MAX_WORLD, description="each rank's mean, by rank")
    vs_native: BenchRatio | None = None
    ranks: int = Field(ge=1, le=MAX_WORLD)
    backend: str = Field(max_length=40)
    hosts: dict[Annotated[str, Field(max_length=256)], int] = Field(max_length=MAX_WORLD)
    ran: str | None = Field(None, max_length=220)
    why: str | None = Field(None, max_length=2000)


class BenchFinished(Message):
    """A rank's end of a served bench: rank 0 carries the tables (every rank's numbers merged, as
    the bench gathers them on every rank); the others only say they are done."""

    type: Literal["bench_finished"] = "bench_finished"
    run_id: str
    rank: int
    setting: BenchSetting | None = None
    results: list[BenchResult] = Field([], max_length=MAX_BENCH_ROWS)
    rows: list[BenchRow] = Field([], max_length=MAX_BENCH_ROWS)


Event = Annotated[
    Hello
    | Heartbeat
    | RunStarted
    | StepEvent
    | Arrived
    | RunFinished
    | RunCancelled
    | ErrorEvent
    | TrainStep
    | TrainFinished
    | BenchFinished,
    Field(discriminator="type"),
]
EVENT = TypeAdapter(Event)


class RunCommand(Message):
    type: Literal["run"] = "run"
    run_id: str
    spec: RunSpec


class Cancel(Message):
    """Stop this run at its next check between iterations (every rank stops at the same one)."""

    type: Literal["cancel"] = "cancel"
    run_id: str


class Shutdown(Message):
    type: Literal["shutdown"] = "shutdown"


class Resize(Message):
    """Take this place in a world of `world_size` ranks meeting on loopback at `master_port`: leave
    the group, build the new one with the others, and say hello again (a rank numbered beyond the
    new world exits). Sent only to the ranks `ringside up` started (server/cluster/resize.py)."""

    type: Literal["resize"] = "resize"
    world_size: int = Field(ge=1, le=MAX_WORLD)
    master_port: int = Field(ge=1, lt=1 << 16)
    local_rank: int = Field(ge=0, lt=MAX_WORLD)
    local_world_size: int = Field(ge=1, le=MAX_WORLD)
    node: str | None = Field(None, max_length=80, description="its node's name where `up --nodes` names one")


class TrainCommand(Message):
    type: Literal["train"] = "train"
    run_id: str
    spec: TrainSpec


class BenchCommand(Message):
    """Run the bench's sweep on every rank: the algorithms and sizes the server planned from `spec`."""

    type: Literal["bench"] = "bench"
    run_id: str
    spec: BenchSpec
    algorithms: list[Annotated[str, Field(max_length=200)]] = Field(min_length=1, max_length=64)
    sizes: list[Annotated[int, Field(ge=0, le=MAX_BENCH_BYTES)]] = Field(
        min_length=1, max_length=MAX_BENCH_SIZES
    )


Command = Annotated[
    RunCommand | TrainCommand | BenchCommand | Cancel | Shutdown | Resize, Field(discriminator="type")
]
COMMAND = TypeAdapter(Command)


def socket_url(url: str, path: str) -> str:
    """A server's address as given (http://host:port[/], or host:port) -> the websocket at `path`."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + path, "", ""))
