"""Retention: `--keep-runs N` keeps the newest N runs, `--keep-days D` none older than D days;
given both, a run goes when either says so. Never pruned: a run not yet ended, the newest run
(its number continues the ids), and the runs `kept` names (a poll held in memory asks about it,
the newest poll stored does, the presenter's page shows it). A run goes with what depends on it:
its row of figures and the polls about it. Trainings and watched jobs are kept whole (no
training refers to a stored run: its steps' syncs are rows of its own).

A prune runs at start and every night at PRUNE_AT_HOUR (local time). It never runs on the event
loop: each batch of BATCH runs is a write the store's writer thread runs in one transaction (it
reads what it deletes there), and the next batch is given only once one has landed, so a
vote's or a run's write waits behind one batch at most. The file does not shrink: SQLite reuses
the pages freed, so a store kept within its bounds stops growing."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ringside.server.db.writer import Writer, landed_within
from ringside.server.dispatch.job import ENDED_STATES
from ringside.server.runs.store import RunStore

BATCH = 500  # runs looked at in one transaction of the writer
PRUNE_AT_HOUR = 3  # the nightly prune, local time
BATCH_WITHIN_S = 600.0  # a batch not landed by then (the file held locked) ends the prune until the next
DAY_S = 86_400.0
ENDED = frozenset(s.value for s in ENDED_STATES)
log = logging.getLogger("ringside.server")


@dataclass(frozen=True)
class Keep:
    runs: int | None = None  # the newest this many
    days: float | None = None  # none created longer ago than this

    def __post_init__(self) -> None:
        if self.runs is not None and self.runs < 1:
            raise ValueError(f"keep-runs must be at least 1, not {self.runs}")
        if self.days is not None and not self.days > 0:
            raise ValueError(f"keep-days must be more than 0, not {self.days}")

    @property
    def bounded(self) -> bool:
        return self.runs is not None or self.days is not None

    def __str__(self) -> str:
        if self.days is None:
            return f"the newest {self.runs}"
        if self.runs is None:
            return f"those of the last {self.days:g} days"
        return f"the newest {self.runs}, none older than {self.days:g} days"


def cutoff(db: sqlite3.Connection, keep: Keep, now: float) -> int:
    """The seq below which runs go: below the Nth newest, below the first created within D days,
    the higher of the two; never the newest run's."""
    newest = db.execute("SELECT MAX(seq) FROM runs").fetchone()[0]
    if newest is None:
        return 0
    upto = 0
    if keep.runs is not None:
        row = db.execute(
            "SELECT seq FROM runs ORDER BY seq DESC LIMIT 1 OFFSET ?", (keep.runs - 1,)
        ).fetchone()
        upto = row[0] if row else 0
    if keep.days is not None:
        # runs are numbered as they are made: the walk from the oldest stops at the first young one
        row = db.execute(
            "SELECT seq FROM runs WHERE created_at >= ? ORDER BY seq LIMIT 1", (now - keep.days * DAY_S,)
        ).fetchone()
        upto = max(upto, row[0] if row else newest)
    return min(upto, newest)


@dataclass
class Batch:
    """A write for the store's writer: of the next BATCH runs after seq `after` and below `upto`
    (found in the first batch when None), those ended and not `kept` are deleted, with their
    figures and polls. What it did is in `gone` (each run's state and collective), `last` (the
    last seq looked at) and `finished` (no run is left to look at)."""

    keep: Keep
    now: float
    upto: int | None
    after: int
    kept: frozenset[str]
    gone: list[tuple[str, str]] = field(default_factory=list)
    last: int = 0
    finished: bool = False

    def __call__(self, db: sqlite3.Connection) -> None:
        upto = self.upto if self.upto is not None else cutoff(db, self.keep, self.now)
        rows = db.execute(
            "SELECT seq, id, state, collective FROM runs WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?",
            (self.after, upto, BATCH),
        ).fetchall()
        going = [r for r in rows if r[2] in ENDED and r[1] not in self.kept]
        if going:
            seqs, ids, marks = [r[0] for r in going], [r[1] for r in going], ",".join("?" * len(going))
            db.execute(f"DELETE FROM figures WHERE seq IN ({marks})", seqs)
            db.execute(f"DELETE FROM polls WHERE run_id IN ({marks})", ids)
            db.execute(f"DELETE FROM runs WHERE seq IN ({marks})", seqs)
        # assigned last: a batch tried again (the file was locked) starts afresh
        self.upto, self.last, self.finished = upto, rows[-1][0] if rows else upto, len(rows) < BATCH
        self.gone = [(r[2], r[3]) for r in going]


def seconds_until(hour: int, now: datetime) -> float:
    """Seconds from `now` (local, naive) to the next `hour` o'clock."""
    at = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    if at <= now:
        at += timedelta(days=1)
    return (at - now).total_seconds()


class Pruner:
    """Prunes the runs past `keep`, at start and nightly. `kept`: the ids of runs not to prune now
    (asked before each batch, on the loop)."""

    def __init__(self, keep: Keep, writer: Writer, runs: RunStore, kept: Callable[[], set[str]]):
        self.keep, self.writer, self.runs, self.kept = keep, writer, runs, kept
        self.pruned = 0  # runs deleted since the server started (/metrics)

    async def run(self) -> None:
        """Until cancelled: a prune now, then one each night."""
        while True:
            await self.prune()
            await asyncio.sleep(seconds_until(PRUNE_AT_HOUR, datetime.now()))

    async def prune(self) -> int:
        """Prune in batches; how many runs went."""
        if not self.keep.bounded:
            return 0
        now, upto, after, gone = time.time(), None, 0, 0
        while True:
            batch = Batch(self.keep, now, upto, after, frozenset(self.kept()))
            if not await self._landed(batch):
                log.warning("retention: the store stayed locked; pruning goes on tonight")
                return gone
            gone += self._forget(batch)
            if batch.finished:
                break
            upto, after = batch.upto, batch.last
        if gone:
            log.warning("retention: pruned %d runs (kept %s)", gone, self.keep)
        return gone

    async def _landed(self, batch: Batch) -> bool:
        """Give the writer `batch`; whether it landed within BATCH_WITHIN_S (if later, it is counted then)."""

        def save(landed: Callable[[], None]) -> None:
            self.writer.put([batch], landed)

        def late() -> None:
            self._forget(batch)

        return await landed_within(save, BATCH_WITHIN_S, late)

    def _forget(self, batch: Batch) -> int:
        self.runs.forget(batch.gone)
        self.pruned += len(batch.gone)
        return len(batch.gone)
