"""The front door, before any route: is the request addressed to this server (its Host
header), may it post at all (the presenter's routes are checked before their body is
read), is its body small enough, and is that body JSON. A refusal is a small JSON body
{"detail": {"field", "message"}} that never repeats what was sent.

A method the path lacks is answered 405 with `Allow` (methods.py) before a token is checked or
a body read.

The Host check stops DNS rebinding: a page from evil.example whose name is made to
resolve to this server would otherwise read it as its own origin. The server answers
to loopback's names and addresses, to its --host and to the names given with
--allow-host; once it listens beyond loopback, also to any IP address and this
machine's name (a browser sends an address as Host only when its user typed it, and
no attacker controls this machine's name), as Jupyter Server does. The port is not
checked: a port forwarded by Docker or ssh arrives under another number."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import math
import re
import socket

from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from ringside.server.config import Settings, frontend_dir
from ringside.server.door.auth import host_name, need_presenter, refusal
from ringside.server.door.headers import SafeHeaders, policy
from ringside.server.door.methods import Methods
from ringside.worker_agent.core.protocol import no_constant

MAX_BODY = 1 << 20  # no presenter's route takes more: a run's spec is a few hundred bytes, a user's code more
# nor any other route (a vote): what an anonymous client holds is its connections times this
MAX_OPEN_BODY = 4096
MAX_DIGITS = 40
BODY_WITHIN_S = 10.0  # a body trickled in slower than this holds a connection (and a shutdown) for nothing
POLICY = 1008


def bounded(text: object, limit: int = 200) -> str:
    """`text` cut to at most `limit` characters: what an error message may repeat of its input."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


Routes = list[tuple[set[str], re.Pattern]]  # (methods, path pattern) of some routes


def install(app, settings: Settings) -> None:
    """Put the guard in front of every route (call once every route is included)."""
    routes = _api_routes(app.routes)
    presenter = [
        (r.methods, r.path_regex)
        for r in routes
        if any(d.dependency is need_presenter for d in r.dependencies)
    ]
    bodies = [(r.methods, r.path_regex) for r in routes if r.body_field is not None]
    app.add_middleware(
        Guard, settings=settings, presenter_only=presenter, bodies=bodies, methods=Methods(routes)
    )
    # outside the guard: its refusals carry them too
    app.add_middleware(SafeHeaders, csp=policy(frontend_dir() / "index.html"))


def matches(routes: Routes, method: str, path: str) -> bool:
    return any(method in methods and pattern.match(path) for methods, pattern in routes)


def _api_routes(routes) -> list[APIRoute]:
    """Every APIRoute, also inside included routers (FastAPI from 0.160 or so keeps an included
    router whole, as an `original_router`, where older versions copied its routes in)."""
    found = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif (included := getattr(route, "original_router", None)) is not None:
            found += _api_routes(included.routes)
    return found


def own_names(settings: Settings) -> set[str]:
    names = {"localhost", *(n.lower() for n in settings.allow_hosts)}
    if settings.host:
        names.add(settings.host.lower().strip("[]"))
    if not settings.loopback:
        names.add(socket.gethostname().lower())
    return names


def host_allowed(host: str | None, settings: Settings, names: set[str]) -> bool:
    name = host_name(host)
    if name is None:
        return False
    if name in names:
        return True
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return False
    return ip.is_loopback or not settings.loopback


def json_problem(body: bytes) -> str | None:
    """What makes `body` not JSON, in words of our own; None if it is JSON."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"the body is not UTF-8 (at byte {e.start})"
    try:
        json.loads(
            text,
            parse_constant=no_constant,
            parse_float=_finite,
            parse_int=_bounded,
            object_pairs_hook=_unique,
        )
    except RecursionError:
        return "the body is nested too deeply"
    except json.JSONDecodeError as e:  # its msg is json's own words, never the input
        return f"the body is not JSON: {e.msg} (line {e.lineno}, column {e.colno})"
    except ValueError as e:  # ours below (Python's own int-string limit is 4300 digits: ours comes first)
        return str(e)
    return None


def _unique(pairs: list[tuple[str, object]]) -> dict:
    """An object that names no key twice: which of two values counts is a guess no reader should make."""
    found = dict(pairs)
    if len(found) != len(pairs):
        twice = next(k for i, (k, _) in enumerate(pairs) if k in dict(pairs[:i]))
        raise ValueError(f"the body names {bounded(twice, 40)!r} twice in one object")
    return found


def _bounded(text: str) -> int:
    """An integer of a few dozen digits at most: no field takes one near that (a field's own check
    names it), and one of thousands costs whoever reads, multiplies or formats it."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"the body holds an integer of more than {MAX_DIGITS} digits")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("the body holds a number too large for a float")
    return value


