"""Hangs of a watched job, named while they last: four times a second the job's hang now
(verdicts.py) is set beside the last one, and what changed is said: the new hang's words, after
what became of the old one's blamed ranks (catch_up.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ringside.server.watched.catch_up import hang_end_words
from ringside.server.watched.record import Hang
from ringside.server.watched.verdicts import current_hang
from ringside.server.watched.words import Phrase, said

if TYPE_CHECKING:
    from ringside.server.watched.live import LiveWatchedJob


def hang_change(live: LiveWatchedJob) -> tuple[Hang | None, list[Phrase]] | None:
    """A hang that began or ended since the last check, kept as the job's and noted in its events:
    (the hang or None, what to say); None if nothing changed."""
    hang = current_hang(live)
    old = live.job.hang
    if hang is None and old is None:
        return None
    if (
        hang is not None
        and old is not None
        and (hang.kind, hang.group, hang.seq, hang.late) == (old.kind, old.group, old.seq, old.late)
    ):
        live.job.hang = hang  # the same hang, longer (its words may say more: a silence)
        return None
    live.job.hang = hang
    ended = hang_end_words(live, old, hang) if old is not None else None
    words = [*([ended] if ended else []), *(hang.words if hang is not None else [])] or [said("hang_over")]
    live.note(words)
    return hang, words
