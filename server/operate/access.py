"""The access log: a line for every request that may change something (any method but GET,
HEAD and OPTIONS: runs, cancels, polls and votes, trainings, benches) and for every websocket
(a rank joining, a watched job's rank, a viewer's page) as it opens and as it closes:

    2026-03-02T10:15:04.113+01:00 10.0.0.23 presenter POST /api/runs 202 0.004s
    2026-03-02T10:15:09.870+01:00 10.0.0.41 viewer POST /api/polls/p-000003/votes 202 0.001s
    2026-03-02T10:16:00.021+01:00 127.0.0.1 worker WS /ws/worker 101 0.002s
    2026-03-02T11:40:12.540+01:00 127.0.0.1 worker WS-CLOSE /ws/worker 1000 5052.519s

Each says when, from which address, who by the kind of token it carried (presenter, worker,
viewer; `wrong` for one that matches none, `none` for none: never the token itself), what (the
method, or WS for a socket's handshake and WS-CLOSE for its end; the path without its query,
which may carry a token), the outcome (the HTTP status, `-` if the client left before an answer;
a socket's close code) and how long it took. The door's refusals (a foreign Host, a missing
token, a body too large) are answers like any other and are logged; a connection closed before
it made a request (a cap, a deadline) is not, and is counted on /metrics instead.

Lines are written by a thread of their own into a file rotated by size, so the event loop never
waits on the disk; if the disk falls MAX_WAITING lines behind, later lines are dropped and
counted (`ringside_access_log_dropped_total`)."""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from datetime import datetime
from logging.handlers import RotatingFileHandler
from pathlib import Path
from urllib.parse import quote

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ringside.server.config import Settings
from ringside.server.door.auth import role_of, token_of

READS = frozenset({"GET", "HEAD", "OPTIONS"})  # change nothing: not logged
MAX_WAITING = 10_000  # lines waiting for the disk
MAX_PATH = 200  # characters of a path a line repeats
CLOSE_WITHIN_S = 5.0  # a stopping server waits this long for the lines not yet written
STDERR = "-"


class AccessLog:
    """Lines handed to a thread that writes them: to `where` (rotated past `max_bytes`, `keep` older
    files kept beside it as where.1 .. where.N), or to stderr for "-"."""

    def __init__(self, where: str, max_bytes: int, keep: int):
        handler: logging.Handler
        if where == STDERR:
            handler = logging.StreamHandler(sys.stderr)
        else:
            Path(where).parent.mkdir(parents=True, exist_ok=True)
            handler = RotatingFileHandler(where, maxBytes=max_bytes, backupCount=keep, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        self.handler = handler
        self.lines: queue.Queue[str | None] = queue.Queue(MAX_WAITING)
        self.dropped = 0
        self.thread = threading.Thread(target=self._write_all, name="ringside-access-log", daemon=True)
        self.thread.start()

    def write(self, line: str) -> None:
        try:
            self.lines.put_nowait(line)
        except queue.Full:
            self.dropped += 1

    def close(self) -> None:
        """Write what waits (CLOSE_WITHIN_S at most), then stop."""
        try:
            self.lines.put(None, timeout=CLOSE_WITHIN_S)
        except queue.Full:
            return  # the disk is stuck: the thread is a daemon, the process ends without it
        self.thread.join(CLOSE_WITHIN_S)
        self.handler.close()

    def _write_all(self) -> None:
        while (line := self.lines.get()) is not None:
            self.handler.handle(logging.LogRecord("ringside.access", logging.INFO, "", 0, line, None, None))


def who(scope: Scope, settings: Settings) -> str:
    """The kind of token a request carried; never the token."""
    conn = HTTPConnection(scope)
    if token_of(conn) is None:
        return "none"
    role = role_of(conn, settings)
    if role in ("presenter", "worker"):
        return role
    # with no viewer token configured anyone may watch, and any other token reads as a viewer's
    return "viewer" if role == "viewer" and settings.viewer_token is not None else "wrong"


def line(scope: Scope, settings: Settings, method: str, outcome: object, began: float) -> str:
    client = scope.get("client")
    path = quote(scope["path"], safe="/-._~!$&'()*+,;=:@")[:MAX_PATH]  # no space or newline can forge a line
    when = datetime.now().astimezone().isoformat(timespec="milliseconds")
    took = time.monotonic() - began
    return (
        f"{when} {client[0] if client else '-'} {who(scope, settings)} {method} {path} {outcome} {took:.3f}s"
    )


class Access:
    """Middleware, outside the door's guard (whose refusals it logs too), writing to the app's
    `access_log` (made in the lifespan)."""

    def __init__(self, app: ASGIApp, settings: Settings):
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        log: AccessLog | None = getattr(scope["app"].state, "access_log", None)
        if log is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._socket(log, scope, receive, send)
        elif scope["method"] in READS:
            await self.app(scope, receive, send)
        else:
            await self._request(log, scope, receive, send)

    async def _request(self, log: AccessLog, scope: Scope, receive: Receive, send: Send) -> None:
        began, status = time.monotonic(), "-"

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = str(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            status = "500" if status == "-" else status
            raise
        finally:
            log.write(line(scope, self.settings, scope["method"], status, began))

    async def _socket(self, log: AccessLog, scope: Scope, receive: Receive, send: Send) -> None:
        began, opened, code = time.monotonic(), False, 1006  # 1006: it went without a close frame

        async def sending(message: Message) -> None:
            nonlocal opened, code
            kind = message["type"]
            if kind == "websocket.accept":
                opened = True
                log.write(line(scope, self.settings, "WS", 101, began))
            elif kind == "websocket.close" and not opened:  # refused at the handshake: uvicorn answers 403
                log.write(line(scope, self.settings, "WS", 403, began))
            elif kind == "websocket.close":
                code = message.get("code", 1000)
            elif kind == "websocket.http.response.start":  # refused with a body (the guard's)
                log.write(line(scope, self.settings, "WS", message["status"], began))
            await send(message)

        async def receiving() -> Message:
            nonlocal code
            message = await receive()
            if message["type"] == "websocket.disconnect" and code == 1006:
                code = message.get("code", 1005)
            return message

        try:
            await self.app(scope, receiving, sending)
        finally:
            if opened:
                log.write(line(scope, self.settings, "WS-CLOSE", code, began))
