"""Below HTTP: what a connection may hold before any route sees it. uvicorn bounds a
body's size (guard.py does) but not the time a client takes to send its request's
headers, nor how many connections one address keeps open, nor a websocket frame by the
route it is for. Three bounds an anonymous client could otherwise push past:

- the headers of every request arrive within HEADERS_WITHIN_S (`serve --headers-within`) of
  the connection (or of the last response on a kept-alive one), or the connection is closed;
- one client address holds at most MAX_PER_CLIENT connections at once, and all clients together
  fewer than the process has files (files.py sizes both from the open-file limit); a viewer's
  socket (/ws) whose token lets it watch is a page of a hall instead, up to MAX_HALL of them from
  one address: a lecture hall behind one NAT address is hundreds of phones, each holding one, and
  an address past its hall counts its pages as any connection (a flood is bounded by both);
- a websocket takes frames of at most MAX_VIEWER_FRAME bytes (a viewer sends a ping or the
  presenter's view), refused as the frame's header says its length, before any of it is
  buffered; a rank's, on the path the router reads as a rank's socket, up to MAX_FRAME;
- a websocket message begun arrives whole within MESSAGE_WITHIN_S (`serve --message-within`),
  or the connection is closed: a frame left unfinished held what had come of it (up to
  MAX_FRAME) for ever;
- a ping is answered only while the peer reads what it is sent: uvicorn wrote every pong
  whatever its write buffer held, so a viewer that sent pings and read nothing grew that buffer
  by what it sent (600 MB in 40 s from one anonymous socket), held until it hung up;
- a long message to a viewer's socket leaves in fragments, each once the transport has room: uvicorn wrote
  it whole, and each socket that read nothing held a copy of a run's megabytes; its frames are made once
  for every viewer, uncompressed (a hall's 300 phones each had their own copy deflated);
- a websocket whose peer answers no keepalive ping in time is dropped at once: uvicorn closed it
  gracefully, which waits until the peer reads what is buffered for it, and one that reads nothing
  held its socket, its buffer and its handler for as long as it liked (256 from one address: 53 MB);
- a refusal says nothing in the log: uvicorn wrote a traceback for each text message that was
  not UTF-8, an ERROR line for each handshake refused with a body (a foreign Host), and a
  WARNING for each request h11 could not parse (answered 400), so an anonymous client could
  fill the log at a line or a traceback a connection.

These are uvicorn's own protocol classes (h11 and websockets' sans-I/O), each with a
few lines more, given to uvicorn.Config as `http` and `ws` (`protocols`). What they hold and
refuse is counted for /metrics (`seen`): connections by address and by kind (a request's, or a
socket's by the route it is for), and refusals by reason."""

from __future__ import annotations

import asyncio
import codecs
import functools
import logging
from collections import Counter
from collections.abc import Callable
from typing import cast
from urllib.parse import parse_qsl, unquote

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode

from ringside.server.door import files
from ringside.server.door.reclaim import Reclaim

HEADERS_WITHIN_S = 10.0
MAX_PER_CLIENT = 256
MAX_HALL = 2048  # audience pages from one address (a hall behind NAT), files allowing (files.py)
MAX_FRAME = 16 << 20  # a worker's frame beyond this is refused (close 1009)
MAX_VIEWER_FRAME = 4096  # a viewer's: the presenter's view is at most 512 bytes (viewers/socket.py)
MESSAGE_WITHIN_S = 30.0  # a rank's largest frame (a bench's table) crosses a 10 Mbit/s link in 14 s
QUEUED = 2  # messages a socket holds for its route (each within its frame bound) before reading pauses
PING_EVERY_S = 20.0  # uvicorn's own: a websocket that answers no ping within as long is dropped
# a text message longer than this (characters) leaves in fragments of as many bytes, each once the
# transport is below its high-water mark (a peer that reads nothing holds one fragment, not the message)
FRAGMENT = 16 << 10
# the sockets a rank speaks on, and `ringside open` (the worker token checked)
WORKER_PATHS = frozenset({"/ws/worker", "/ws/watch", "/ws/dumps"})
# a socket's kind by its path (the router's reading); any other path is no route: "other"
SOCKET_KINDS = {"/ws": "viewer", "/ws/worker": "worker", "/ws/watch": "watch", "/ws/dumps": "dumps"}
# why a websocket was closed as its frames were parsed, by the close code sent
CLOSED_FOR = {1009: "frame_too_large", 1007: "not_utf8"}
# why a connection was closed unserved (`seen`): past a cap, a deadline, a frame refused
REFUSALS = (
    "per_address",
    "in_all",
    "headers_late",
    "message_late",
    "ping_unanswered",
    *CLOSED_FOR.values(),
    "bad_frame",
)


