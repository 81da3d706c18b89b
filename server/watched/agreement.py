"""Whether the ranks of a collective issued the same thing, by the op's rules (rules.py): each
rank's issue is compared with its first rank's as it comes; an all_to_all's sizes are kept until
every rank has issued it, then the elements all put in must be those all take out. The last
collective its ranks disagreed on is kept, with what each issued and what differed."""

from __future__ import annotations

from dataclasses import dataclass, field

from ringside.server.watched import rules
from ringside.server.watched.record import WatchedCollective, op_name
from ringside.server.watched.words import Phrase, render, said
from ringside.worker_agent.core.watch_protocol import Issued

Key = tuple[str, int]  # (group, seq)


@dataclass
class Disagreement:
    """A collective whose ranks issued different things (its `mismatch` says what each did)."""

    collective: WatchedCollective
    why: Phrase | None  # what differed
    whole: bool = False  # only all its ranks together are wrong (an all_to_all's splits): none singled out
    issued_as: dict[str, Phrase] = field(default_factory=dict)  # what a rank issued, in words -> its phrase


class Agreement:
    def __init__(self) -> None:
        self.agreed: dict[Key, rules.Signature] = {}  # open -> what its first rank issued
        self.puts: dict[Key, dict[int, tuple[int, int | None]]] = {}  # open all_to_all's sizes, by rank
        self.last: Disagreement | None = None

    def issued(self, collective: WatchedCollective, rank: int, one: Issued) -> None:
        """Whether `rank` issued what the collective's first rank did; once ranks disagree, what each
        issued."""
        key = (collective.group, collective.seq)
        mine = rules.signature(op_name(one.op), one)
        theirs = self.agreed.setdefault(key, mine)
        if mine != theirs or collective.mismatch:
            if not collective.mismatch:  # every rank before this one issued what the first did
                collective.mismatch = {r: theirs.words for r in collective.issued}
                self.last = Disagreement(collective, rules.difference(mine, theirs))
                self.last.issued_as[theirs.words] = theirs.phrase
            elif self.last is None or self.last.collective is not collective:  # another disagreed since
                self.last = Disagreement(collective, rules.difference(mine, theirs))
            collective.mismatch.setdefault(str(rank), mine.words)
            self.last.issued_as.setdefault(mine.words, mine.phrase)
        if collective.op in rules.BALANCED:
            self.puts.setdefault(key, {})[rank] = (one.count, one.count_out)

    def completed(self, collective: WatchedCollective) -> None:
        """Every rank issued it: whether its ranks' sizes together agree (an all_to_all's)."""
        puts = self.puts.get((collective.group, collective.seq), {})
        unbalanced = rules.unbalanced(collective.op, puts)
        if unbalanced and not collective.mismatch:
            said_ = {str(r): put_words(collective, i, o) for r, (i, o) in puts.items()}
            collective.mismatch = {r: render(p) for r, p in said_.items()}
            issued_as = {render(p): p for p in said_.values()}
            self.last = Disagreement(collective, unbalanced, whole=True, issued_as=issued_as)

    def forget(self, key: Key) -> None:
        """What is held of an open collective while it is open, let go."""
        self.agreed.pop(key, None)
        self.puts.pop(key, None)


def put_words(c: WatchedCollective, into: int, out: int | None) -> Phrase:
    """What one rank of an all_to_all put in and took out."""
    return said("issued_in_out", op=c.op, into=f"{into:,}", out=f"{out or 0:,}", dtype=c.dtype)
