"""A worker in server mode: join a Ringside server over a websocket, say hello,
beat every second, run what it is sent (in order) and stream every event.

Runs happen on this (the main) thread; a sender thread drains the outgoing
queue, so the step loop never waits on the network, and a reader thread takes
commands in, so a cancel reaches the runner while it runs. When the server goes
away the worker reconnects with backoff. When the process group breaks (a
hang a run asked for, a peer that timed out) the rank builds it again in process with
every other rank (process_group.World.regroup), keeps its connection and is back for
the next command; the ranks that did not fail hear of it from the store while idle, or
before their next command. Only a group that cannot be built again (a peer died) makes
it exit non-zero (EXIT_BROKEN_GROUP): `ringside up`, or torchrun with restarts, then
restarts the whole group.

`ringside up` resizes its world in place (a `resize` command between runs): a rank of the new
world leaves its connection and its group, builds the new world's group on the order's port, and
says hello again with the new world size; a rank beyond the new world exits.
"""

from __future__ import annotations

import queue
import sys
import threading
import time

import psutil
import torch
from pydantic import ValidationError
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from ..clients.trust import context_for
from ..core.protocol import (
    COMMAND,
    BenchCommand,
    Cancel,
    ErrorEvent,
    Heartbeat,
    Message,
    Resize,
    RunCommand,
    Shutdown,
    TrainCommand,
    socket_url,
)
from ..core.validation import SpecError
from .launch import EXIT_BROKEN_GROUP
from .process_group import World
from .runner import RunFailed, Runner, failure_reason

HEARTBEAT_S = 1.0
REGROUP_POLL_S = 0.2  # how often an idle rank looks whether another rank broke the group
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 5.0)


def worker_url(url: str) -> str:
    """http://host:port[/] -> ws://host:port/ws/worker (https -> wss)."""
    return socket_url(url, "/ws/worker")


class Link:
    """The outgoing side: a queue that the step loop fills and a thread empties."""

    def __init__(self, ws: ClientConnection):
        self.ws = ws
        self.out: queue.SimpleQueue[Message | None] = queue.SimpleQueue()
        self.alive = True
        self.sender = threading.Thread(target=self._send_all, daemon=True)
        self.sender.start()

    def emit(self, message: Message) -> None:
        if self.alive:
            self.out.put(message)

    def _send_all(self) -> None:
        while (message := self.out.get()) is not None:
            try:
                self.ws.send(message.model_dump_json())
            except ConnectionClosed:
                self.alive = False
                return

    def close(self) -> None:
        self.out.put(None)
        self.sender.join(timeout=5)
        self.alive = False


class Heart(threading.Thread):
    def __init__(self, world: World, link: Link, busy: threading.Event):
        super().__init__(daemon=True)
        self.world, self.link, self.busy = world, link, busy
        self.stopped = threading.Event()
        self.process = psutil.Process()

    def run(self) -> None:
        self.process.cpu_percent()  # the first reading is always 0
        while not self.stopped.wait(HEARTBEAT_S):
            gpu = torch.cuda.memory_allocated(self.world.device) if self.world.device.type == "cuda" else None
            self.link.emit(
                Heartbeat(
                    rank=self.world.rank,
                    status="busy" if self.busy.is_set() else "idle",
                    cpu_percent=self.process.cpu_percent(),
                    rss_bytes=self.process.memory_info().rss,
                    gpu_memory_bytes=gpu,
                )
            )


def serve(url: str, token: str | None, world: World) -> int:
    """Serve runs until the server says shutdown (0) or the process group breaks (non-zero)."""
    target = worker_url(url)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    attempt = 0
    while True:
        try:
            with connect(
                target, additional_headers=headers, max_size=None, open_timeout=5, ssl=context_for(target)
            ) as ws:
                attempt = 0
                outcome = _session(ws, world)
            if isinstance(outcome, Resize):  # its connection closed: hello again, at once, in the new world
                if not _resized(world, outcome):
                    return EXIT_BROKEN_GROUP
                continue
            if outcome is not None:
                return outcome
        except InvalidStatus as e:
            if e.response.status_code in (401, 403):
                print(
                    f"rank {world.rank}: the server refused the worker token ({e.response.status_code})",
                    file=sys.stderr,
                )
                return 2
        except (OSError, ConnectionClosed, TimeoutError):
            pass
        time.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
        attempt += 1


# what _read hands _session: a command to carry out, or None when the connection dropped
Queued = RunCommand | TrainCommand | BenchCommand | Shutdown | Resize | None


