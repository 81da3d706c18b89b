"""The store's writes, off the event loop: one thread with a connection of its own takes
them in the order given and lands each batch in one transaction. A file that another
process holds locked makes a batch wait and try again, with a growing pause, until it
lands: the loop never waits on SQLite's lock, and nothing given to the writer is lost
while the server runs (a server stopped meanwhile waits a while for it: close). A write is SQL
and its parameters, or a function of the writer's connection (a prune's batch, which reads
what it deletes) run inside the batch's transaction."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

BUSY_S = 0.25  # how long one attempt waits for SQLite's lock before the writer pauses and tries again
MAX_PAUSE_S = 2.0
log = logging.getLogger("ringside.server")

# SQL and its parameters, or a function run on the writer's connection (again if its batch is tried again)
Write = tuple[str, tuple] | Callable[[sqlite3.Connection], None]


class Latest:
    """What was last given to the writer for each key and has not landed yet, for reads on the
    loop to see before the file does (thread-safe: the writer says when a version landed)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.values: dict[str, object] = {}

    def put(self, key: str, value: object) -> Callable[[], None]:
        """Keep `value` for `key`; the callable to give the writer, which forgets it once it has landed."""
        with self.lock:
            self.values[key] = value

        def landed() -> None:
            with self.lock:
                if self.values.get(key) is value:  # a newer version waits still
                    del self.values[key]

        return landed

    def get(self, key: str):
        with self.lock:
            return self.values.get(key)

    def items(self) -> list[tuple[str, object]]:
        with self.lock:
            return list(self.values.items())


async def landed_within(
    save: Callable[[Callable[[], None]], None], within: float, late: Callable[[], None]
) -> bool:
    """Call `save(landed)` and wait until the writer calls `landed`: whether it did within `within`
    seconds. If it lands later, `late` is called on the loop instead."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def landed() -> None:  # in the writer's thread
        loop.call_soon_threadsafe(lambda: done.set_result(None) if not done.done() else late())

    save(landed)
    try:
        await asyncio.wait_for(asyncio.shield(done), within)
        return True
    except TimeoutError:
        done.cancel()
        return False


class Writer:
    def __init__(self, path: Path, timed: Callable[[float], None] | None = None):
        """`timed`: told, in the writer's thread, the seconds each put took from put to in the file."""
        self.path, self.timed = path, timed
        # (writes, done, when given)
        self.writes: deque[tuple[list[Write], Callable[[], None] | None, float]] = deque()
        self.changed = threading.Condition()
        self.busy = False  # a batch is being written
        self.stuck_since: float | None = None  # when the batch now being tried first found the file locked
        self.closing = False
        self.thread = threading.Thread(target=self._work, name="ringside-store-writer", daemon=True)
        self.thread.start()

    def put(self, writes: list[Write], done: Callable[[], None] | None = None) -> None:
        """Land these writes together, after every write put before them; then call `done` (in the
        writer's thread)."""
        with self.changed:
            self.writes.append((writes, done, time.monotonic()))
            self.changed.notify_all()

    def waiting(self) -> int:
        """Writes given and not yet landed."""
        with self.changed:
            return len(self.writes) + self.busy

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every write given so far has landed; whether it did within `timeout`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.changed:
            while self.writes or self.busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self.changed.wait(left)
        return True

    def close(self, timeout: float) -> None:
        if not self.flush(timeout):
            log.error(
                "the store stayed locked: %d writes did not land before the server stopped", self.waiting()
            )
        with self.changed:
            self.closing = True
            self.changed.notify_all()
        self.thread.join(timeout=BUSY_S + 1)

    def _work(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_S)
        try:
            while (batch := self._next()) is not None:
                if self._land(db, [w for writes, _, _ in batch for w in writes]):
                    landed = time.monotonic()
                    for _, done, given in batch:
                        if self.timed is not None:
                            self.timed(landed - given)
                        if done is not None:
                            done()
                with self.changed:
                    self.busy = False
                    self.changed.notify_all()
        finally:
            db.close()

    def _next(self) -> list | None:
        with self.changed:
            while not self.writes and not self.closing:
                self.changed.wait()
            if not self.writes:
                return None
            batch, self.busy = list(self.writes), True
            self.writes.clear()
            return batch

    def _land(self, db: sqlite3.Connection, writes: list[Write]) -> bool:
        """Whether the writes landed: they do, unless the server stops while the file is locked
        (or a write is wrong, a bug: said in the log)."""
        pause = BUSY_S
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                for write in writes:
                    if callable(write):
                        write(db)
                    else:
                        db.execute(*write)
                db.execute("COMMIT")
                if self.stuck_since is not None:
                    stuck = time.monotonic() - self.stuck_since
                    log.warning("the store is writable again after %.1f s", stuck)
                self.stuck_since = None
                return True
            except sqlite3.OperationalError as e:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if "locked" not in str(e) and "busy" not in str(e):
                    log.exception("the store refused a write; %d writes are dropped", len(writes))
                    return False
                if self.stuck_since is None:  # another process holds the file
                    self.stuck_since = time.monotonic()
                    log.warning("the store cannot be written (%s); trying again until it can", e)
                if self.closing:
                    return False  # close() has waited its while: what could not land is said there
                time.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE_S)
