"""/api/polls: the presenter opens a poll about a run and reveals it; any page that may
watch reads it and votes once; every page hears the poll and its tally over /ws
(poll.py says what is asked, service.py keeps them, visibility.py what they hide)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Path, Query, Request

from ringside.server.door.auth import need_presenter, need_viewer
from ringside.server.door.errors import found
from ringside.server.polls.poll import Poll, PollRecord, PollSpec, Vote
from ringside.server.polls.service import Polls, polls_of
from ringside.server.runs.service import Runs, runs_of

router = APIRouter(prefix="/api/polls")
watch, present = Depends(need_viewer), Depends(need_presenter)
PollId = Path(max_length=40)
Voter = Query(None, min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")


def voted(record: PollRecord, voter: str | None) -> int | None:
    return record.voters.get(voter) if voter else None


@router.post("", status_code=201, dependencies=[present])
async def open_poll(spec: PollSpec, runs: Runs = Depends(runs_of), polls: Polls = Depends(polls_of)) -> Poll:
    return polls.open(spec, found(runs.find(spec.run_id), "run", spec.run_id))


@router.get("", dependencies=[watch])
async def list_polls(run_id: str = Query(max_length=40), polls: Polls = Depends(polls_of)) -> dict:
    return {"polls": polls.of_run(run_id)}


@router.get("/current", dependencies=[watch])
async def current_poll(voter: str | None = Voter, polls: Polls = Depends(polls_of)) -> dict:
    """The newest poll, and this page's vote in it: what a page that (re)loads shows."""
    record = polls.newest()
    return {"poll": record.public() if record else None, "voted": voted(record, voter) if record else None}


@router.get("/{poll_id}", dependencies=[watch])
async def get_poll(
    poll_id: str = PollId, voter: str | None = Voter, polls: Polls = Depends(polls_of)
) -> dict:
    record = found(polls.find(poll_id), "poll", poll_id)
    return {"poll": record.public(), "voted": voted(record, voter)}


@router.post("/{poll_id}/votes", status_code=202, dependencies=[watch])
async def vote(request: Request, vote: Vote, poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> dict:
    record = polls.vote(poll_id, vote, request.client.host if request.client else "")
    return {"counted": True, "votes": len(record.voters)}


@router.post("/{poll_id}/reveal", dependencies=[present])
async def reveal(poll_id: str = PollId, polls: Polls = Depends(polls_of)) -> Poll:
    return polls.reveal(poll_id)
