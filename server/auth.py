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

from .config import Settings

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
    token = token_of(conn)
    if _same(token, settings.presenter_token):
        return "presenter"
    if _same(token, settings.worker_token):
        return "worker"
    if settings.viewer_token is None or _same(token, settings.viewer_token):
        return "viewer"
    return None


def require(conn: HTTPConnection, settings: Settings, role: Role) -> None:
    """401 without a token, 403 with the wrong one."""
    granted = role_of(conn, settings)
    if granted == role or (role == "viewer" and granted is not None):
        return
    if token_of(conn) is None:
        raise HTTPException(401, {"field": "token", "message": f"this needs the {role} token"})
    raise HTTPException(403, {"field": "token", "message": f"this token does not grant the {role} role"})


def origin_allowed(conn: HTTPConnection, settings: Settings) -> bool:
    """No Origin: not a browser (a worker, a script). Else it must be this server itself."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc == conn.headers.get("host")


def viewer_dependency(settings: Settings):
    def check(request: Request) -> None:
        require(request, settings, "viewer")

    return check


def presenter_dependency(settings: Settings):
    def check(request: Request) -> None:
        require(request, settings, "presenter")

    return check
