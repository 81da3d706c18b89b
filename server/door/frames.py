"""A websocket's frames, below any feature: accepting a peer that may already have gone, the
hello a worker-token socket opens with, the events after it, and closing with a code and a
reason. A malformed frame closes only its own connection; it never reaches a service. A
peer that goes at any moment (the handshake, the hello, a send) is routine: the handler
ends quietly, nothing is logged as an error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from ringside.server.door.auth import origin_allowed, role_of, settings_of
from ringside.server.door.errors import first_error
from ringside.server.door.guard import bounded
from ringside.worker_agent.core.protocol import EVENT, PROTOCOL_VERSION, Hello, no_constant

HELLO_TIMEOUT_S = 10.0
CLOSE_WITHIN_S = 10.0  # to write a close frame: a peer that reads nothing may never let it out
POLICY, UNSUPPORTED, INVALID, CONFLICT, TOO_BIG = 1008, 1003, 1007, 4409, 1009
SMALL = 64 << 10  # a frame up to this is parsed on the event loop; any kind may be as large
# the kinds of frame that may be larger, and how large (the transport's cap is 16 MiB): a planned
# run's schedule and a bench's table are the largest a rank sends; a step of a run of 16,384 chunks
# is 2 MiB. A larger frame is refused before it is parsed: an 8 MiB step cost the loop 0.5 s.
LARGE = {"run_started": 16 << 20, "bench_finished": 16 << 20, "watch_report": 4 << 20}
LARGE.update(dict.fromkeys(("step", "run_finished", "train_step", "train_finished"), 4 << 20))
# `ringside open`'s: a world's ranks named; a rank's dump, 32 reports of 1,024 collectives at most
LARGE.update({"dumps_hello": 1 << 20, "dumped_rank": 16 << 20})
KIND = re.compile(r'"type"\s*:\s*"(\w{1,40})"')
HEAD = 256  # where a large frame names its kind: among its first keys, as every rank writes it


async def worker_hello(ws: WebSocket, kind: type[BaseModel] = Hello, adapter: TypeAdapter = EVENT):
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
            event = await parse_frame(message, adapter)
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


async def accept(ws: WebSocket) -> bool:
    """Whether the peer was still there to be accepted."""
    try:
        await ws.accept()
        return True
    except (WebSocketDisconnect, RuntimeError, OSError):
        return False


async def receive_hello(ws: WebSocket, kind: type[BaseModel] = Hello, adapter: TypeAdapter = EVENT):
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
        event = await parse_frame(message, adapter)
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


async def parse_frame(message: Mapping[str, Any], adapter: TypeAdapter = EVENT):
    """parse_event, for a frame past SMALL bytes only once its kind may be that large, and then in a
    thread: the loop goes on serving everyone else while it is parsed (the GIL is shared in 5 ms
    turns)."""
    text = message.get("text")
    if text is None or len(text) <= SMALL:
        return parse_event(message, adapter)
    kind = KIND.search(text, 0, HEAD)
    bound = LARGE.get(kind.group(1), SMALL) if kind else SMALL
    if len(text) > bound:
        what = f"a {kind.group(1)} frame" if kind else 'a frame that does not name its "type" first'
        raise Refused(TOO_BIG, f"{what} takes at most {bound >> 10} KiB")
    return await asyncio.to_thread(parse_event, message, adapter, kind.group(1) if kind else None)


def parse_event(message: Mapping[str, Any], adapter: TypeAdapter = EVENT, kind: str | None = None):
    """The event a worker's frame holds (one of `adapter`'s), or Refused: 1007 for a malformed
    one, 1008 for another protocol. `kind`: the type its head named (parse_frame), which a later
    key of the same name may not change."""
    text = message.get("text")
    if text is None:
        raise Refused(INVALID, "malformed frame: events are JSON text")
    event = well_formed(text, adapter) if kind is None else None
    if event is not None:
        return event
    try:
        raw = json.loads(text, parse_constant=no_constant)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        raise Refused(
            INVALID,
            'malformed frame: not JSON (NaN and Infinity are not: a rank says "nan", "inf"), '
            "or nested too deeply",
        ) from None
    if kind is not None and (not isinstance(raw, dict) or raw.get("type") != kind):
        raise Refused(INVALID, "malformed frame: it names its type twice")
    if isinstance(raw, dict) and raw.get("v", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        raise Refused(POLICY, f"protocol version {bounded(repr(raw.get('v')), 20)} is not {PROTOCOL_VERSION}")
    try:
        return adapter.validate_python(raw)
    except ValidationError as e:
        err = first_error(e.errors())
        raise Refused(INVALID, f"malformed event: {err['field']}: {err['message']}") from None


def well_formed(text: str, adapter: TypeAdapter):
    """The event a frame holds, read and validated in one pass by pydantic's own parser, with every
    value already of its field's type (strict): or None, and the frame is read as parse_event reads
    it, where that reading may differ or refuses it (NaN or Infinity, another version, a value the
    lax rules convert, a malformed frame). Read in two (json.loads, then validation), a watched
    rank's report cost twice as much, and a server reads thousands a second."""
    if "NaN" in text or "Infinity" in text:
        return None
    try:
        event = adapter.validate_json(text, strict=True)
    except ValidationError:
        return None
    return event if getattr(event, "v", PROTOCOL_VERSION) == PROTOCOL_VERSION else None


async def close(ws: WebSocket, code: int, reason: str) -> None:
    """Close, whatever state the socket is in: a peer that has gone is not an error. The
    reason is cut to the 123 bytes a close frame holds (bytes, not characters: a reason that
    names a client's non-ASCII field would otherwise break the frame)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError, TimeoutError):
        # a peer that reads nothing leaves the frame unwritten: the route goes on (the transport's
        # keepalive drops the peer)
        await asyncio.wait_for(ws.close(code, reason.encode()[:123].decode(errors="ignore")), CLOSE_WITHIN_S)
