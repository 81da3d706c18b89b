"""When the reporter reads the Flight Recorder. A read dumps the whole ring (flight.py): it costs as
much for one new collective as for hundreds, and while it runs it holds the GIL and the recorder's
lock, which the rank's own threads wait on. gloo numbers each process group's collectives, and the
numbers cost a call to ask, so each poll asks them first and reads only when:

- half the ring is new: the ring wraps as fast as collectives come, and what it overwrites unread
  is lost; polls come as soon as the rate last seen would make half of it new, so the other half
  is the reporter's slack;
- the rank has stopped issuing since the last poll: it may wait in what it issued last, which the
  server must see to name a hang; and once more SETTLE_S after it stopped, where the last read came
  sooner: a group counts a collective before the recorder holds it, and a read between the two
  would leave the one the rank waits in unread for as long as it waits; and every two seconds
  while it stays still, which costs a waiting rank nothing, whatever else kept an entry from a read;
- the last read found something open (a collective not completed): whether it has completed;
- two seconds have gone by since the last read with something new: the page stays live.

Where the count cannot be had (NCCL, whose sends and receives and durations it does not cover),
every poll reads, as often as the rate last read needs."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import torch.distributed.distributed_c10d as c10d

RING_DEFAULT = 2000  # torch's TORCH_FR_BUFFER_SIZE when it is unset
READ_EVERY_S = 2.0  # a read at least this often while collectives come
MIN_INTERVAL_S, MAX_INTERVAL_S = 0.2, 1.0
COST_SHARE = 0.01  # a poll waits at least 100x what the last one cost: reading holds the GIL
PEAK_HALF_LIFE_S = 30.0  # the fastest rate seen is planned for, forgotten this slowly: a job that
# paused floods again as fast
SETTLE_S = 1.0  # a count this still is one the recorder has caught up with
SOONEST_S = 0.01  # polls no closer: a ring that fills half in less loses collectives, and says so
# polls till the first collective is seen: the ring fills from it at a rate not yet known (a poll that
# reads nothing costs about 25 us)
UNSEEN_S = 0.05


def ring_size() -> int:
    """The recorder's ring, as torch sizes it (from the environment, once, as it is made)."""
    try:
        return int(os.environ.get("TORCH_FR_BUFFER_SIZE", RING_DEFAULT))
    except ValueError:
        return RING_DEFAULT


def issued_so_far() -> int | None:
    """The collectives this process has issued in all its process groups: their sequence numbers,
    which are the ones gloo's recorder gives its entries. None where they cannot be had."""
    try:
        # the stub leaves out this binding, which ProcessGroup has (gloo and NCCL)
        return sum(pg._get_sequence_number_for_group() for pg in list(c10d._world.pg_names))  # type: ignore[attr-defined]
    except Exception:  # a group being made or torn down as it is read: read the recorder instead
        return None


class Pace:
    def __init__(self, ring: int, count: Callable[[], int | None] | None = None):
        self.ring = ring
        self.count = count  # the collectives issued so far (issued_so_far), or None: not to be had
        self.calm_s = MIN_INTERVAL_S  # the least time between polls with the ring in no danger
        self.rate = 0.0  # collectives a second: the fastest seen lately
        self.polled = 0  # the count at the last poll (none issued before the reporter starts)
        self.polled_at = time.monotonic()
        self.read_count = 0  # the count at the last read
        self.read_at = time.monotonic()
        self.moved = False  # whether the rank issued any since the last poll
        self.moved_at = time.monotonic()  # the poll that last saw the count change

    def due(self, open_: bool, told: bool = False) -> bool:
        """Whether this poll reads the recorder (`open_`: the last read found something not done;
        `told`: the reporter was told to read now, a script's poll or the last report). Either way
        the count is taken first, so that a read counts as read what was issued before it: the next
        poll must not take the rank to have moved past what the read found open."""
        now = time.monotonic()
        count = self.count() if self.count is not None else None
        if count is None:
            self.polled_at = now
            return True
        if now > self.polled_at:
            self._seen(max(0, count - self.polled) / (now - self.polled_at), now - self.polled_at)
        self.moved = count != self.polled
        if self.moved:
            self.moved_at = now
        self.polled, self.polled_at = count, now
        if told:
            return True
        new = count - self.read_count
        if new < 0:  # groups destroyed: their numbers are gone from the count
            return True
        if new == 0:
            settling = self.read_at - self.moved_at < SETTLE_S <= now - self.moved_at
            return open_ or settling or now - self.read_at >= READ_EVERY_S
        return 2 * new >= self.ring or not self.moved or now - self.read_at >= READ_EVERY_S

    @property
    def unread(self) -> int:
        """Collectives (and sends and receives) issued since the last read, as the last poll counted."""
        return max(0, self.polled - self.read_count) if self.count is not None else 0

    def was_read(self, fresh: int) -> None:
        """A read has been made, finding `fresh` records new (the rate where there is no count)."""
        now = time.monotonic()
        if self.count is None and now > self.read_at:
            self._seen(fresh / (now - self.read_at), now - self.read_at)
        self.read_count = self.polled
        self.read_at = now

    def _seen(self, rate: float, over_s: float) -> None:
        self.rate = max(rate, self.rate * 0.5 ** (over_s / PEAK_HALF_LIFE_S))

    def interval(self, cost: float) -> float:
        """Till the next poll: no sooner than `calm_s` (a job of thousands of ranks reports less often
        each, so that one server keeps up), its cost a small share of the time, and sooner where the
        ring would be half new before then, or while the rank's rate is not known."""
        calm = min(MAX_INTERVAL_S, max(self.calm_s, cost / COST_SHARE))
        if self.ring <= 0:
            return calm
        if self.rate <= 0:
            return min(calm, UNSEEN_S)
        new = self.polled - self.read_count if self.count is not None else 0
        # from the poll's count, not its end: a read of a full ring, starved of the CPU, took 0.25 s
        spent = time.monotonic() - self.polled_at
        return max(SOONEST_S, min(calm, (self.ring / 2 - new) / self.rate - spent))
