"""Watched jobs, kept in the runs' SQLite file beside them: a job's record (record.WatchedJob:
ranks, groups, totals, links, events) written as it changes, and each collective in a
row of its own once complete. Only the last KEPT collectives of a job are kept whole
(older rows are deleted as new ones land; the totals count every one), so a job of a
million collectives costs the file what one of KEPT does, and a page of a job's
collectives is one walk down its primary key. Read on the event loop, written by the
store's writer (writer.py), like store.py; until a write lands, reads see it from memory."""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable

from ringside.server.db.database import Database
from ringside.server.db.writer import Latest, Write
from ringside.server.watched.record import WatchedCollective, WatchedJob, WatchedState, WatchedSummary

KEPT = 20_000
KEPT_BYTES = 64 << 20  # of one job's collectives: past it the oldest go, whatever their number


class Kept:
    """The sizes of the collectives a job keeps, oldest first, and their sum."""

    def __init__(self) -> None:
        self.sizes: deque[tuple[int, int]] = deque()  # (index, bytes)
        self.bytes = 0

    def add(self, added: list[tuple[int, int]]) -> tuple[int, int]:
        """Count `added` in; (how many of the oldest go to keep KEPT_BYTES, the newest index gone or -1)."""
        for one in added:
            self.sizes.append(one)
            self.bytes += one[1]
        gone, oldest = 0, -1
        while self.bytes > KEPT_BYTES and len(self.sizes) > 1:
            oldest, size = self.sizes.popleft()
            self.bytes -= size
            gone += 1
        while len(self.sizes) > KEPT:
            self.bytes -= self.sizes.popleft()[1]
        return gone, oldest


