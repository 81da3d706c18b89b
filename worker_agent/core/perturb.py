"""Perturbations a presenter can cause and watch: a straggler, staggered arrivals, a slow link, a hang.

A run option (RunSpec.perturb), checked like every other field, carried out by
the ranks themselves (the executor sleeps where the option says), recorded in
the run, and predicted from the schedule alone:

- straggler: one rank sleeps `delay_s` before each step it takes part in (a
  native call: before the call), so it arrives late and its peers wait;
- stagger: the group's rank i sleeps i·`delay_s` before its first step (a
  native call: before the call), so every rank arrives at its own time, as the
  seed's barrier lesson has them (rank r sleeps r seconds);
- slow link: a step that moves bytes between `a` and `b` takes the link's
  busier direction's bytes over `bytes_per_s` longer on both ends (the wire
  limits each direction alone, as a full-duplex link does);
- hang: `rank` never arrives at `step`; the others wait out the run's timeout
  and the run fails naming it (the held-back rank fails once a peer has given up).
  Such a run reports every step as it happens, and every arrival, so the server
  sees the wavefront before the timeout.

Schedules here are plain data in global ranks: per step, a list of
[src, dst, chunk, into, reduce]. Nothing in this module imports the protocol
(the protocol imports it) or torch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

MIN_DELAY_S, MAX_DELAY_S = 0.001, 10.0
MIN_RATE, MAX_RATE = 1e3, 1e11  # bytes per second: a modem to a fast NVLink
HANG_GRACE_S = 1.0  # a held-back rank sleeps at most this long past the run's timeout, then gives up itself
HANG_POLL_S = 0.05  # how often a held-back rank looks whether its peers have given up on it

Steps = Sequence[Sequence[Sequence[int]]]  # per step: [src, dst, chunk, into, reduce], global ranks


class _Option(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Straggler(_Option):
    rank: StrictInt = Field(description="global rank that arrives late")
    delay_s: StrictFloat = Field(
        description=f"seconds it waits before each of its steps ({MIN_DELAY_S:g} to "
        f"{MAX_DELAY_S:g}, below the run's timeout)"
    )


class Stagger(_Option):
    delay_s: StrictFloat = Field(
        description=f"seconds between ranks' arrivals: the group's rank i waits i·delay_s before its "
        f"first step ({MIN_DELAY_S:g} to {MAX_DELAY_S:g}; all of them below the run's timeout)"
    )


class SlowLink(_Option):
    a: StrictInt = Field(description="global rank at one end")
    b: StrictInt = Field(description="global rank at the other end")
    bytes_per_s: StrictFloat = Field(
        description=f"the link's rate in each direction ({MIN_RATE:g} to {MAX_RATE:g})"
    )


class Hang(_Option):
    rank: StrictInt = Field(description="global rank that never arrives")
    step: StrictInt = Field(
        description="the index of the step it never arrives at (0 is the first; the page calls it step 1)"
    )


class Perturb(_Option):
    """What to do to a run; any of the four, or several."""

    straggler: Straggler | None = None
    stagger: Stagger | None = None
    slow_link: SlowLink | None = None
    hang: Hang | None = None

    @property
    def live(self) -> bool:
        """Whether the ranks report every step as it happens (and every arrival): a hang's wavefront needs
        them."""
        return self.hang is not None


class CheckFailed(ValueError):
    """A perturbation that cannot run: `field` is its path in the RunSpec."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


