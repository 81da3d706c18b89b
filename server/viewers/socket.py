"""/ws, the viewers' socket: they listen (messages.py says what they hear); the presenter's
page alone also says what it shows, which every viewer then hears. A joining page is sent
a snapshot first: the cluster, the queue and the run on stage as it stands, and an audience
page its ballot (polls/ballots.py), the one it brought back (?ballot=) if this server signed
it: the socket holds it while it is open, and a vote counts only with a ballot held."""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter, Depends
from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.cluster.cluster import Cluster
from ringside.server.cluster.workers import cluster_of
from ringside.server.door.auth import origin_allowed, role_of, settings_of
from ringside.server.door.errors import first_error
from ringside.server.door.frames import INVALID, POLICY, UNSUPPORTED, accept, close
from ringside.server.lecture.presenter import PresenterMessage, PresenterView, presenter_view_of
from ringside.server.polls.ballots import Ballots, ballots_of
from ringside.server.polls.visibility import Visibility, visibility_of
from ringside.server.runs.service import Runs, runs_of
from ringside.server.viewers.fanout import Fanout, fanout_of
from ringside.server.viewers.messages import SnapshotMessage

PINGS = ('{"type":"ping"}', '{"type": "ping"}')
# a presenter frame is about 80 bytes, 400 at most with every id it may name (messages.py)
MAX_VIEW_FRAME = 512

router = APIRouter()


SNAPSHOT_QUEUE = 32  # queued runs a joining viewer is told of, the next first; `queued` says how many in all


@router.websocket("/ws")
async def viewer_socket(
    ws: WebSocket,
    fanout: Fanout = Depends(fanout_of),
    runs: Runs = Depends(runs_of),
    cluster: Cluster = Depends(cluster_of),
    visibility: Visibility = Depends(visibility_of),
    ballots: Ballots = Depends(ballots_of),
    shown: PresenterView = Depends(presenter_view_of),
):
    settings = settings_of(ws)
    role = role_of(ws, settings)
    if role is None or not origin_allowed(ws, settings):
        await close(ws, POLICY, "a viewer token is needed" if role is None else "origin not allowed")
        return
    if not await accept(ws):
        return
    presenter = role == "presenter"
    viewer = fanout.add(ws, presenter)
    address = ws.client.host if ws.client else ""
    ballot = (
        None if presenter else ballots.take(ws.query_params.get("ballot"), address)
    )  # given back in `finally`
    viewer.offer(snapshot(presenter, runs, cluster, shown, visibility, ballot).model_dump_json())
    pump = asyncio.create_task(viewer.pump())
    if presenter:
        shown.joined()  # left in `finally`
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("text") in PINGS:
                continue
            refused = lead(shown, runs, presenter, message.get("text"))
            if refused:
                await close(ws, *refused)
                break
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        fanout.remove(viewer)
        if presenter:
            shown.left()
        if ballot is not None:
            ballots.give_back(ballot, address)
        viewer.offer_stop()
        await asyncio.gather(pump, return_exceptions=True)


def snapshot(
    presenter: bool,
    runs: Runs,
    cluster: Cluster,
    shown: PresenterView,
    visibility: Visibility,
    ballot: str | None,
) -> SnapshotMessage:
    """What a joining page is told first; a late joiner follows the presenter at once."""
    queued = visibility.queue(runs.queued(), presenter)
    return SnapshotMessage(
        role="presenter" if presenter else "viewer",
        cluster=cluster.to_json(),
        current=visibility.on_stage(runs.current(), presenter),
        queued=len(queued),
        queue=[r.summary() for r in queued[:SNAPSHOT_QUEUE]],
        recent=visibility.summaries([line.model_dump(mode="json") for line in runs.recent()], presenter),
        presenter=shown.view if presenter else visibility.view(shown.view),
        ballot=ballot,
    )


def lead(shown: PresenterView, runs: Runs, presenter: bool, text: str | None) -> tuple[int, str] | None:
    """A frame from a viewer's socket: the presenter's view, passed on to every viewer, or
    (close code, why) it is refused. A view of a run the server does not have is dropped:
    a page may show a run loaded from a file."""
    if text is None or len(text) > MAX_VIEW_FRAME:
        return UNSUPPORTED, 'viewers only listen (send nothing, or {"type":"ping"})'
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raw = None
    if not isinstance(raw, dict) or raw.get("type") != "presenter":
        return UNSUPPORTED, 'viewers only listen (send nothing, or {"type":"ping"})'
    if not presenter:
        return POLICY, "only the presenter leads the audience's view: this socket has no presenter token"
    try:
        view = PresenterMessage.model_validate(raw)
    except ValidationError as e:
        err = first_error(e.errors())
        return INVALID, f"malformed presenter frame: {err['field']}: {err['message']}"
    steps, run = shown.steps_of(view.run_id), None  # the run on show, read once (not once per arrow key)
    if steps is None:  # another run: pushed to every page with the view (lecture/presenter.py)
        run = runs.find(view.run_id)
        if run is None:
            return None
        steps = len(run.steps)
    if view.step > steps:  # one past the last: a run that averages shows its division by P after it
        return INVALID, (
            f"malformed presenter frame: step: run {view.run_id} has {steps} steps, not {view.step + 1}"
        )
    shown.lead(view, steps, run)
    return None
