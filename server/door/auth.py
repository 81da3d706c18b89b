"""Who may do what. Viewers watch (no token unless one is configured),
presenters trigger and cancel runs, workers join as ranks. A token comes as
`Authorization: Bearer T` or `?token=T`. Browsers' websockets must come from
the server's own origin (or one allowed), so another site cannot drive it."""

from __future__ import annotations

import secrets
from typing import Literal
from urllib.parse import urlsplit

from fastapi import HTTPException, Request
from starlette.requests import HTTPConnection

from ringside.server.config import Settings

Role = Literal["viewer", "presenter", "worker"]


def token_of(conn: HTTPConnection) -> str | None:
    header = conn.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return conn.query_params.get("token")


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and secrets.compare_digest(a.encode(), b.encode())


def role_of(conn: HTTPConnection, settings: Settings) -> Role | None:
    """The strongest role the request's token grants; None if it may not even watch."""
    return role_of_token(token_of(conn), settings)


def role_of_token(token: str | None, settings: Settings) -> Role | None:
    """The strongest role `token` grants (None: no token); None if it may not even watch."""
    if _same(token, settings.presenter_token):
        return "presenter"
    if _same(token, settings.worker_token):
        return "worker"
    if settings.viewer_token is None or _same(token, settings.viewer_token):
        return "viewer"
    return None


def watches(token: str | None, settings: Settings) -> bool:
    """Whether a page with `token` may watch (the viewer's or the presenter's): a viewer's socket with it
    is a page of a hall (door/transport.py). A rank's token watches nothing."""
    return role_of_token(token, settings) in ("viewer", "presenter")


def refusal(conn: HTTPConnection, settings: Settings, role: Role) -> tuple[int, str] | None:
    """Why this request may not act as `role`: (401 without a token, 403 with the wrong one,
    and why), or None. guard.py asks this before a body is read, `require` after."""
    granted = role_of(conn, settings)
    if granted == role or (role == "viewer" and granted is not None):
        return None
    if token_of(conn) is None:
        return 401, f"this needs the {role} token"
    return 403, f"this token does not grant the {role} role"


def require(conn: HTTPConnection, settings: Settings, role: Role) -> None:
    problem = refusal(conn, settings, role)
    if problem is not None:
        raise HTTPException(problem[0], {"field": "token", "message": problem[1]})


def host_name(netloc: str | None) -> str | None:
    """The name in a Host header or an origin's netloc (lower case, no port, no brackets);
    None when there is none or it is not a plain host[:port]."""
    if not netloc or any(c in netloc for c in "@/\\?# "):
        return None
    try:
        name = urlsplit(f"//{netloc}").hostname
    except ValueError:
        return None
    return name.rstrip(".") if name else None


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """No Origin: not a browser (a worker, a script). Else it must be this server itself: the
    page's origin is the Host it asked (guard.py has checked that Host), or a name given with
    --allow-host (a proxy in front may pass on another Host)."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    return netloc == conn.headers.get("host") or host_name(netloc) in settings.allow_hosts


def settings_of(conn: HTTPConnection) -> Settings:
    return conn.app.state.settings


# async, so that FastAPI runs them on the event loop rather than in a thread
async def is_presenter(conn: HTTPConnection) -> bool:
    """Whether this request or socket carries the presenter's token: what it may see (polls/visibility.py)."""
    return role_of(conn, settings_of(conn)) == "presenter"


async def need_viewer(request: Request) -> None:
    require(request, settings_of(request), "viewer")


async def need_presenter(request: Request) -> None:
    require(request, settings_of(request), "presenter")
