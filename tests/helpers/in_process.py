"""Ranks in the test's own process, for the server's services tested without a server: their
hellos, what they are told (a recorded `tell`), and the events they send, built from the protocol's
own messages as a rank builds them. A fake of the ranks, never of what the test is about."""

from __future__ import annotations

import asyncio

from ringside.worker_agent.core.protocol import (
    COMMAND,
    ErrorEvent,
    Hello,
    RunCancelled,
    RunCommand,
    RunFinished,
    RunStarted,
    StepEvent,
    Timings,
)

WITHIN_S = 10.0  # a command expected from the server comes at once; this only ends a test that broke


def hello(rank: int, world_size: int, **fields) -> Hello:
    """A rank's hello, as `ringside worker` says it (fields: cores, world_key, pid, ...)."""
    said = dict(host="in-process", pid=100_000 + rank, backend="gloo", device="cpu", torch_version="t")
    return Hello(rank=rank, world_size=world_size, local_rank=rank, **{**said, **fields})


class Told:
    """What the ranks are told, parsed, in order: the dispatcher's `tell` (or a rank socket's
    send_text). `next()` waits for the next command not yet read."""

    def __init__(self):
        self.said: list = []
        self.unread: asyncio.Queue = asyncio.Queue()

    async def __call__(self, text: str) -> None:
        command = COMMAND.validate_json(text)
        self.said.append(command)
        self.unread.put_nowait(command)

    async def send_text(self, text: str) -> None:  # as a rank's websocket (cluster/workers.py)
        await self(text)

    async def next(self):
        return await asyncio.wait_for(self.unread.get(), WITHIN_S)

    def left(self) -> list:
        """The commands told and not yet read."""
        found = []
        while not self.unread.empty():
            found.append(self.unread.get_nowait())
        return found


def started(command: RunCommand, rank: int, **fields) -> RunStarted:
    return RunStarted(run_id=command.run_id, rank=rank, group_rank=rank, spec=command.spec, **fields)


def step(command: RunCommand, rank: int, number: int, **fields) -> StepEvent:
    """Step `number` of the run on `rank`, from `number` s to half a second later."""
    return StepEvent(run_id=command.run_id, rank=rank, step=number, t0=number, t1=number + 0.5, **fields)


def finished(command: RunCommand, rank: int, seconds: float = 0.001, **fields) -> RunFinished:
    """The rank's result, verified, each of the run's iterations taking `seconds` (unless `fields`
    say otherwise)."""
    said = dict(verified=True, timings=Timings(iterations=[seconds] * command.spec.iterations))
    return RunFinished(run_id=command.run_id, rank=rank, **{**said, **fields})


def error(run_id: str | None, rank: int, message: str, field: str | None = None) -> ErrorEvent:
    return ErrorEvent(run_id=run_id, rank=rank, field=field, message=message)


def cancelled(run_id: str, rank: int, done: int = 7, total: int = 100) -> RunCancelled:
    return RunCancelled(run_id=run_id, rank=rank, done=done, total=total)


class Joined:
    """`n` ranks joined to an app built in-process (app.create_app) as its worker socket joins them
    (cluster/socket.py): each one's socket a Told, which hears what the server tells the ranks, and
    their events handed on as that socket hands them."""

    def __init__(self, state, n: int, **hello_fields):
        self.state = state  # the app's: its cluster, workers and dispatcher
        self.sockets = [Told() for _ in range(n)]
        for r, ws in enumerate(self.sockets):
            state.workers.join(hello(r, n, **hello_fields), ws)
        state.dispatcher.nudge()

    def feed(self, *events) -> None:
        for event in events:
            self.state.cluster.seen(event.rank)
            self.state.dispatcher.on_event(event)

    async def command(self):
        """The next command, which every rank is told alike."""
        said = [await ws.next() for ws in self.sockets]
        assert all(c == said[0] for c in said), said
        return said[0]

    async def run_through(self, steps: int = 0, **finish) -> RunCommand:
        """The next run told: every rank starts it, reports `steps` steps, finishes it."""
        command = await self.command()
        assert isinstance(command, RunCommand), command
        for r in range(len(self.sockets)):
            self.feed(started(command, r), *(step(command, r, i) for i in range(steps)))
            self.feed(finished(command, r, **finish))
        return command
