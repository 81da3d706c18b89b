"""Which ranks of a watched job are connected, when each was last heard (on the server's clock),
and which said they issued more than their last report said: what a hang check asks to tell a
rank that stopped from one that is busy elsewhere."""

from __future__ import annotations

from collections.abc import Callable


class Presence:
    def __init__(self, clock: Callable[[], float]):
        self.clock = clock  # seconds, monotonic: the server's, or one a test moves by hand
        self.connected: set[int] = set()
        self.heard: dict[int, float] = {}  # rank -> when its last report came
        self.unsaid: set[int] = set()  # ranks whose last report said they issued more than it said
        self.left_at: float | None = None  # when the last rank went (None while any is connected)

    def came(self, rank: int) -> None:
        self.connected.add(rank)
        self.heard[rank] = self.clock()
        self.left_at = None

    def reported(self, rank: int, unread: int) -> None:
        """A report from `rank`, which says `unread` calls it issued are not yet in it."""
        self.heard[rank] = self.clock()
        (self.unsaid.add if unread else self.unsaid.discard)(rank)

    def went(self, rank: int) -> None:
        self.connected.discard(rank)
        self.heard.pop(rank, None)
        if not self.connected:
            self.left_at = self.clock()

    # --- what a check asks --------------------------------------------------------------

    def is_connected(self, rank: int) -> bool:
        return rank in self.connected

    def connected_ranks(self) -> list[int]:
        return list(self.connected)

    def quiet_for(self, rank: int, now: float) -> float:
        """Seconds since `rank` was last heard (0 for one never heard)."""
        return now - self.heard.get(rank, now)

    def unsaid_ranks(self) -> set[int]:
        return self.unsaid

    def gone_for(self, now: float) -> float | None:
        """Seconds since the last rank went; None while one is connected or none has gone."""
        return None if self.connected or self.left_at is None else now - self.left_at
