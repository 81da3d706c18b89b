"""How bad input is answered: one field and why, as an HTTP 4xx body
{"detail": {"field", "message"}} or a websocket close reason."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ringside.server.door.guard import bounded
from ringside.worker_agent.core.validation import SpecError

log = logging.getLogger("ringside.server")


class Detail(BaseModel):
    field: str = Field(
        description="what was wrong: a field of the request, or token, host, body, cluster, queue, store"
    )
    message: str = Field(description="why, in words")


class Refusal(BaseModel):
    """Every 4xx and 503 the server answers: one field and why."""

    detail: Detail


# what any route may answer besides its own success, documented once for the whole API (app.py)
REFUSALS: dict[int | str, dict[str, Any]] = {
    status: {"model": Refusal, "description": words}
    for status, words in (
        (400, "a Host header is missing, or a header is malformed"),
        (401, "this needs a token, and none was given"),
        (403, "the token does not grant this, or the Host or Origin is not the server's"),
        (404, "nothing has that id"),
        (405, "this path does not take that method: `Allow` names those it does"),
        (408, "the body did not arrive in time"),
        (409, "something else holds the cluster, or the queue is full"),
        (413, "the body is too large, or this route takes none"),
        (422, "what was asked cannot be done here: the field and why"),
        (503, "not every rank is connected, or the store cannot be written now"),
    )
}
# the guard answers a method a path lacks on every path (door/methods.py), saying what it takes
REFUSALS[405]["headers"] = {
    "Allow": {"description": "the methods this path takes, e.g. `GET, HEAD`", "schema": {"type": "string"}}
}


class NotReady(SpecError):
    """Not every rank of the world is connected: nothing is wrong with what was asked (503)."""


class Busy(SpecError):
    """Something else holds the cluster (409)."""


def first_error(errors) -> dict:
    """The first of pydantic's errors as {"field", "message"}, cut short: an answer never
    repeats an unbounded input (a field name can be what the client sent)."""
    err = errors[0] if errors else {"loc": ("body",), "msg": "invalid"}
    loc = [str(x) for x in err.get("loc", ()) if x not in ("body", "query", "path")]
    return {"field": bounded(".".join(loc) or "body", 80), "message": bounded(err.get("msg", "invalid"))}


def refuse(status: int, field: str, message: str) -> HTTPException:
    return HTTPException(status, {"field": bounded(field, 80), "message": bounded(message)})


def status_of(e: SpecError) -> int:
    """What the server will not do: ask again later (503), wait for the cluster (409), or ask otherwise
    (422)."""
    return 503 if isinstance(e, NotReady) else 409 if isinstance(e, Busy) else 422


async def spec_refused(request: Request, exc: Exception) -> JSONResponse:
    """Every route's refusal of what it was asked, answered alike (app.py installs it for SpecError)."""
    if not isinstance(exc, SpecError):
        raise exc
    if isinstance(exc, NotReady):  # the server's state, not the request, refused it: the operator is told why
        log.warning(
            "refused %s %s (503): %s: %s",
            request.method,
            bounded(request.url.path, 80),
            bounded(exc.field, 80),
            bounded(exc.message),
        )
    return JSONResponse(
        status_code=status_of(exc),
        content={"detail": {"field": bounded(exc.field, 80), "message": bounded(exc.message)}},
    )


def found(thing, what: str, given: str):
    """`thing`, or a 404 naming the id that found nothing."""
    if thing is None:
        raise refuse(404, f"{what}_id", f"no {what} {given!r}")
    return thing


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    if not isinstance(exc, RequestValidationError):
        raise exc
    return JSONResponse(status_code=422, content={"detail": first_error(exc.errors())})