class Held:
    """Connections held from clients, per address, per kind ("http" until it becomes a socket) and in all;
    of an address's, those that are pages of its hall (`hall`), which its cap does not count."""

    def __init__(self) -> None:
        self.by_address: Counter[str] = Counter()
        self.hall: Counter[str] = Counter()
        self.by_kind: Counter[str] = Counter()
        self.in_all = 0

    def refuses(self, address: str, caps: files.Caps) -> bool:
        return self.past_address(address, caps) or self.in_all >= caps.in_all

    def past_address(self, address: str, caps: files.Caps) -> bool:
        """Whether `address` holds its cap's connections, its hall's pages not counted."""
        return self.by_address[address] - self.hall[address] >= caps.per_address

    def take(self, address: str) -> None:
        self.by_address[address] += 1
        self.by_kind["http"] += 1
        self.in_all += 1

    def retype(self, old: str, new: str) -> None:
        self.by_kind[old] -= 1
        self.by_kind[new] += 1

    def into_hall(self, address: str, caps: files.Caps) -> bool:
        """A connection of `address` is a page of its hall now, if the hall has room (else it stays
        counted as any connection is)."""
        if self.hall[address] >= caps.hall:
            return False
        self.hall[address] += 1
        return True

    def give_back(self, address: str, kind: str, hall: bool = False) -> None:
        _less(self.by_address, address)
        if hall:
            _less(self.hall, address)
        self.by_kind[kind] -= 1
        self.in_all -= 1


def _less(counts: Counter[str], address: str) -> None:
    counts[address] -= 1
    if not counts[address]:
        del counts[address]  # an address that holds nothing is forgotten


_held = Held()  # this process serves one app
_caps = files.Caps(0, 1 << 30, MAX_PER_CLIENT, files.BACKLOG, MAX_HALL)  # sized at start (protocols)
_refusals = files.Refusals()
_reclaim = Reclaim()
_refused: Counter[str] = Counter(dict.fromkeys(REFUSALS, 0))  # closed unserved since the server started


def seen() -> tuple[Held, Counter[str], files.Caps]:
    """What /metrics reads of the door: the connections held, those refused by reason, the caps."""
    return _held, _refused, _caps


