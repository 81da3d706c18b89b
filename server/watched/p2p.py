"""A watched job's sends and receives, as its ranks report them: the traffic on each link (its
totals, kept in the job's record), how many sends and receives each rank has issued to each peer
in all, and what each rank is blocked in now, each since it was first reported. A hang check
pairs a rank's wait with its peer's issued calls by order (the nth send to a peer meets the nth
receive from it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ringside.server.watched.record import LinkTotal
from ringside.worker_agent.core.watch_protocol import Link, P2PWait

WaitKey = tuple[int, int, bool, int]  # (rank, peer, send, nth)


class PointToPoint:
    def __init__(self, world_size: int, links: dict[str, LinkTotal], clock: Callable[[], float]):
        self.world_size, self.links, self.clock = world_size, links, clock
        self.waits: dict[int, list[P2PWait]] = {}  # rank -> the sends and receives it waits in now
        self.wait_seen: dict[WaitKey, float] = {}  # -> when first reported
        self.issued_to: dict[int, dict[int, tuple[int, int]]] = {}  # rank -> peer -> (sends, receives)

    def reported(self, rank: int, links: list[Link], waits: list[P2PWait]) -> None:
        for link in links:  # as the sender says it: the receiver, a rank of the job too, says it again
            if link.sent or link.sends:
                self._count(rank, link.peer, link.sent, link.sends)
            self._issued(rank, link)
        self._waiting(rank, waits)

    def _count(self, src: int, dst: int, nbytes: int, count: int) -> None:
        link = self.links.setdefault(f"{src}>{dst}", LinkTotal(src=src, dst=dst))
        link.count += count
        link.bytes += nbytes

    def _issued(self, rank: int, link: Link) -> None:
        """How many sends to a peer (and receives from it) the rank has issued in all, as it says."""
        sends, receives = link.sends_total, link.receives_total
        if sends is not None and receives is not None and link.peer < self.world_size:
            self.issued_to.setdefault(rank, {})[link.peer] = (sends, receives)

    def _waiting(self, rank: int, waits: list[P2PWait]) -> None:
        """The sends and receives the rank waits in now, each seen since it was first reported."""
        now = self.clock()
        kept = [w for w in waits if w.peer < self.world_size and w.peer != rank]
        seen = {(rank, w.peer, w.send, w.nth) for w in kept}
        for key in [k for k in self.wait_seen if k[0] == rank and k not in seen]:
            del self.wait_seen[key]
        for key in seen:
            self.wait_seen.setdefault(key, now)
        if kept:
            self.waits[rank] = kept
        else:  # the hang check walks the ranks that wait, four times a second: not the thousands that do not
            self.waits.pop(rank, None)

    def stop_waiting(self, rank: int) -> None:
        """The rank left or ended: it waits in nothing."""
        self.waits.pop(rank, None)
        for key in [k for k in self.wait_seen if k[0] == rank]:
            del self.wait_seen[key]

    # --- what a check asks --------------------------------------------------------------

    def waiting(self) -> Iterator[tuple[int, list[P2PWait]]]:
        """Each rank blocked in sends or receives, and those."""
        yield from list(self.waits.items())

    def issued(self, rank: int, peer: int) -> tuple[int, int]:
        """How many sends to `peer` and receives from it `rank` has issued, as it last said."""
        return self.issued_to.get(rank, {}).get(peer, (0, 0))

    def matched(self, rank: int, wait: P2PWait) -> bool:
        """Whether the peer has issued the other side of `rank`'s wait (paired by order)."""
        sends, receives = self.issued(wait.peer, rank)
        return (receives if wait.send else sends) >= wait.nth

    def waited_for(self, rank: int, wait: P2PWait, now: float) -> float:
        """Seconds `rank` has been seen waiting in `wait`."""
        return now - self.wait_seen.get((rank, wait.peer, wait.send, wait.nth), now)

    def wait_of(self, rank: int, peer: int, send: bool, nth: int) -> P2PWait | None:
        return next(
            (w for w in self.waits.get(rank, []) if (w.peer, w.send, w.nth) == (peer, send, nth)), None
        )