def _declares_body(headers: Headers) -> bool:
    return headers.get("content-length", "0") not in ("", "0") or "transfer-encoding" in headers


def _json_expected(headers: Headers) -> bool:
    """Whether FastAPI would read this body as JSON (no content type, or a JSON one)."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    return not kind or kind == "application/json" or kind.endswith("+json")


class Guard:
    """`presenter_only`: the routes that declare the presenter's dependency, whose token is
    checked before their body is read; `bodies`: the routes that read a body, the only ones
    whose body is read at all (any other request that brings one is refused unread); `methods`:
    what each path takes."""

    def __init__(
        self, app: ASGIApp, settings: Settings, presenter_only: Routes, bodies: Routes, methods: Methods
    ):
        self.app, self.settings = app, settings
        self.presenter_only, self.bodies, self.methods = presenter_only, bodies, methods
        self.names = own_names(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        host = conn.headers.get("host")
        if not host_allowed(host, self.settings, self.names):
            why = (
                "a Host header is needed"
                if host is None
                else "this server does not answer to that name; start it with --allow-host NAME to add one"
            )
            await _refuse(scope, receive, send, 400 if host is None else 403, "host", why)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        allowed = self.methods.of(path)
        if method not in allowed:  # refused unread, whoever asks: no route would take it
            why = f"{bounded(path, 80)} takes {', '.join(allowed)}, not {bounded(method, 20)}"
            allow = [(b"allow", ", ".join(allowed).encode())]
            await _refuse(scope, receive, send, 405, "method", why, headers=allow)
            return
        if matches(self.presenter_only, method, path):
            problem = refusal(conn, self.settings, "presenter")
            if problem is not None:
                await _refuse(scope, receive, send, problem[0], "token", problem[1], drain=True)
                return
        if not matches(self.bodies, method, path):
            if _declares_body(conn.headers):  # refused unread: a stalled body on any path held memory
                await _refuse(
                    scope, receive, send, 413, "body", f"{method} {bounded(path, 80)} takes no body"
                )
            else:
                await self.app(scope, receive, send)
            return
        limit = MAX_BODY if matches(self.presenter_only, method, path) else MAX_OPEN_BODY
        body, status, why = await _read_body(conn.headers, receive, limit)
        if body is None:
            if status:  # too big: the client may still be sending it (a deadline passed: it is not)
                await _refuse(scope, receive, send, status, "body", why, drain=status == 413)
            return  # the client left
        if body and scope["path"].startswith("/api/") and _json_expected(conn.headers):
            undecodable = json_problem(body)
            if undecodable:  # 422, as FastAPI answers JSON it cannot decode
                await _refuse(scope, receive, send, 422, "body", undecodable)
                return
        await self.app(scope, _replay(body, receive), send)


async def _read_body(headers: Headers, receive: Receive, limit: int) -> tuple[bytes | None, int, str]:
    """The whole body, read here so no route ever reads more than `limit` bytes:
    (body, 0, "") or (None, status, why); (None, 0, "") if the client left."""
    try:  # wait_for, not asyncio.timeout: that is Python 3.11's, and 3.10 is supported
        return await asyncio.wait_for(_receive_body(headers, receive, limit), BODY_WITHIN_S)
    except asyncio.TimeoutError:
        return None, 408, f"the body did not arrive within {BODY_WITHIN_S:g} s"


async def _receive_body(headers: Headers, receive: Receive, limit: int) -> tuple[bytes | None, int, str]:
    too_big = (413, f"the body is over {limit} bytes")
    declared = headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            return None, 400, "Content-Length is not a number"
        if len(declared) > 12 or int(declared) > limit:
            return None, *too_big
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None, 0, ""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:  # a chunked body says nothing of its size beforehand
            return None, *too_big
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), 0, ""


async def _discard_body(receive: Receive) -> None:
    async def drain() -> None:
        while (message := await receive())["type"] == "http.request" and message.get("more_body", False):
            pass

    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(drain(), BODY_WITHIN_S)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the app the body already read, then what the client does next."""
    given = False

    async def replay():
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _refuse(
    scope: Scope,
    receive: Receive,
    send: Send,
    status: int,
    field: str,
    why: str,
    drain: bool = False,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """Answer with the refusal (and `headers`) and close the connection. `drain`: first let a client
    that is still sending a body to a route that reads one finish, for as long as a body may take,
    discarding every byte, so that it reads the answer (uvicorn reads nothing once it is sent)."""
    body = json.dumps({"detail": {"field": field, "message": why}}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(headers or []),
    ]
    if scope["type"] == "http":  # and the connection closes: a body left unread is not buffered after it
        if drain:
            await _discard_body(receive)
        headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):  # the handshake's answer can carry a body
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": POLICY, "reason": why[:120]})