class _QuietRefusals(logging.Filter):
    """Drops uvicorn's WARNING for a request h11 cannot parse: the client gets its 400 all the same."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "Invalid HTTP request received."


_QUIET = _QuietRefusals()


def _address(protocol) -> str | None:
    """The client's address; None for a peer without one (a Unix socket's)."""
    return protocol.client[0] if protocol.client else None


def _release(protocol) -> None:
    """The connection is gone: its address, and its kind, hold one fewer, and its memory will be
    reclaimed."""
    if protocol.counted is not None:
        _held.give_back(protocol.counted, protocol.kind, protocol.in_hall)
        protocol.counted = None
    _reclaim.closed_one(protocol.loop)


class Deadline:
    """A connection's timer: when it runs out while `overdue()` holds, the connection is closed (and
    counted as refused for `reason`)."""

    def __init__(self, protocol, overdue: Callable[[], bool], reason: str):
        self.protocol, self.overdue, self.reason = protocol, overdue, reason
        self.timer: asyncio.TimerHandle | None = None

    @property
    def armed(self) -> bool:
        return self.timer is not None

    def arm(self, seconds: float) -> None:
        """Start it again from now."""
        self.disarm()
        if not self.protocol.transport.is_closing():
            self.timer = self.protocol.loop.call_later(seconds, self._run_out)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _run_out(self) -> None:
        self.timer = None
        if self.overdue() and not self.protocol.transport.is_closing():
            _refused[self.reason] += 1
            self.protocol.transport.close()


class BoundedHTTP(H11Protocol):
    """h11 with a deadline on each request's headers and a cap on connections per address."""

    counted: str | None = None
    kind = "http"
    in_hall = False
    within_s = HEADERS_WITHIN_S

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.headers_due = Deadline(self, lambda: self.conn.their_state is h11.IDLE, "headers_late")
        address = _address(self)
        if address is not None and _held.refuses(address, _caps):
            transport.close()  # refused before a byte is read; the client sees the connection reset
            _refusals.add(_caps)
            _refused["per_address" if _held.past_address(address, _caps) else "in_all"] += 1
            return
        if address is not None:
            self.counted = address
            _held.take(address)
        self.headers_due.arm(self.within_s)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self.headers_due.disarm()
        elif not self.headers_due.armed:  # a request begun but its headers not complete
            self.headers_due.arm(self.within_s)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # the next request's headers have their own deadline (keep-alive's idle timer may be off)
        self.headers_due.arm(self.within_s)

    def connection_lost(self, exc: Exception | None) -> None:
        self.headers_due.disarm()
        _release(self)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.headers_due.disarm()
        counted, self.counted = self.counted, None  # the websocket holds the connection now, and the count
        super().handle_websocket_upgrade(event)
        # uvicorn made the protocol from `protocols()`' ws class: a BoundedWebSocket
        cast(BoundedWebSocket, self.transport.get_protocol()).take_over(counted)


