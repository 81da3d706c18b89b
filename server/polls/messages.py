"""What every page hears of a poll over /ws: the poll as it changes, and its tally a burst of votes
at a time. The room hears each as it may read it (Poll.for_room)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel

from ringside.server.door.audience import Audience
from ringside.server.polls.poll import Poll


class PollMessage(BaseModel):
    """A poll asked, opened, closed, revealed or failed: the room hears it as Poll.for_room says."""

    audience: ClassVar[Audience] = Audience.ROOM_COPY
    type: Literal["poll"] = "poll"
    poll: Poll

    def for_room(self) -> PollMessage | None:
        room = self.poll.for_room()
        return None if room is None else PollMessage(poll=room)


class TallyMessage(BaseModel):
    """How many voted; what for, and how many pages are connected, to the presenter alone
    until voting closes (Poll.for_room: the room reads them in the poll then)."""

    audience: ClassVar[Audience] = Audience.ROOM_COPY
    type: Literal["tally"] = "tally"
    poll_id: str
    votes: int
    counts: list[int] | None = None
    typed: list[tuple[float, int]] | None = None
    median: float | None = None  # numeric: the middle of the numbers typed
    pages: int | None = None

    def for_room(self) -> TallyMessage:
        return self.model_copy(update={"counts": None, "typed": None, "median": None, "pages": None})
