"""What one watched job may make the server keep, whatever its reporters say. A report is
bounded where it is parsed (watch_protocol.py: 1,024 collectives, 1,024 links, 256 groups a
report), but what it names piles up in the job: each new group or op name a collective is
issued in is a total and a line per rank, each peer a link. One rank with the worker token
sending 1,024 collectives a report in new group names grew the server by 5 GB in a minute.
So a job takes at most MAX_GROUPS group names and MAX_OPS op names (declared or issued in),
links only to peers of its world, MAX_LINKS links in all; past them a report's entries are
dropped, and the job's events say so once for each kind."""

from __future__ import annotations

from collections.abc import Callable

from ringside.server.watched.record import WatchedJob
from ringside.server.watched.words import Phrase, said
from ringside.server.watched.words import rank as rank_words
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, WatchReport

MAX_OPS = 64  # op names: torch has about 20 collectives and p2p kinds
MAX_LINKS = 1 << 16  # sender > receiver pairs: every pair of a 256-rank job


class Bounds:
    def __init__(self, world_size: int, note: Callable[[list[Phrase]], None]):
        self.world_size, self.note = world_size, note
        self.groups: set[str] = {"0"}  # the default group, never declared
        self.ops: set[str] = set()
        self.links: set[tuple[int, int]] = set()
        self.said: set[str] = set()

    @classmethod
    def of(cls, job: WatchedJob, note: Callable[[list[Phrase]], None]) -> Bounds:
        """A job's bounds, counting what it kept already (a job resumed after a restart)."""
        bounds = cls(job.world_size, note)
        bounds.groups |= set(job.groups) | {t.group for t in job.totals.values()}
        bounds.ops |= {t.op for t in job.totals.values()}
        bounds.links |= {(link.src, link.dst) for link in job.links.values()}
        return bounds

    def screen(self, report: WatchReport) -> WatchReport:
        """The report with what the job may not keep left out (the report itself if nothing is)."""
        issued = [
            i for i in report.issued if self._fits(self.groups, i.group, MAX_GROUPS + 1, "too_many_groups")
        ]
        issued = [i for i in issued if self._fits(self.ops, i.op, MAX_OPS, "too_many_ops")]
        pending = report.pending and {
            g: seq
            for g, seq in report.pending.items()
            if self._fits(self.groups, g, MAX_GROUPS + 1, "too_many_groups")
        }
        links = [link for link in report.links if self._peer(report.rank, link.peer)]
        if (len(issued), len(links), pending) == (len(report.issued), len(report.links), report.pending):
            return report
        return report.model_copy(update={"issued": issued, "links": links, "pending": pending})

    def _fits(self, kept: set[str], name: str, most: int, too_many: str) -> bool:
        """Whether `name` is kept, or fits beside the `most` kept; if not, the phrase `too_many` is said."""
        if name in kept:
            return True
        if len(kept) < most:
            kept.add(name)
            return True
        self._say(said(too_many, n=most))
        return False

    def _peer(self, rank: int, peer: int) -> bool:
        if peer >= self.world_size:
            self._say(said("peer_beyond", rank=rank_words(rank), n=self.world_size))
            return False
        if (rank, peer) in self.links or len(self.links) < MAX_LINKS:
            self.links.add((rank, peer))
            return True
        self._say(said("links_full", n=MAX_LINKS))
        return False

    def _say(self, phrase: Phrase) -> None:
        """`phrase` noted in the job's events, the first time its kind is said."""
        if phrase.key not in self.said:
            self.said.add(phrase.key)
            self.note([phrase])