class BoundedWebSocket(WebSocketsSansIOProtocol):
    """websockets' sans-I/O protocol whose largest frame depends on the route (a viewer's is
    small), and whose messages, once begun, must end in time."""

    counted: str | None = None  # handed over by the HTTP connection it was upgraded from
    kind = "http"  # counted as the request it came as, until its path says which socket it is
    socket_kind: str | None = None  # which socket its path is for, once read
    in_hall = False  # counted as a page of its address's hall (Held.into_hall)
    hall_page = False  # a viewer's socket whose token lets it watch, once read
    # whether a token lets a page watch (auth.py's rule, given by `protocols`); none: no page is a hall's
    watches: Callable[[str | None], bool] = staticmethod(lambda token: False)
    within_s = MESSAGE_WITHIN_S
    _read_paused = False
    taken = 0  # messages the route has taken
    graced = 0  # `taken` when a late pong was last forgiven (keepalive_timeout)
    arriving = False  # bytes of an unfinished message came since the pong was last due

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # for the message in progress; not while reading waits for the route (_resumed)
        self.message_due = Deadline(self, self._late, "message_late")

    def handle_connect(self, event) -> None:
        # the path as the router sees it (uvicorn unquotes it so), and a rank's bound for a rank's paths
        # alone: chosen on the raw path, /%77s reached the viewers' socket with a rank's bound
        path = unquote(event.path.partition("?")[0])
        self.conn.max_message_size = MAX_FRAME if path in WORKER_PATHS else MAX_VIEWER_FRAME
        self.socket_kind = SOCKET_KINDS.get(path, "other")
        self.hall_page = self.socket_kind == "viewer" and self.watches(_token(event))
        self._count_as_socket()
        super().handle_connect(event)

    def take_over(self, counted: str | None) -> None:
        """The count of the connection it was upgraded from (uvicorn reads the path before this)."""
        self.counted = counted
        self._count_as_socket()

    def _count_as_socket(self) -> None:
        if self.counted is not None and self.socket_kind is not None and self.kind != self.socket_kind:
            _held.retype(self.kind, self.socket_kind)
            self.kind = self.socket_kind
            self.in_hall = self.hall_page and _held.into_hall(self.counted, _caps)

    @property
    def read_paused(self) -> bool:
        """uvicorn pauses reading after each message until the route takes it, two epoll calls a
        message (an eighth of a server reading 4,096 ranks' reports). Here reading pauses only once
        QUEUED messages wait: below that uvicorn is told it is paused already, so it does not pause,
        and its resume of a transport that reads does nothing."""
        return self._read_paused or self.queue.qsize() < QUEUED

    @read_paused.setter
    def read_paused(self, paused: bool) -> None:
        self._read_paused = paused

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self._unfinished():
            self.message_due.disarm()
            return
        self.arriving = True
        if not self.message_due.armed:
            self.message_due.arm(self.within_s)

    def send_receive_event_to_app(self) -> None:
        """As uvicorn's, but a text message that is not UTF-8 closes its socket with 1007 quietly
        (uvicorn logged a traceback for each)."""
        if self.curr_msg_data_type == "text" and not _utf8(self.frames):
            self.frames = []
            self.conn.send_close(1007, "a text message must be UTF-8")
            self.handle_parser_exception()
            return
        super().send_receive_event_to_app()

    async def send(self, message) -> None:
        text = message.get("text") if message["type"] == "websocket.send" else None
        if (
            text is not None
            and len(text) > FRAGMENT
            and self.socket_kind == "viewer"  # one sender (fanout.py's pump): no message comes between
            and self.handshake_complete
            and not self.close_sent
        ):
            await self._send_in_fragments(text)
            return
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # answered (guard.py's refusal): else uvicorn logs an ERROR

    async def _send_in_fragments(self, text: str) -> None:
        """A long text message in frames of FRAGMENT bytes, each written once the transport has room.
        uvicorn wrote a message whole: a run's, megabytes, was copied into the transport of every
        viewer that read nothing, and held there (64 such sockets from one address: 67 MiB)."""
        for frame in _frames(text):
            await self.writable.wait()
            if self.disconnected or self.close_sent or self.transport.is_closing():
                raise ClientDisconnected()  # gone or closing meanwhile (a ping unanswered, dropped)
            self.transport.write(frame)

    def handle_parser_exception(self) -> None:
        """As uvicorn's, counted by why (the close code sent: a frame too large, text not UTF-8)."""
        sent = self.conn.close_sent
        _refused[CLOSED_FOR.get(sent.code, "bad_frame") if sent is not None else "bad_frame"] += 1
        super().handle_parser_exception()

    async def receive(self):
        paused = self._read_paused
        message = await super().receive()
        self.taken += 1
        if paused and not self._read_paused:
            self._resumed()
        return message

    def _resumed(self) -> None:
        """Reading goes on after waiting for the route to take QUEUED messages: the peer's deadlines
        start again from now. Its message's rest and its pong wait unread behind what the route had
        not taken, so time the server spent on its own backlog is not the peer's: a rank's dumps of
        3 MiB frames, each taking a loaded server seconds to judge, were dropped for a late pong."""
        if self._unfinished():
            self.message_due.arm(self.within_s)
        if self.pong_timer is not None and self.ping_timeout is not None:
            self.pong_timer.cancel()
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)

    def keepalive_timeout(self) -> None:
        """As uvicorn's (close 1011), then the transport is dropped, not drained: a peer that answers no
        ping reads nothing, and a graceful close waited for it to read what was buffered for ever. Not
        while the pong cannot have come yet: reading waits for a route that takes messages (the pong
        may be among what is unread, _resumed), or a message is still arriving (its pong can only
        follow its last byte; MESSAGE_WITHIN_S bounds how long it takes)."""
        progress = self.taken > self.graced if self._read_paused else self.arriving and self._unfinished()
        if self.ping_timeout is not None and progress:
            # one more ping's time, as long as the route takes messages or the message comes: a route
            # that stopped reading (it waits on a send to a peer that reads nothing) holds no socket
            self.graced, self.arriving = self.taken, False
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.keepalive_timeout)
            return
        _refused["ping_unanswered"] += 1
        super().keepalive_timeout()
        self.transport.abort()

    def handle_ping(self) -> None:
        """Pong only while the write buffer is below its high-water mark (RFC 6455 lets a pong answer
        only the latest ping); a peer that reads none of our pongs would otherwise grow it unbounded."""
        if self.writable.is_set():
            super().handle_ping()
        else:
            self.conn.data_to_send()  # the pongs websockets queued: dropped, not buffered

    def connection_lost(self, exc: Exception | None) -> None:
        self.message_due.disarm()
        _release(self)
        super().connection_lost(exc)

    def _late(self) -> bool:
        return self._unfinished() and not self._read_paused

    def _unfinished(self) -> bool:
        """Whether a message has begun and not ended: part of a frame waits in websockets' reader,
        or a fragmented message awaits its last frame."""
        return bool(self.conn.reader.buffer) or self.conn.current_size is not None


