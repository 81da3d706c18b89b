"""/ws/dumps, where `ringside open --server` brings a job's Flight Recorder dumps (with the worker
token, as a watched job's ranks come): the ranks it names, each in the watch's protocol and taken
into the job as it comes (judge.Dumped), then the answer, the job kept and its verdict. A frame out
of turn closes the socket and keeps nothing."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.door.frames import INVALID, POLICY, Refused, close, parse_frame, worker_hello
from ringside.server.postmortem.judge import Dumped, verdict
from ringside.server.watched.service import Watching, watching_of
from ringside.worker_agent.core.dump_protocol import DUMPS_MESSAGE, DumpedRank, DumpsHello, DumpsOpened

router = APIRouter()


@router.websocket("/ws/dumps")
async def dumps_socket(ws: WebSocket, watching: Watching = Depends(watching_of)):
    said = await worker_hello(ws, DumpsHello, DUMPS_MESSAGE)
    if said is None:
        return
    try:
        dumped = await _ranks(ws, said)
    except Refused as refused:
        await close(ws, refused.code, refused.reason)
        return
    except (WebSocketDisconnect, RuntimeError):
        return
    if dumped is None:
        return
    watched = watching.add(dumped.judged)
    answer = DumpsOpened(job=watched.job.id, hang=watched.job.hang is not None, verdict=verdict(watched))
    try:
        await ws.send_text(answer.model_dump_json())
    except (WebSocketDisconnect, RuntimeError, OSError):
        return
    await close(ws, 1000, "opened")


async def _ranks(ws: WebSocket, said: DumpsHello) -> Dumped | None:
    """Each rank the hello named, once, taken into the job as it comes; None if the peer went first."""
    if not said.ranks:
        raise Refused(INVALID, "no rank left a dump")
    if len(set(said.ranks)) != len(said.ranks) or max(said.ranks) >= said.world_size:
        raise Refused(INVALID, "the ranks must be distinct and below the world size")
    waited = set(said.ranks)
    dumped: Dumped | None = None
    while waited:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return None
        event = await parse_frame(message, DUMPS_MESSAGE)
        if not isinstance(event, DumpedRank):
            raise Refused(POLICY, "the hello was said already: ranks come next")
        rank = event.hello.rank
        if rank not in waited:
            raise Refused(POLICY, f"rank {rank} was not named, or came twice")
        dumped = dumped or Dumped(said, event.hello)
        if not _agrees(event, said, dumped):
            raise Refused(POLICY, f"rank {rank}'s hello or reports disagree with the job")
        waited.discard(rank)
        dumped.take(event, len(message.get("text") or ""))
    return dumped


def _agrees(event: DumpedRank, said: DumpsHello, dumped: Dumped) -> bool:
    """Whether a rank's dump is of the job: its world, the job's start (every rank's hello gives the
    dumps' earliest, which the job's times count from), and reports of its own rank alone."""
    first = dumped.w.job
    rank = event.hello.rank
    return (
        event.hello.world_size == said.world_size
        and event.hello.started_ns == first.t0_ns
        and all(r.rank == rank for r in event.reports)
    )