def check(perturb: Perturb, group: list[int], steps: Steps | None, timeout: float) -> None:
    """Raise CheckFailed naming the first field that cannot run. `steps` is None for a native run."""
    s, link, hang = perturb.straggler, perturb.slow_link, perturb.hang
    # else a run slowed by nothing would be kept out of the model's fit
    if (s, perturb.stagger, link, hang) == (None, None, None, None):
        raise CheckFailed(
            "perturb", "name a straggler, a stagger, a slow_link or a hang (or leave perturb out)"
        )
    if perturb.stagger is not None:
        _check_stagger(perturb.stagger, len(group), timeout)
    if s is not None:
        _in_group("perturb.straggler.rank", s.rank, group)
        if not MIN_DELAY_S <= s.delay_s <= MAX_DELAY_S:
            raise CheckFailed(
                "perturb.straggler.delay_s",
                f"must be between {MIN_DELAY_S:g} and {MAX_DELAY_S:g} s, not {s.delay_s}",
            )
        if s.delay_s >= timeout:  # its peers would give up on it
            raise CheckFailed(
                "perturb.straggler.delay_s", f"must be shorter than the run's timeout of {timeout:g} s"
            )
    if link is not None:
        _in_group("perturb.slow_link.a", link.a, group)
        _in_group("perturb.slow_link.b", link.b, group)
        if link.a == link.b:
            raise CheckFailed("perturb.slow_link.b", f"a link joins two ranks; both ends are rank {link.a}")
        if not MIN_RATE <= link.bytes_per_s <= MAX_RATE:
            raise CheckFailed(
                "perturb.slow_link.bytes_per_s",
                f"must be between {MIN_RATE:g} and {MAX_RATE:g} bytes/s, not {link.bytes_per_s}",
            )
        if steps is None:
            raise CheckFailed(
                "perturb.slow_link", "a native call's wires are the backend's own; pick a stepwise algorithm"
            )
    if hang is not None:
        _in_group("perturb.hang.rank", hang.rank, group)
        if steps is None:
            raise CheckFailed(
                "perturb.hang", "a native call has no steps to hang at; pick a stepwise algorithm"
            )
        if not 0 <= hang.step < len(steps):
            raise CheckFailed(
                "perturb.hang.step", f"the schedule has steps 0..{len(steps) - 1}, not {hang.step}"
            )
        if hang.rank not in peers(steps[hang.step]):
            raise CheckFailed(
                "perturb.hang.step",
                f"rank {hang.rank} sends and receives nothing in step {hang.step}, "
                "so nobody would wait for it there",
            )


def _check_stagger(stagger: Stagger, p: int, timeout: float) -> None:
    if not MIN_DELAY_S <= stagger.delay_s <= MAX_DELAY_S:
        raise CheckFailed(
            "perturb.stagger.delay_s",
            f"must be between {MIN_DELAY_S:g} and {MAX_DELAY_S:g} s, not {stagger.delay_s}",
        )
    if (p - 1) * stagger.delay_s >= timeout:  # the first to arrive would give up on the last
        raise CheckFailed(
            "perturb.stagger.delay_s",
            f"the last of {p} ranks would arrive {(p - 1) * stagger.delay_s:.3g} s after the first, "
            f"past the run's timeout of {timeout:g} s",
        )


def arrival(perturb: Perturb | None, rank: int, group: Sequence[int]) -> float:
    """Seconds after the first that `rank` arrives under the stagger: its index in the group
    times the delay (0 without one, or for a rank outside the group)."""
    stagger = perturb.stagger if perturb is not None else None
    if stagger is None or rank not in group:
        return 0.0
    return list(group).index(rank) * stagger.delay_s


def check_times(
    perturb: Perturb, steps: Steps, chunk_bytes: Sequence[int], timeout: float, group: list[int]
) -> None:
    """A perturbation that keeps a healthy rank waiting past the run's timeout fails it (and its
    group restarts): refused. A slow link's one step must fit; and since a rank can wait across
    several of a straggler's late steps (a tree's leaf for its parent), so must the whole delay."""
    if perturb.slow_link is not None:
        worst = max(link_seconds(perturb.slow_link, steps, chunk_bytes), default=0.0)
        if worst >= timeout:
            raise CheckFailed(
                "perturb.slow_link.bytes_per_s",
                f"a step would take {worst:.3g} s on this link, past the run's timeout of {timeout:g} s",
            )
    extra = predicted_extra(perturb, steps, chunk_bytes, group)
    if perturb.straggler is not None and extra is not None and extra >= timeout:
        raise CheckFailed(
            "perturb.straggler.delay_s",
            f"the delays add up to {extra:.3g} s over the schedule's steps, past the run's "
            f"timeout of {timeout:g} s: shorten the delay or raise the timeout",
        )


def _in_group(field: str, rank: int, group: list[int]) -> None:
    if rank not in group:
        raise CheckFailed(field, f"rank {rank} is not in the group {group}")


def peers(transfers: Sequence[Sequence[int]]) -> dict[int, set[int]]:
    """Who exchanges with whom in one step (local copies cross no link)."""
    out: dict[int, set[int]] = {}
    for src, dst, *_ in transfers:
        if src != dst:
            out.setdefault(src, set()).add(dst)
            out.setdefault(dst, set()).add(src)
    return out


def link_seconds(link: SlowLink, steps: Steps, chunk_bytes: Sequence[int]) -> list[float]:
    """Per step: what the slow link adds, its busier direction's bytes over its rate."""
    out = []
    for transfers in steps:
        ab = sum(chunk_bytes[c] for src, dst, c, *_ in transfers if (src, dst) == (link.a, link.b))
        ba = sum(chunk_bytes[c] for src, dst, c, *_ in transfers if (src, dst) == (link.b, link.a))
        out.append(max(ab, ba) / link.bytes_per_s)
    return out


