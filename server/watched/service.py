"""Watched jobs while the server runs: the jobs whose ranks report (live.py holds each
one while it is watched), what viewers hear of them, and what the store keeps.

Reports are taken as they come; four times a second the changed collectives go to the
viewers (in one message per job), hangs are checked, and ended jobs are closed. Once a
second a running job's record is saved and its ranks sent (their last report, where
they are). A job whose ranks all go without a goodbye is lost after LOST_AFTER_S; a
server that stops leaves its jobs interrupted, and their ranks, reconnecting to the
next server, carry on the same job (by the key they share)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import ClassVar, Literal

from pydantic import BaseModel
from starlette.requests import HTTPConnection

from ringside.server.door.audience import Audience, Feed
from ringside.server.watched import hangs
from ringside.server.watched.bounds import Bounds
from ringside.server.watched.job_metrics import ENDED_SHOWN, JobFigures
from ringside.server.watched.live import LiveWatchedJob
from ringside.server.watched.rank_waits import HANG_S
from ringside.server.watched.record import (
    Hang,
    RankInfo,
    WatchedCollective,
    WatchedJob,
    WatchedState,
    WatchedSummary,
)
from ringside.server.watched.store import KEPT_BYTES, WatchStore
from ringside.server.watched.words import Phrase, english, said
from ringside.worker_agent.core.watch_protocol import WatchBye, WatchHello, WatchReport

log = logging.getLogger("ringside.server")
TICK_S = 0.25
SUMMARY_S = 1.0
LOST_AFTER_S = 10.0
MAX_LIVE = 32  # jobs watched at once
MAX_PUSH = 500  # collectives in one message to viewers: a burst beyond is read from the API
# and rank entries (their groups' ranks) in one: 500 of a 65,536-rank world, re-reported 4 times a
# second by a forged rank of each of 4 jobs, held the loop for up to 4.3 s a push
MAX_PUSH_RANKS = 1 << 16


class WatchedJobMessage(BaseModel):
    audience: ClassVar[Audience] = Audience.EVERYONE  # a user's own job: no poll asks of it
    type: Literal["watched"] = "watched"
    job: WatchedSummary
    ranks: list[RankInfo]


class WatchedCollectivesMessage(BaseModel):
    audience: ClassVar[Audience] = Audience.EVERYONE
    type: Literal["watched_collectives"] = "watched_collectives"
    job_id: str
    collectives: list[WatchedCollective]


class WatchedHangMessage(BaseModel):
    audience: ClassVar[Audience] = Audience.EVERYONE
    type: Literal["watched_hang"] = "watched_hang"
    job_id: str
    hang: Hang | None
    text: str  # in English: `words` rendered
    words: list[Phrase] = []  # what it says: the end of the last hang, the new one


# told of each hang that began, changed or ended: the job, the hang before, the hang now, what was said
HangChanged = Callable[[LiveWatchedJob, Hang | None, Hang | None, list[Phrase]], None]


class Watching:
    def __init__(self, store: WatchStore, fanout: Feed, hang_after: float = HANG_S):
        self.store, self.fanout = store, fanout
        self.hang_after = hang_after  # each job's, unless its ranks' hellos say their own
        self.live: dict[str, LiveWatchedJob] = {}  # by the key the job's ranks share
        # (job id, rank) -> its socket: a reconnect replaces it
        self.sockets: dict[tuple[str, int], object] = {}
        self.bounds: dict[str, Bounds] = {}  # by job id: what each live job may keep
        self.trimmed: set[str] = set()  # jobs told their oldest collectives go for their bytes
        # jobs whose ranks joined, said goodbye or left since the last tick: told then, in one message
        # (a message a join named every rank: 4,096 joining cost the loop 4,096 x 4,096 ranks written)
        self.due: set[str] = set()
        self.number = self.store.last_number()
        self.interrupted = len(self.store.interrupt_running())
        self.task: asyncio.Task | None = None
        self.hang_changed: HangChanged | None = None  # told of each hang's change (--notify)
        self.ended: deque[JobFigures] = deque(maxlen=ENDED_SHOWN)  # the last jobs to end, for /metrics

    def start(self) -> None:
        self.task = asyncio.create_task(self._tick())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        for watched in self.live.values():
            self._flush(watched)
            if not watched.job.state.ended:
                watched.job.state = WatchedState.INTERRUPTED
            self.store.save(watched.job)

    # --- ranks -----------------------------------------------------------------------

    def join(self, hello: WatchHello, socket: object) -> tuple[LiveWatchedJob | None, str | None]:
        """The job this rank belongs to, or why it may not join."""
        watched, created = self.live.get(hello.job), False
        if watched is None:
            if len(self.live) >= MAX_LIVE:
                return None, f"{MAX_LIVE} jobs are watched already"
            job = self.store.resumable(hello.job)
            if job is not None:
                job.matched = max(job.matched, self.store.next_index(job.id))
            watched, created = (
                (LiveWatchedJob(job, hang_after=self.hang_after), False)
                if job
                else (
                    LiveWatchedJob.start(f"j-{self.number + 1:06d}", hello, hang_after=self.hang_after),
                    True,
                )
            )
        problem = watched.conflict(hello)
        if problem:
            return None, problem
        if hello.job not in self.live:
            self.live[hello.job] = watched
            self.number += created
            self.store.save(watched.job, new=created)
        watched.joined(hello)
        self.sockets[(watched.job.id, hello.rank)] = socket
        self.due.add(watched.job.id)
        return watched, None

    def report(self, watched: LiveWatchedJob, message: WatchReport | WatchBye) -> None:
        if isinstance(message, WatchBye):
            watched.bye(message)
            self.due.add(watched.job.id)
        else:
            bounds = self.bounds.get(watched.job.id)
            if bounds is None:
                bounds = self.bounds[watched.job.id] = Bounds.of(watched.job, watched.note)
            watched.report(bounds.screen(message))

    def left(self, watched: LiveWatchedJob, rank: int, socket: object) -> None:
        if self.sockets.get((watched.job.id, rank)) is socket:  # not a socket a reconnect replaced
            del self.sockets[(watched.job.id, rank)]
            watched.left(rank)
            self.due.add(watched.job.id)

    def add(self, make: Callable[[str], LiveWatchedJob]) -> LiveWatchedJob:
        """A job that ended before the server heard of it (opened from its dumps), made by `make` with its
        id: kept and shown like the others, what it ended waiting in too (read from the store, which
        holds what its writer has not landed yet)."""
        watched = make(f"j-{self.number + 1:06d}")
        self.number += 1
        self.store.save(watched.job, new=True)
        self._flush(watched)
        self.store.add(watched.job.id, watched.left_open())
        self._publish_job(watched)
        return watched

    # --- reading -----------------------------------------------------------------------

    def find(self, job_id: str) -> tuple[WatchedJob | None, LiveWatchedJob | None]:
        for watched in self.live.values():
            if watched.job.id == job_id:
                return watched.job, watched
        return self.store.get(job_id), None

    def figures(self) -> list[JobFigures]:
        """What /metrics says of the jobs watched now and of the last ones to end (a lost job whose
        ranks came back is said once, as it is now)."""
        live = [JobFigures.of(w) for w in self.live.values()]
        watched = {f.id for f in live}
        return [*live, *(f for f in self.ended if f.id not in watched)]

    def collectives(self, job_id: str, limit: int, before: int | None) -> list[WatchedCollective]:
        """The newest `limit` collectives before `before`: a live job's from memory first."""
        _, watched = self.find(job_id)
        mine = watched.collectives.latest(limit, before) if watched is not None else []
        if len(mine) < limit:
            older = mine[0].index if mine else before
            mine = [*self.store.collectives(job_id, limit - len(mine), older), *mine]
        return mine

    # --- the loop ------------------------------------------------------------------------

    async def _tick(self) -> None:
        last_summary = 0.0
        while True:
            await asyncio.sleep(TICK_S)
            summarise = time.monotonic() - last_summary >= SUMMARY_S
            last_summary = time.monotonic() if summarise else last_summary
            self.check(summarise)

    def check(self, summarise: bool) -> None:
        """A tick's work on each job: its changes told, its hang checked, its end closed; `summarise`:
        its record saved and its ranks told too."""
        for key, watched in list(self.live.items()):
            try:
                self._tick_job(key, watched, summarise)
            except Exception:  # one job's fault must not stop the others' watch
                log.exception("watched job %s: its update failed", watched.job.id)

    def _tick_job(self, key: str, watched: LiveWatchedJob, summarise: bool) -> None:
        self._flush(watched)
        old = watched.job.hang
        change = hangs.hang_change(watched)
        if change is not None:
            hang, words = change
            message = WatchedHangMessage(job_id=watched.job.id, hang=hang, text=english(words), words=words)
            self.fanout.publish(message)
            if self.hang_changed is not None:
                self.hang_changed(watched, old, hang, words)
        if watched.ended(LOST_AFTER_S):
            self.store.add(watched.job.id, watched.left_open())  # the waits it ended in, and the unseen
            del self.live[key]
            self.bounds.pop(watched.job.id, None)
            self.store.forget(watched.job.id)
            self.ended.append(JobFigures.of(watched))
            summarise = True
        if summarise or watched.job.id in self.due:
            self.due.discard(watched.job.id)
            self._publish_job(watched)
        if summarise:
            self.store.save(watched.job)

    def _flush(self, watched: LiveWatchedJob) -> None:
        """What changed: to the viewers, and the complete ones to the store."""
        changed = watched.collectives.take_changed()
        if changed:
            self.fanout.publish(WatchedCollectivesMessage(job_id=watched.job.id, collectives=pushed(changed)))
            gone = self.store.add(watched.job.id, [c for c in changed if c.complete])
            if gone and watched.job.id not in self.trimmed:
                self.trimmed.add(watched.job.id)
                watched.note([said("trimmed", mb=KEPT_BYTES >> 20)])

    def _publish_job(self, watched: LiveWatchedJob) -> None:
        job = watched.job
        self.fanout.publish(WatchedJobMessage(job=job.summary(), ranks=list(job.ranks.values())))


def pushed(changed: list[WatchedCollective]) -> list[WatchedCollective]:
    """The newest of the changed collectives that one message to viewers holds (MAX_PUSH, and
    MAX_PUSH_RANKS rank entries, at least one); a page reads the rest from the API."""
    kept: list[WatchedCollective] = []
    ranks = 0
    for collective in reversed(changed[-MAX_PUSH:]):
        ranks += len(collective.ranks)
        if kept and ranks > MAX_PUSH_RANKS:
            break
        kept.append(collective)
    return kept[::-1]


async def watching_of(conn: HTTPConnection) -> Watching:
    return conn.app.state.watching