@functools.lru_cache(maxsize=2)  # the message going out to every viewer now, and the one before
def _frames(text: str) -> tuple[bytes, ...]:
    """A long text message's frames as they go on the wire, made once for every viewer it goes to:
    a server's frames are not masked, and these are not compressed (RFC 7692 lets a message go so where
    compression was agreed, and the peer's inflater is not touched by it). Compressed, each socket
    deflated its own copy: a 160 KB run pushed to 300 phones held the loop for 1.5 to 2 s. Their
    bytes are what GET /api/runs/{id} sent each phone, uncompressed too."""
    data = text.encode()
    parts = [data[i : i + FRAGMENT] for i in range(0, len(data), FRAGMENT)]
    return tuple(
        Frame(Opcode.TEXT if i == 0 else Opcode.CONT, part, fin=i == len(parts) - 1).serialize(
            mask=False, extensions=[]
        )
        for i, part in enumerate(parts)
    )


def _token(request) -> str | None:
    """A websocket request's token as auth.token_of reads it: `Authorization: Bearer T`, else ?token=T."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return dict(parse_qsl(request.path.partition("?")[2], keep_blank_values=True)).get("token")


def _utf8(frames: list) -> bool:
    """Whether a message's frames are UTF-8 together (a character may span two); ASCII, as JSON from
    Python and browsers mostly is, is checked without decoding."""
    if all((f if isinstance(f, (bytes, bytearray)) else bytes(f)).isascii() for f in frames):
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for frame in frames:
            decoder.decode(frame)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def protocols(
    headers_within_s: float = HEADERS_WITHIN_S,
    message_within_s: float = MESSAGE_WITHIN_S,
    ping_every_s: float = PING_EVERY_S,
    watches: Callable[[str | None], bool] = lambda token: False,
) -> dict:
    """uvicorn.Config's protocol arguments: the bounded protocols with these deadlines, the backlog
    the open files allow (files.py), and a websocket pinged every `ping_every_s`, its answer due
    within as long (else it is dropped). `watches(token)`: whether a viewer's socket with that token
    is a page of a hall."""
    logging.getLogger("uvicorn.error").addFilter(_QUIET)  # once: a filter already there is not added again
    global _caps
    _caps = files.raised(MAX_PER_CLIENT, MAX_HALL)
    ws = {"within_s": message_within_s, "watches": staticmethod(watches)}
    return {
        "http": type("BoundedHTTP", (BoundedHTTP,), {"within_s": headers_within_s}),
        "ws": type("BoundedWebSocket", (BoundedWebSocket,), ws),
        "ws_max_size": MAX_FRAME,
        "ws_ping_interval": ping_every_s,
        "ws_ping_timeout": ping_every_s,
        "backlog": _caps.backlog,
    }