class Unlanded:
    """The collectives given to the writer and not yet in the file, by job and index, as given last
    (thread-safe: the writer says when a batch landed). A job that ends leaves memory at once, and
    its last collectives are read from here until the file has them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.jobs: dict[str, dict[int, str]] = {}  # job id -> index -> body

    def put(self, job_id: str, bodies: list[tuple[int, str]]) -> Callable[[], None]:
        """Keep `bodies`; the callable to give the writer, which forgets them once they have landed."""
        with self.lock:
            self.jobs.setdefault(job_id, {}).update(bodies)

        def landed() -> None:
            with self.lock:
                held = self.jobs.get(job_id, {})
                for index, body in bodies:
                    if held.get(index) is body:  # not one given again since, which waits still
                        del held[index]
                if not held:
                    self.jobs.pop(job_id, None)

        return landed

    def of(self, job_id: str) -> dict[int, str]:
        with self.lock:
            return dict(self.jobs.get(job_id, {}))


class WatchStore:
    def __init__(self, database: Database):
        self.db, self.writer = database.db, database.writer  # its tables are made with the file (schema.py)
        self.latest = Latest()  # job id -> (body, summary) not yet landed
        self.unlanded = Unlanded()  # collectives not yet landed
        self.total = self.db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0]  # kept, not counted per read
        self.kept: dict[str, Kept] = {}  # by job id: the sizes of the collectives it keeps

    def save(self, job: WatchedJob, new: bool = False) -> None:
        self.total += new
        body, summary = job.model_dump_json(), job.summary().model_dump_json()
        forget = self.latest.put(job.id, (body, summary))
        self.writer.put(
            [
                (
                    "INSERT INTO jobs (id, key, state, summary, body) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE "
                    "SET state = excluded.state, summary = excluded.summary, body = excluded.body",
                    (job.id, job.key, job.state.value, summary, body),
                )
            ],
            forget,
        )

    def add(self, job_id: str, collectives: list[WatchedCollective]) -> int:
        """Complete collectives (again, where one changed), and the oldest gone beyond KEPT, or beyond
        KEPT_BYTES of them (a collective of a large group names every rank). How many went for their
        bytes (since the server started: a resumed job's older rows were bounded by the last)."""
        if not collectives:
            return 0
        bodies = [(c.index, c.model_dump_json()) for c in collectives]
        writes: list[Write] = [
            ("INSERT OR REPLACE INTO job_collectives (job, idx, body) VALUES (?, ?, ?)", (job_id, i, body))
            for i, body in bodies
        ]
        kept = self.kept.setdefault(job_id, Kept())
        gone, oldest = kept.add([(i, len(body)) for i, body in bodies])
        writes.append(
            (
                "DELETE FROM job_collectives WHERE job = ? AND idx <= ?",
                (job_id, max(collectives[-1].index - KEPT, oldest)),
            )
        )
        self.writer.put(writes, self.unlanded.put(job_id, bodies))
        return gone

    def forget(self, job_id: str) -> None:
        """The job is no longer watched: its sizes go (add() starts again if it comes back)."""
        self.kept.pop(job_id, None)

    def get(self, job_id: str) -> WatchedJob | None:
        if (given := self.latest.get(job_id)) is not None:
            return WatchedJob.model_validate_json(given[0])
        row = self.db.execute("SELECT body FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return WatchedJob.model_validate_json(row[0]) if row else None

    def resumable(self, key: str) -> WatchedJob | None:
        """The job of this key that its ranks come back to: one a restarted server left interrupted,
        or one given up as lost while they could not reach the server."""
        alive = (WatchedState.RUNNING.value, WatchedState.INTERRUPTED.value, WatchedState.LOST.value)
        row = self.db.execute(
            "SELECT id FROM jobs WHERE key = ? AND state IN (?, ?, ?) ORDER BY seq DESC LIMIT 1",
            (key, *alive),
        ).fetchone()
        return self.get(row[0]) if row else None

    def next_index(self, job_id: str) -> int:
        """One past the newest kept collective's index (landed or not): a job resumed after its server
        was killed, or its ranks lost a while, goes on from there, whatever its record (saved once a
        second) last said."""
        held = self.unlanded.of(job_id)  # before the file, as collectives() reads
        row = self.db.execute("SELECT MAX(idx) FROM job_collectives WHERE job = ?", (job_id,)).fetchone()
        return max([*held, *([] if row[0] is None else [row[0]])], default=-1) + 1

    def collectives(self, job_id: str, limit: int, before: int | None = None) -> list[WatchedCollective]:
        """The newest `limit` kept collectives before index `before`, oldest first: the file's, and
        those given to the writer that it has not landed (newer than the file's where both have one)."""
        below = 1 << 62 if before is None else before
        unlanded = {i: body for i, body in self.unlanded.of(job_id).items() if i < below}
        # read after the unlanded: a batch that lands in between is in the file then
        rows = self.db.execute(
            "SELECT idx, body FROM job_collectives WHERE job = ? AND idx < ? ORDER BY idx DESC LIMIT ?",
            (job_id, below, limit),
        ).fetchall()
        bodies = {**dict(rows), **unlanded}
        newest = sorted(bodies)[-limit:]
        return [WatchedCollective.model_validate_json(bodies[i]) for i in newest]

    def page(self, limit: int, offset: int) -> tuple[list[WatchedSummary], int]:
        rows = self.db.execute(
            "SELECT id, summary FROM jobs ORDER BY seq DESC LIMIT ? OFFSET ?", (limit, offset)
        ).fetchall()
        if offset == 0:  # a job saved and not yet in the file is listed too (ids grow: newest first)
            landed = {i for i, _ in rows}
            rows = sorted(
                [*rows, *((i, None) for i, _ in self.latest.items() if i not in landed)], reverse=True
            )[:limit]
        return [
            WatchedSummary.model_validate_json(given[1] if (given := self.latest.get(i)) else s)
            for i, s in rows
        ], self.total

    def interrupt_running(self) -> list[WatchedJob]:
        """Jobs a previous server left running: interrupted now (their ranks may come back)."""
        rows = self.db.execute(
            "SELECT body FROM jobs WHERE state = ?", (WatchedState.RUNNING.value,)
        ).fetchall()
        jobs = [WatchedJob.model_validate_json(r[0]) for r in rows]
        for job in jobs:
            job.state = WatchedState.INTERRUPTED
            self.save(job)
        return jobs

    def last_number(self) -> int:
        row = self.db.execute("SELECT id FROM jobs ORDER BY seq DESC LIMIT 1").fetchone()
        digits = re.search(r"(\d+)$", row[0]) if row else None
        return int(digits.group(1)) if digits else 0
