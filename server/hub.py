"""The hub: the cluster, the run queue and its dispatcher, the store and the viewers.

Runs execute one at a time, in the order accepted, on every rank (ranks
outside a run's group still take the command: torch makes every rank build
every subgroup). A run ends when every rank of its group has finished, when
one reports an error, when a rank of the world is lost, or at its deadline.
Everything happens on the server's event loop, so no locks are needed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

from starlette.websockets import WebSocket

from ringside.worker_agent.catalog import SpecError, validate
from ringside.worker_agent.protocol import (Cancel, ErrorEvent, Heartbeat, Hello, RunCancelled, RunCommand, RunFinished, RunSpec,
                                   RunStarted, StepEvent)

from . import runs as R
from .config import Settings
from .fanout import Fanout
from .registry import Cluster
from .store import Store

TICK_S = 1.0


class Hub:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cluster = Cluster(settings.lost_after)
        self.store = Store(settings.db)
        self.fanout = Fanout(settings.viewer_queue)
        self.workers: dict[int, WebSocket] = {}
        self.queue: deque[dict] = deque()
        self.current: dict | None = None
        self.changed = asyncio.Event()  # something the dispatcher may be waiting for happened
        self.next_id = self.store.last_seq() + 1
        self.tasks: list[asyncio.Task] = []
        self.telling: set[asyncio.Task] = set()
        for run in self.store.unfinished():  # what a previous server left running or queued
            R.conclude(run, "interrupted", "the server stopped before this run finished")
            self.store.save(run)

    # --- lifecycle -----------------------------------------------------------

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._dispatch()), asyncio.create_task(self._tick())]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for run in ([self.current] if self.current else []) + list(self.queue):
            R.conclude(run, "interrupted", "the server stopped before this run finished")
            self.store.save(run)
        self.store.close()

    # --- runs ----------------------------------------------------------------

    def submit(self, spec: RunSpec) -> dict:
        """Queue a run, or raise SpecError naming what is wrong (and change nothing)."""
        if not self.cluster.live():
            raise SpecError("group", "no ranks are connected")
        missing = self.cluster.missing()
        if missing:
            raise SpecError("group", f"ranks {missing} of the world are not connected; every rank takes part in every run")
        validate(spec, self.cluster.world_size, self.cluster.backend)
        run = R.new_run(f"r-{self.next_id:06d}", spec, self.cluster.backend, self.cluster.world_size)
        self.next_id += 1
        self.queue.append(run)
        self.store.save(run)
        self._announce(run)
        self.changed.set()
        return run

    def find(self, run_id: str) -> dict | None:
        if self.current is not None and self.current["id"] == run_id:
            return self.current
        return next((r for r in self.queue if r["id"] == run_id), None) or self.store.get(run_id)

    def cancel(self, run_id: str) -> dict | None:
        """Queued: cancelled now. Running: the ranks are told, stop together at their next
        check between iterations (runner.py), and the run is marked cancelled when they have
        (or have finished: a single iteration is never cut short)."""
        run = self.find(run_id)
        if run is None or run["state"] in R.ENDED:
            return run
        if run["state"] == "queued":
            self.queue.remove(run)
            R.conclude(run, "cancelled")
            self.store.save(run)
            self._announce(run)
        elif not run["cancel_requested"]:
            run["cancel_requested"] = True
            task = asyncio.create_task(self._tell_workers(Cancel(run_id=run_id).model_dump_json()))
            self.telling.add(task)  # held until done: the loop keeps only weak references
            task.add_done_callback(self.telling.discard)
        return run

    async def _tell_workers(self, text: str) -> None:
        for ws in list(self.workers.values()):
            try:
                await ws.send_text(text)
            except (RuntimeError, OSError):
                pass  # its loss is noticed by _await_ranks

    def _announce(self, run: dict) -> None:
        self.fanout.publish({"type": "run", "run": run})

    async def _dispatch(self) -> None:
        while True:
            while not self.queue or self.cluster.missing() or not self.cluster.live():
                self.changed.clear()
                await self.changed.wait()
            await self._execute(self.queue.popleft())

    async def _execute(self, run: dict) -> None:
        spec = RunSpec(**run["spec"])
        run["state"], run["started_at"] = "running", time.time()
        self.current = run
        self.store.save(run)
        self._announce(run)
        await self._tell_workers(RunCommand(run_id=run["id"], spec=spec).model_dump_json())
        state, error = await self._await_ranks(run, spec)
        R.conclude(run, state, error)
        self.current = None
        self.store.save(run)
        self._announce(run)

    async def _await_ranks(self, run: dict, spec: RunSpec) -> tuple[str, str | None]:
        deadline = time.monotonic() + spec.timeout * (spec.warmup + spec.iterations + 2)
        while True:
            if run["error"] is not None:
                return "failed", None
            if not R.unfinished(run):
                return "done", None
            lost = self.cluster.missing()
            if lost:
                return "failed", f"ranks {lost} were lost during the run; ranks {R.unfinished(run)} did not finish"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "failed", f"ranks {R.unfinished(run)} did not finish within {spec.timeout * (spec.warmup + spec.iterations + 2):g} s"
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=min(remaining, TICK_S))
            except asyncio.TimeoutError:
                pass

    # --- workers -------------------------------------------------------------

    def worker_joined(self, hello: Hello, ws: WebSocket) -> None:
        self.cluster.join(hello)
        self.workers[hello.rank] = ws
        self.changed.set()

    def worker_left(self, rank: int, ws: WebSocket) -> None:
        if self.workers.get(rank) is ws:
            del self.workers[rank]
            self.cluster.leave(rank)
            self.changed.set()

    def on_event(self, event) -> None:
        """One event from a worker; everything but a heartbeat belongs to the current run."""
        self.cluster.seen(event.rank)
        if isinstance(event, Heartbeat):
            self.cluster.beat(event)
            return
        run = self.current
        if run is None or getattr(event, "run_id", None) != run["id"]:
            return  # late news of a run that has ended: nothing to update
        if isinstance(event, RunStarted):
            R.on_started(run, event)
        elif isinstance(event, StepEvent):
            self.fanout.publish(R.on_step(run, event))
        elif isinstance(event, RunFinished):
            R.on_finished(run, event)
        elif isinstance(event, RunCancelled):
            R.on_cancelled(run, event)
        elif isinstance(event, ErrorEvent):
            R.on_error(run, event)
        self.changed.set()

    async def _tick(self) -> None:
        """Once a second: the cluster to every viewer, and a nudge to notice lost ranks."""
        while True:
            await asyncio.sleep(TICK_S)
            if self.cluster.ranks:
                self.fanout.publish({"type": "cluster", **self.cluster.to_json()})
            self.changed.set()

    def snapshot(self, role: str) -> dict:
        return {
            "type": "snapshot",
            "role": role,
            "cluster": self.cluster.to_json(),
            "queue": [R.summary(r) for r in self.queue],
            "current": self.current,
        }