def _read(ws: ClientConnection, runner: Runner, link: Link, inbox: queue.SimpleQueue[Queued]) -> None:
    """Commands into `inbox` (None when the connection drops); a cancel goes straight to the runner."""
    while True:
        try:
            frame = ws.recv()
        except ConnectionClosed:
            inbox.put(None)
            return
        try:
            command = COMMAND.validate_json(frame)
        except ValidationError as e:
            link.emit(
                ErrorEvent(rank=runner.world.rank, message=f"unreadable command: {e.errors()[0]['msg']}")
            )
            continue
        if isinstance(command, Cancel):
            runner.cancel(command.run_id)
        else:
            inbox.put(command)


def _session(ws: ClientConnection, world: World) -> int | Resize | None:
    """One connection's life: None when it dropped (reconnect), a resize to make once it is closed,
    else the exit code."""
    link, busy = Link(ws), threading.Event()
    link.emit(world.hello())
    heart = Heart(world, link, busy)
    heart.start()
    runner = Runner(world, link.emit, cancellable=True)
    inbox: queue.SimpleQueue[Queued] = queue.SimpleQueue()
    threading.Thread(target=_read, args=(ws, runner, link, inbox), daemon=True).start()
    try:
        while True:
            try:
                command, idle = inbox.get(timeout=REGROUP_POLL_S), False
            except queue.Empty:  # no command came within REGROUP_POLL_S
                command, idle = None, True
            # another rank broke the group (this one may have had no part in the run): join it anew
            if world.regroup_asked() and not _regroup(world, busy):
                return EXIT_BROKEN_GROUP
            if idle:
                continue
            if command is None:
                return None
            if isinstance(command, Shutdown):
                return 0
            if isinstance(command, Resize):
                if not world.loopback:  # torchrun's ranks: their agent's store, their launcher's world
                    link.emit(ErrorEvent(rank=world.rank, message="this rank's world is not ringside up's"))
                    continue
                return 0 if world.rank >= command.world_size else command
            busy.set()
            try:
                _run(runner, command, link, world)
            except RunFailed:  # the group is unusable: every rank builds it again
                if not _regroup(world, busy):
                    return EXIT_BROKEN_GROUP
            finally:
                busy.clear()
    finally:
        heart.stopped.set()
        link.close()


def _regroup(world: World, busy: threading.Event) -> bool:
    """Build the group again with the others (busy meanwhile); False if it cannot be: a peer died
    or never came, so the launcher must restart the ranks."""
    busy.set()
    try:
        world.regroup()
        return True
    except Exception as e:  # whatever torch raised (a timeout, a refused connection): say it, then exit
        print(f"rank {world.rank}: the process group could not be built again: {e}", file=sys.stderr)
        return False
    finally:
        busy.clear()


def _resized(world: World, order: Resize) -> bool:
    """Build the new world's group (World.resize); False if it cannot be: a peer died or never
    came, so `ringside up` restarts the ranks, at the new size."""
    try:
        world.resize(order)
        return True
    except Exception as e:  # whatever torch raised: say it, then exit
        print(f"rank {world.rank}: the resized world's group could not be built: {e}", file=sys.stderr)
        return False


def _run(runner: Runner, command: RunCommand | TrainCommand | BenchCommand, link: Link, world: World) -> None:
    def stop() -> bool:  # whether the server told this rank to cancel this command
        return runner.cancelled == command.run_id

    try:
        if isinstance(command, TrainCommand):
            _train(command, link, world, stop)
        elif isinstance(command, BenchCommand):
            from ringside.bench.served import bench_and_report  # loaded by the first bench only

            bench_and_report(world, command, link.emit, stop)
        else:
            runner.run(command.run_id, command.spec)
    except SpecError as e:  # every rank refuses alike, before talking: the group is fine
        link.emit(ErrorEvent(run_id=command.run_id, rank=world.rank, field=e.field, message=e.message))


def _train(command: TrainCommand, link: Link, world: World, stop) -> None:
    from ..training.trainer import train_and_report  # the model's code: loaded by the first training only

    try:
        train_and_report(world, command.run_id, command.spec, link.emit, stop)
    except SpecError:
        raise
    except Exception as e:  # a peer died or timed out mid-step: report it; the group is broken
        message = f"rank {world.rank}: training failed: {failure_reason(e, command.spec.timeout)}"
        world.broken()  # before the report, as runner.py says
        link.emit(ErrorEvent(run_id=command.run_id, rank=world.rank, message=message))
        raise RunFailed(message) from e
