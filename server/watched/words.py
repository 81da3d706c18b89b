"""What a watched job's hangs and events say, as data: each a list of phrases, a phrase a key and
its arguments (a rank, an op, a #seq, a file:line, seconds already written out, or phrases in turn).
The server's English (a Hang's `text`, an event's, what `ringside open` prints) is rendered here
from the phrases by ENGLISH; the page renders the same phrases by its tables in its own language
(frontend/js/i18n/phrases.js, and en.js, ko.js, zh.js: tests/unit/test_watch_words.py keeps every
key in each and this English equal to the page's).

A template's {name} is its argument: a phrase in turn, a list of phrases (joined by "; ", or by ", "
where written {name,}), or data kept as it is; an argument not given is said as nothing (the
optional tail of a sentence). What a phrase names is bounded: ranks by MAX_NAMED (and runs of
them), a list of phrases by MAX_PHRASES, so that a job of thousands of ranks says a few lines."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar, Union

from pydantic import BaseModel

MAX_NAMED = 8  # ranks named one by one; more are said by their runs
MAX_RUNS = 16  # runs of ranks named; more are counted
MAX_PHRASES = 12  # phrases of one list said; more are counted

ENGLISH: dict[str, str] = {
    # ranks
    "rank": "rank {n}",
    "ranks": "ranks {list}",
    "ranks_more": "ranks {list} and {more} more",
    "the_other_ranks": "the other {n} ranks",
    "more": "and {n} more",
    # what a rank waits in
    "collective": "{op} #{seq}{group} ({size})",
    "collective_bucket": "{op} #{seq}{group} ({size}, bucket {bucket})",
    "of_group": " of group {group} ({ranks})",
    "issued_by_all": "{what}, which every rank issued",
    "send_to": "send to {peer} ({size})",
    "recv_from": "recv from {peer} ({size})",
    "op_seq": "{op} #{seq}",
    "the_op": "the {op}",
    # a wait
    "waits_in": "{ranks} waits in {what}",
    "wait_in": "{ranks} wait in {what}",
    "last_reported": "{rank} last reported #{seq}{unread}{silent}{seen}",
    "and_unread": " (then {n} more calls, not yet read)",
    "reported_nothing": "{rank} last reported nothing in this group{unread}{silent}{seen}",
    "and_silent": ", and has said nothing for {s} s",
    "and_seen_at": ", last seen at {where} {ago} s ago",
    "said_nothing": "{rank} has said nothing for {s} s{last}",
    "seen_at": "{rank} last seen at {where} {ago} s ago",
    "not_its_side": "{rank} has not issued its side",
    "last_issued": " (it last reported {issued,})",
    "last_issued_seen": " (it last reported {issued,}; last seen at {where})",
    "last_seen": " (last seen at {where})",
    "seq_in_group": "#{seq} in group {group}",
    # a deadlock
    "deadlock": "{ranks} wait on each other, and none can go on: {said}",
    "waits_in_at": "{rank} waits in {what} at {where}",
    "waits_on_them": "{ranks} waits on them",
    "wait_on_them": "{ranks} wait on them",
    # a silence
    "go_on": "{ranks} go on",
    "goes_on": "{ranks} goes on",
    # a mismatch
    "disagree": "ranks disagree on #{seq} of group {group}: {sides}",
    "disagree_why": "ranks disagree on #{seq} of group {group}: {sides} ({why})",
    "side": "{ranks} {what}",
    "until_timeout": "they wait until the backend's timeout",
    "issued_op": "{op}",
    "issued_of_dtype": "{op} of {dtype}",
    "issued_of": "{op} of {size}",
    "issued_into": "{op} into {size}",
    "issued_in_out": "{op} of {into} in, {out} out {dtype}",
    "ops_differ": "the ops differ",
    "dtypes_differ": "the dtypes differ",
    "sizes_differ": "the sizes differ",
    "splits_disagree": (
        "its ranks put in {into} elements in all and take out {out}: some rank's splits disagree"
    ),
    # a hang over
    "hang_over": "the hang is over",
    "went_on_past": "group {group} went on past #{seq}",
    "reports_again": "{ranks} caught up: it reports again after {s} s",
    "caught_up": "{ranks} caught up: {what} went on after {s} s",
    "ended_in_deadlock": "{ranks} ended in the deadlock",
    "went_in_deadlock": "{ranks} went in the deadlock",
    "deadlock_over": "the deadlock of {ranks} is over",
    "never_completed": "{what} never completed: {said}",
    "ranks_ended": "{ranks} ended",
    "ranks_went": "{ranks} went",
    # a rank's coming and going, the job's end
    "came_back": "{rank} came back: watching again",
    "went_without_goodbye": (
        "{rank} went without a goodbye (killed by a signal, aborted, or its way to the server lost)"
    ),
    "stopped_by": "{rank} was stopped by {signal}{code}",
    "timed_out": "{rank} timed out{code}: {error}",
    "raised": "{rank} raised{code}: {error}",
    "exit_code": " (exit code {code})",
    "ended": "{rank} ended",
    "ended_with": "{rank} ended with exit code {code}",
    "job_done": "the job ended: done",
    "job_failed": "the job ended: failed",
    "job_lost": "the job ended: lost",
    # what a job may keep (bounds.py, service.py)
    "groups_dropped": (
        "{rank} named a process group beyond what a job keeps ({groups} groups, {ranks} ranks in all, "
        "each below the world size): it is dropped"
    ),
    "too_many_groups": "a rank named more group names than a job keeps ({n}): those past them are dropped",
    "too_many_ops": "a rank named more op names than a job keeps ({n}): those past them are dropped",
    "peer_beyond": "{rank} named a peer beyond the world of {n}: dropped",
    "links_full": "the job has {n} links: traffic on new ones is dropped",
    "trimmed": (
        "the job keeps its newest collectives up to {mb} MB: older ones are dropped from the list as "
        "new ones come (the totals count every one)"
    ),
    # a job's dumps (postmortem/judge.py)
    "left_no_dump": "{ranks} left no dump",
    "dumps_unread": "the dumps past {mb} MB were not read: {ranks} judged as ranks that left none",
    "waits_in_group": "{ranks} waits in {what} of group {group}",
    "wait_in_group": "{ranks} wait in {what} of group {group}",
    "it_left_no_dump": "{ranks} left no dump: it has not been seen to issue it",
    "they_left_no_dump": "{ranks} left no dump: they have not been seen to issue it",
    "retired_without": (
        "at the dump their wait had ended, the collective retired without them (the backend's timeout "
        "or an abort)"
    ),
    # an event an older server kept only as text
    "text": "{text}",
}

T = TypeVar("T")
Arg = Union[int, str, "Phrase", list["Phrase"]]


class Phrase(BaseModel):
    """A key of ENGLISH (and of the page's tables) and what it names."""

    key: str
    args: dict[str, Arg] = {}


Phrase.model_rebuild()

SLOT = re.compile(r"\{(\w+)(,?)\}")


def said(key: str, **args: Arg | None) -> Phrase:
    """The phrase `key` (ENGLISH's) naming `args`; an argument of None is left out."""
    if key not in ENGLISH:
        raise KeyError(f"no phrase {key!r}")
    return Phrase(key=key, args={k: v for k, v in args.items() if v is not None})


def english(words: list[Phrase]) -> str:
    """The phrases in English, joined by "; "."""
    return "; ".join(render(p) for p in words)


def render(phrase: Phrase) -> str:
    def arg(m: re.Match[str]) -> str:
        value = phrase.args.get(m[1])
        if isinstance(value, Phrase):
            return render(value)
        if isinstance(value, list):
            return (", " if m[2] else "; ").join(render(p) for p in value)
        return "" if value is None else str(value)

    return SLOT.sub(arg, ENGLISH[phrase.key])


def each_of(items: Sequence[T], make: Callable[[T], Phrase], most: int = MAX_PHRASES) -> list[Phrase]:
    """The phrases of the first `most` items, and how many more there are (theirs are not made)."""
    made = [make(item) for item in items[:most]]
    return made + [said("more", n=f"{len(items) - most:,}")] * (len(items) > most)


def rank(r: int) -> Phrase:
    return said("rank", n=r)


def ranks(rs: list[int]) -> Phrase:
    """ "rank 3", "ranks 0, 1, 3"; more than MAX_NAMED ranks by their runs ("ranks 0–514, 516–4095"),
    so that the thousands that wait in a large job read in a line, and past MAX_RUNS runs counted."""
    if len(rs) == 1:
        return rank(rs[0])
    if len(rs) <= MAX_NAMED:
        return said("ranks", list=", ".join(map(str, rs)))
    spans = runs(sorted(rs))[:MAX_RUNS]
    listed = ", ".join(f"{a}–{b}" if b - a >= 2 else sep(a, b) for a, b in spans)
    more = len(rs) - sum(b - a + 1 for a, b in spans)
    return said("ranks_more", list=listed, more=f"{more:,}") if more else said("ranks", list=listed)


def sep(a: int, b: int) -> str:
    return str(a) if a == b else f"{a}, {b}"


def runs(rs: list[int]) -> list[tuple[int, int]]:
    """Sorted ranks as runs of consecutive ones, each (first, last)."""
    out: list[tuple[int, int]] = []
    for r in rs:
        if out and r == out[-1][1] + 1:
            out[-1] = (out[-1][0], r)
        else:
            out.append((r, r))
    return out
