"""A method a path lacks is answered 405 with `Allow` naming what the schema lists for it, on every
path, with a body or without, before any token is asked: the whole app in-process over httpx's ASGI
transport (its services are not started: no route that takes the method is reached), and the schema
that documents it."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from ringside.server.app import create_app
from ringside.server.config import Settings

METHODS = ("GET", "PUT", "POST", "DELETE", "PATCH")
PRESENTER = "p" * 22


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    settings = Settings(db=tmp_path_factory.mktemp("methods") / "runs.db", presenter_token=PRESENTER)
    return create_app(settings)


def asked(app, requests: list[tuple[str, str, bytes | None, str | None]]) -> list[httpx.Response]:
    """Each (method, path, body, token) answered by the app."""

    async def ask() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return [
                await client.request(
                    method,
                    path,
                    content=body,
                    headers={"Authorization": f"Bearer {token}"} if token else {},
                )
                for method, path, body, token in requests
            ]

    return asyncio.run(ask())


def test_every_path_answers_a_method_it_lacks_405_allowing_what_the_schema_lists(app):
    wrong = [
        (method, path.replace("{", "").replace("}", ""), body, token, sorted(m.upper() for m in ops))
        for path, ops in app.openapi()["paths"].items()
        for method in METHODS
        if method.lower() not in ops
        for body in (None, b'{"collective": "all_reduce"}')
        for token in (None, PRESENTER)
    ]
    assert len(wrong) > 100
    answers = asked(app, [(method, path, body, token) for method, path, body, token, _ in wrong])
    for (method, path, body, token, allowed), answer in zip(wrong, answers, strict=True):
        case = f"{method} {path} body={body is not None} token={token is not None}"
        assert answer.status_code == 405, (case, answer.status_code, answer.text)
        assert answer.headers["allow"] == ", ".join(allowed), case
        assert answer.json()["detail"]["field"] == "method", case


def test_a_concrete_path_is_matched_before_a_templated_one_and_the_pages_files_take_get(app):
    preview, index, lesson = asked(
        app,
        [
            ("GET", "/api/runs/preview", None, PRESENTER),  # not the run named "preview"
            ("POST", "/index.html", b"{}", None),
            ("GET", "/api/lesson", None, None),
        ],
    )
    assert (preview.status_code, preview.headers["allow"]) == (405, "POST")
    assert (index.status_code, index.headers["allow"]) == (405, "GET, HEAD")
    assert index.json()["detail"]["message"] == "/index.html takes GET, HEAD, not POST"
    assert lesson.status_code == 200 and lesson.json()["stages"], "a method a path takes reaches its route"


def test_the_schema_documents_the_405_and_its_allow_on_every_operation(app):
    """A client held to the schema (schemathesis' status code conformance) reads the guard's 405
    as one the operation may answer, and its `Allow` as a header it declares."""
    operations = [(path, op) for path, ops in app.openapi()["paths"].items() for op in ops.values()]
    assert len(operations) > 20
    for path, op in operations:
        refused = op["responses"].get("405")
        assert refused is not None, f"{op['operationId']} on {path}"
        assert refused["headers"]["Allow"]["schema"] == {"type": "string"}, path
        schemas = [kind["schema"] for kind in refused["content"].values()]
        assert schemas == [{"$ref": "#/components/schemas/Refusal"}], path
