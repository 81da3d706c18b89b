"""The websockets: /ws for viewers (they listen; messages.py says what they hear; the
presenter's page alone also says what it shows, which every viewer then hears) and
/ws/worker for ranks (a hello, then events). A malformed frame closes
only its own connection, with a code and a reason; it never reaches the hub. A peer
that goes at any moment (during the handshake, the hello, a send) is routine: the
handler ends quietly, nothing is logged as an error."""

from __future__ import annotations

import asyncio
import json

from fastapi import APIRouter
from pydantic import TypeAdapter, ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.door.auth import origin_allowed, role_of, settings_of
from ringside.server.door.errors import first_error
from ringside.server.door.guard import bounded
from ringside.server.viewers.fanout import close
from ringside.server.viewers.messages import PresenterMessage
from ringside.worker_agent.core.protocol import EVENT, PROTOCOL_VERSION, Hello, no_constant

HELLO_TIMEOUT_S = 10.0
POLICY, UNSUPPORTED, INVALID, CONFLICT = 1008, 1003, 1007, 4409
PINGS = ('{"type":"ping"}', '{"type": "ping"}')
# a presenter frame is about 80 bytes, 400 at most with every id it may name (messages.py)
MAX_VIEW_FRAME = 512

router = APIRouter()


@router.websocket("/ws")
async def viewer_socket(ws: WebSocket):
    settings, hub = settings_of(ws), ws.app.state.hub
    role = role_of(ws, settings)
    if role is None or not origin_allowed(ws, settings):
        await close(ws, POLICY, "a viewer token is needed" if role is None else "origin not allowed")
        return
    if not await accept(ws):
        return
    viewer = hub.fanout.add(ws)
    snapshot = hub.snapshot("presenter" if role == "presenter" else "viewer")
    snapshot.presenter = hub.fanout.presenter  # a late joiner follows the presenter at once
    held = snapshot.current and role != "presenter" and ws.app.state.polls.holding(snapshot.current)
    if held:  # a poll is open about the run on stage: a viewer reads it as GET /api/runs/{id} gives it
        snapshot.current = None
    viewer.offer(snapshot.model_dump_json())
    pump = asyncio.create_task(viewer.pump())
    if role == "presenter":
        hub.fanout.presenter_joined()  # left in `finally`
    try:
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("text") in PINGS:
                continue
            refused = lead(hub, role, message.get("text"))
            if refused:
                await close(ws, *refused)
                break
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.fanout.remove(viewer)
        if role == "presenter":
            hub.fanout.presenter_left()
        viewer.offer_stop()
        await asyncio.gather(pump, return_exceptions=True)


@router.websocket("/ws/worker")
async def worker_socket(ws: WebSocket):
    hub = ws.app.state.hub
    hello = await worker_hello(ws)
    if hello is None:
        return
    problem = hub.cluster.conflict(hello)
    if problem:
        await close(ws, CONFLICT, problem)
        return
    hub.worker_joined(hello, ws)
    try:
        async for event in events(ws, hello):
            hub.on_event(event)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.worker_left(hello.rank, ws)


async def worker_hello(ws: WebSocket, kind: type = Hello, adapter: TypeAdapter = EVENT):
    """The hello on a socket that needs the worker token (a rank's, or a watched job's rank's);
    None once the socket is closed."""
    if role_of(ws, settings_of(ws)) != "worker" or not origin_allowed(ws, settings_of(ws)):
        await close(ws, POLICY, "the worker token is needed")
        return None
    if not await accept(ws):
        return None
    return await receive_hello(ws, kind, adapter)


async def events(ws: WebSocket, hello, adapter: TypeAdapter = EVENT):
    """What a worker's socket says after its hello, each as the rank that said hello, until it
    goes; a frame refused closes the socket."""
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        try:
            event = parse_event(message, adapter)
            if event.rank != hello.rank:
                raise Refused(POLICY, f"rank {hello.rank} sent an event as rank {event.rank}")
            if isinstance(event, type(hello)):
                raise Refused(POLICY, f"rank {hello.rank} said hello already")
        except Refused as refused:
            await close(ws, refused.code, refused.reason)
            return
        yield event
        # let the viewers' senders run between events: a burst from a rank must not starve them
        await asyncio.sleep(0)


def lead(hub, role: str, text: str | None) -> tuple[int, str] | None:
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
    if role != "presenter":
        return POLICY, "only the presenter leads the audience's view: this socket has no presenter token"
    try:
        view = PresenterMessage.model_validate(raw)
    except ValidationError as e:
        err = first_error(e.errors())
        return INVALID, f"malformed presenter frame: {err['field']}: {err['message']}"
    steps = hub.fanout.steps_of(view.run_id)  # the run on show, read once (not once per arrow key)
    if steps is None:
        run = hub.runs.find(view.run_id)
        if run is None:
            return None
        steps = len(run.steps)
    if view.step > steps:  # one past the last: a run that averages shows its division by P after it
        return INVALID, (
            f"malformed presenter frame: step: run {view.run_id} has {steps} steps, not {view.step + 1}"
        )
    hub.fanout.lead(view, steps)
    return None


async def accept(ws: WebSocket) -> bool:
    """Whether the peer was still there to be accepted."""
    try:
        await ws.accept()
        return True
    except (WebSocketDisconnect, RuntimeError, OSError):
        return False


async def receive_hello(ws: WebSocket, kind: type = Hello, adapter: TypeAdapter = EVENT):
    """The first frame, which must be a `kind` (one of `adapter`'s); None once the socket is closed."""
    try:
        message = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT_S)
    except asyncio.TimeoutError:
        await close(ws, POLICY, "no hello within 10 s")
        return None
    except (WebSocketDisconnect, RuntimeError, OSError):
        return None
    if message["type"] == "websocket.disconnect":
        return None  # it left before saying hello: nobody to answer
    try:
        event = parse_event(message, adapter)
        if not isinstance(event, kind):
            raise Refused(POLICY, f"the first message must be a {kind.model_fields['type'].default}")
    except Refused as refused:
        await close(ws, refused.code, refused.reason)
        return None
    return event


class Refused(Exception):
    """A frame that closes its socket: the close code and the reason (a close reason holds 123 bytes)."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason[:120]


def parse_event(message: dict, adapter: TypeAdapter = EVENT):
    """The event a worker's frame holds (one of `adapter`'s), or Refused: 1007 for a malformed
    one, 1008 for another protocol."""
    text = message.get("text")
    if text is None:
        raise Refused(INVALID, "malformed frame: events are JSON text")
    try:
        raw = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        raise Refused(
            INVALID,
            'malformed frame: not JSON (NaN and Infinity are not: a rank says "nan", "inf"), '
            "or nested too deeply",
        ) from None
    if isinstance(raw, dict) and raw.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise Refused(POLICY, f"protocol version {bounded(repr(raw.get('v')), 20)} is not {PROTOCOL_VERSION}")
    try:
        return adapter.validate_python(raw)
    except ValidationError as e:
        err = first_error(e.errors())
        raise Refused(INVALID, f"malformed event: {err['field']}: {err['message']}") from None
