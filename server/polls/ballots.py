"""A vote belongs to a page that is there: every audience page's /ws socket is handed a ballot
(a random id the server signs), and a vote counts only with a ballot some socket holds now. So
an id a script makes up votes not at all, and a hall behind one address votes whole, a page
each. A page keeps its ballot (localStorage) and brings it back when it reconnects: a reload,
or a second tab of the same browser, holds the same ballot and so the same one vote. The key
is kept in the store, so a restarted server knows the ballots it handed out before.

One page, one vote, behind one address too: a hall's Wi-Fi puts hundreds of phones behind one
address, so an address may cast in a poll as many votes as the most pages it held connected at
once during that poll (from its first vote on), and opening and closing pages gains nothing."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections import Counter, OrderedDict

from starlette.requests import HTTPConnection

ID_BYTES, SIGNATURE_BYTES = 12, 16
POLLS_WATCHED = 8  # polls whose per-address peaks are kept: the newest (one is open at a time)
# what a ballot looks like: its id and the server's signature of it, each base64url
PATTERN = r"^[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}$"


def _text(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


class Ballots:
    def __init__(self, key: bytes):
        self.key = key
        self.held: Counter[str] = Counter()  # ballot -> sockets that hold it now
        self.at: dict[str, Counter[str]] = {}  # address -> its ballots held now -> sockets
        self.peaks: OrderedDict[str, Counter[str]] = OrderedDict()  # poll -> address -> most pages

    def _sign(self, ballot_id: str) -> str:
        return _text(hmac.new(self.key, ballot_id.encode(), hashlib.sha256).digest()[:SIGNATURE_BYTES])

    def signed(self, ballot: str | None) -> bool:
        """Whether this server handed `ballot` out (now or before a restart)."""
        if not ballot or not re.fullmatch(PATTERN, ballot):
            return False
        ballot_id, signature = ballot.split(".")
        return hmac.compare_digest(signature.encode(), self._sign(ballot_id).encode())

    def take(self, kept: str | None, address: str = "") -> str:
        """The ballot a socket that just connected from `address` holds: the one its page kept, if
        this server signed it, else a new one."""
        ballot = kept if kept is not None and self.signed(kept) else self._new()
        self.held[ballot] += 1
        pages = self.at.setdefault(address, Counter())
        pages[ballot] += 1
        for peak in self.peaks.values():
            peak[address] = max(peak[address], len(pages))
        return ballot

    def _new(self) -> str:
        ballot_id = _text(secrets.token_bytes(ID_BYTES))
        return f"{ballot_id}.{self._sign(ballot_id)}"

    def give_back(self, ballot: str, address: str = "") -> None:
        """Its socket went."""
        self.held[ballot] -= 1
        if self.held[ballot] <= 0:
            del self.held[ballot]
        pages = self.at.get(address, Counter())
        pages[ballot] -= 1
        if pages[ballot] <= 0:
            del pages[ballot]
        if not pages:
            self.at.pop(address, None)

    def most(self, poll_id: str, address: str) -> int:
        """The most pages `address` held connected at once in this poll, since its first vote (the
        pages it holds then count from the start: a hall opens them before the question)."""
        peak = self.peaks.get(poll_id)
        if peak is None:
            peak = self.peaks[poll_id] = Counter({a: len(pages) for a, pages in self.at.items()})
            while len(self.peaks) > POLLS_WATCHED:
                self.peaks.popitem(last=False)
        return max(peak[address], len(self.at.get(address, ())))

    def there(self, ballot: str) -> bool:
        """Whether a socket holds this ballot now: its page is connected to the lecture."""
        return self.held.get(ballot, 0) > 0

    def pages(self) -> int:
        """Audience pages connected now, a ballot each (a browser's tabs share one)."""
        return len(self.held)


async def ballots_of(conn: HTTPConnection) -> Ballots:
    return conn.app.state.ballots