def predicted_extra(
    perturb: Perturb, steps: Steps | None, chunk_bytes: Sequence[int], group: list[int]
) -> float | None:
    """Seconds the perturbation adds to the collective, read from the schedule with every
    transfer otherwise free: a rank starts a step when done with its last (the straggler
    `delay_s` later), and is done when it and every peer of that step have started, plus
    the slow link's time at the link's ends; a staggered rank starts late by its arrival. So a
    straggler costs its delay once per step on the critical path, a slow link its bytes/rate
    once per step that uses it, and a stagger the last rank's arrival. None for a hang: that run
    never ends. A native call waits for the straggler, and the last to arrive, once."""
    if perturb.hang is not None:
        return None
    s, link = perturb.straggler, perturb.slow_link
    if steps is None:
        return max(native_delay(perturb, r, group) for r in group) if group else 0.0
    linger = link_seconds(link, steps, chunk_bytes) if link is not None else [0.0] * len(steps)
    clock = {r: arrival(perturb, r, group) for r in group}
    for k, transfers in enumerate(steps):
        met = peers(transfers)
        start = {r: clock[r] + (s.delay_s if s is not None and r == s.rank else 0.0) for r in met}
        for r, mine in met.items():
            ends = link is not None and r in (link.a, link.b)
            clock[r] = max(start[q] for q in mine | {r}) + (linger[k] if ends else 0.0)
    return max(clock.values(), default=0.0)


# --- on a rank ------------------------------------------------------------------


@dataclass
class OnRank:
    """What one rank does differently, decided before the clock starts: sleep before a
    step (straggler), linger after one (slow link), never arrive at one (hang)."""

    rank: int
    before: list[float]
    after: list[float]
    hang_at: int | None
    live: bool
    given_up: Callable[[], bool] = lambda: False  # whether a peer has given up on this rank's group

    def arrive(self, step: int, timeout: float, reported: bool) -> None:
        """Called before step `step` starts. A hang holds the rank back, in the reported
        iteration only, until a peer has given up on it (or the timeout and a grace have
        passed), then fails it."""
        if self.hang_at == step and reported:
            deadline = time.monotonic() + timeout + HANG_GRACE_S
            while not self.given_up() and time.monotonic() < deadline:
                time.sleep(HANG_POLL_S)
            raise TimeoutError(
                f"rank {self.rank} was held back from step {step} by the run's hang "
                f"option until its peers gave up on it (timeout {timeout:g} s)"
            )
        if self.before[step]:
            time.sleep(self.before[step])

    def leave(self, step: int) -> None:
        """Called once step `step`'s transfers are done: the slow link's time on top of the wire's."""
        if self.after[step]:
            time.sleep(self.after[step])


def on_rank(
    perturb: Perturb,
    rank: int,
    steps: Steps,
    chunk_bytes: Sequence[int],
    group: Sequence[int],
    given_up: Callable[[], bool] = lambda: False,
) -> OnRank:
    """Rank `rank`'s part of the perturbation over a stepwise schedule (global ranks, the
    group's in its order); a hung rank asks `given_up` whether its peers have given up on it yet."""
    s, link, hang = perturb.straggler, perturb.slow_link, perturb.hang
    mine = [rank in peers(transfers) for transfers in steps]
    before = [s.delay_s if s is not None and s.rank == rank and takes_part else 0.0 for takes_part in mine]
    first = next((k for k, takes_part in enumerate(mine) if takes_part), None)
    if first is not None:  # a staggered rank arrives late at its first step only
        before[first] += arrival(perturb, rank, group)
    if link is not None and rank in (link.a, link.b):  # on the slow link
        linger = link_seconds(link, steps, chunk_bytes)
    else:
        linger = [0.0] * len(steps)
    hangs_at = hang.step if hang is not None and hang.rank == rank else None
    return OnRank(rank, before, linger, hangs_at, perturb.live, given_up)


def native_delay(perturb: Perturb | None, rank: int, group: Sequence[int]) -> float:
    """Seconds a native call waits on this rank before it is made: the straggler's delay and its
    arrival under a stagger, or 0."""
    s = perturb.straggler if perturb is not None else None
    return (s.delay_s if s is not None and s.rank == rank else 0.0) + arrival(perturb, rank, group)
