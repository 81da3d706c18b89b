"""Pauses a watched job makes and recovers from: a checkpoint every few steps, an evaluation, a data
loader's refill. A rank that pauses keeps the others waiting in the next collective, so by the hang
threshold alone every such pause is a hang, named and then "caught up" each time (a rank that paused
4 s every 5 steps was named six times in a healthy 29 s job): a watch an on-call engineer turns off.

So a rank's waits are remembered by the place it paused at once it recovered from them, and a wait
at a place where it paused and recovered before is not a hang until it lasts clearly longer than any
recovered pause there: MARGIN times the longest, and the job's threshold at least. A first stop
anywhere is named at the threshold, as before; a stop at a place of routine pauses, at MARGIN times
the longest of them. A place is the line the rank's main thread was at while the others waited
(`where`); from a reporter that says no line, the group and op of the collective waited in.

What is learnt is bounded, so that a watch cannot be taught to wait for ever: a wait longer than
ROUTINE_MOST_S teaches nothing when it ends (a stall that recovered is no routine: a watch taught
by a 10-minute one would not name a stop there before NCCL's own timeout), and the longest pause
learnt at a place is at most MARGIN times the first learnt there (pauses that creep up, each a
little longer, stop raising the bar)."""

from __future__ import annotations

from collections.abc import Callable

MARGIN = 1.5  # a pause this many times the longest before at its place is no longer routine
ROUTINE_MOST_S = 120.0  # the longest wait learnt as a routine pause (a checkpoint's, an evaluation's)
MAX_PLACES = 4096  # places remembered per job, all ranks together: a forged job's lines cost little

Place = tuple[str, ...]  # ("line", "train.py:40") or ("op", group, op)
Waited = tuple[int, str, int]  # (the late rank, the group, the seq it has not issued)


class Pauses:
    """What one job's ranks paused at and for how long, learnt as the hang check sees them wait."""

    def __init__(self) -> None:
        self.longest: dict[tuple[int, Place], float] = {}  # (rank, place) -> its longest recovered pause
        self.first: dict[tuple[int, Place], float] = {}  # (rank, place) -> the first pause learnt there
        self.waiting: dict[Waited, tuple[Place, float]] = {}  # waits seen at the last check: place, s
        self.seen: dict[Waited, tuple[Place, float]] = {}  # this check's, so far

    def bar(self, rank: int, place: Place, hang_after: float) -> float:
        """How long a wait on `rank` at `place` lasts before it is a hang."""
        longest = self.longest.get((rank, place))
        return hang_after if longest is None else max(hang_after, MARGIN * longest)

    def overdue(
        self,
        late: tuple[int, ...],
        group: str,
        seq: int,
        since: float,
        places: dict[int, Place],
        hang_after: float,
    ) -> tuple[int, ...]:
        """Which of `late` (the ranks a collective waits on for `since` s, each at its place) it has
        waited on past their bar; each wait seen is noted, to be learnt from once the rank goes on.
        A wait keeps the place it was first seen at: a rank that goes on is seen at the collective's
        line a report before it says it issued it, which is not where it paused."""
        over = []
        for r in late:
            place = self.waiting.get((r, group, seq), (places[r], 0.0))[0]
            self.seen[(r, group, seq)] = (place, since)
            if since >= self.bar(r, place, hang_after):
                over.append(r)
        return tuple(over)

    def checked(self, went_on: Callable[[int, str, int], bool]) -> None:
        """The end of a check: each wait seen at the last one and not at this one ended, and where its
        rank went on (`went_on`: still here, and issued what it was waited for), it is learnt as a
        recovered pause at its place. A wait that ended otherwise (the rank left) teaches nothing."""
        for waited, (place, since) in self.waiting.items():
            if waited in self.seen or since > ROUTINE_MOST_S or not went_on(*waited):
                continue
            key = (waited[0], place)
            if key in self.longest or len(self.longest) < MAX_PLACES:
                first = self.first.setdefault(key, since)
                self.longest[key] = min(max(self.longest.get(key, 0.0), since), MARGIN * first)
        self.waiting, self.seen = self.seen, {}
