"""/api/polls: the presenter asks a question with the run it is about (made and held, or there
already), closes voting and reveals the answer; any page that may watch reads a poll as the
room may see it, and a page connected to the lecture votes once, with its socket's ballot;
every page hears each poll and its tally over /ws (poll.py says what is asked, service.py
assembles what keeps them, ballots.py who may vote, visibility.py what the room may see)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query, Request

from ringside.server.door.auth import is_presenter, need_presenter, need_viewer
from ringside.server.door.errors import found
from ringside.server.polls import ballots
from ringside.server.polls.poll import Poll, PollRecord, PollState, Vote
from ringside.server.polls.questions import PollSpec
from ringside.server.polls.service import Polls, polls_of
from ringside.server.polls.visibility import Visibility, visibility_of

router = APIRouter(prefix="/api/polls")
watch, present = Depends(need_viewer), Depends(need_presenter)
PollId = Path(max_length=40)
Ballot = Query(None, pattern=ballots.PATTERN, description="this page's ballot: its vote is read back")


def read(record: PollRecord, ballot: str | None, visibility: Visibility, presenter: bool) -> dict:
    return {"poll": visibility.poll(record, presenter), "voted": record.voted(ballot)}


@router.post("", status_code=201, dependencies=[present])
async def ask(spec: PollSpec, polls: Polls = Depends(polls_of)) -> Poll:
    """The poll, as the presenter sees it: `running` while a run made for it runs held."""
    return await polls.asking.ask(spec)


@router.get("", dependencies=[watch])
async def list_polls(
    run_id: str = Query(max_length=40),
    polls: Polls = Depends(polls_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> dict:
    records = polls.book.of_run(run_id)
    if not presenter:
        records = [r for r in records if r.poll.state not in (PollState.RUNNING, PollState.FAILED)]
    return {"polls": [visibility.poll(r, presenter) for r in records]}


@router.get("/current", dependencies=[watch])
async def current_poll(
    ballot: str | None = Ballot,
    polls: Polls = Depends(polls_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> dict:
    """The newest poll this page may see, and its vote in it: what a page that (re)loads shows."""
    record = polls.book.newest(presenter)
    return read(record, ballot, visibility, presenter) if record else {"poll": None, "voted": None}


@router.get("/{poll_id}", dependencies=[watch])
async def get_poll(
    poll_id: str = PollId,
    ballot: str | None = Ballot,
    polls: Polls = Depends(polls_of),
    visibility: Visibility = Depends(visibility_of),
    presenter: bool = Depends(is_presenter),
) -> dict:
    return read(found(polls.book.find(poll_id), "poll", poll_id), ballot, visibility, presenter)


@router.post("/{poll_id}/votes", status_code=202, dependencies=[watch])
async def vote(request: Request, vote: Vote, poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> dict:
    record = polls.voting.vote(poll_id, vote, request.client.host if request.client else "")
    return {"counted": True, "votes": record.votes()}


@router.post("/{poll_id}/close", dependencies=[present])
async def close(poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> Poll:
    """Voting closes: every page sees the tally; the answer waits for the reveal."""
    return polls.voting.close(poll_id)


@router.post("/{poll_id}/reveal", dependencies=[present])
async def reveal(poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> Poll:
    return polls.voting.reveal(poll_id)
