"""The app as `ringside serve` builds it (app.create_app), started in the test's own process, its
lifespan run here, and driven through httpx.ASGITransport: no server process, no port. Ranks join
it where a rank's socket would be (in_process.Joined); its store is a SQLite file the test names."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from pathlib import Path

import httpx
from in_process import Joined

from ringside.server.app import create_app
from ringside.server.config import Settings

PRESENTER, WORKER = "presenter-token-for-tests", "worker-token-for-tests"
SMALL = {"collective": "all_reduce", "algorithm": "ring", "count": 8}


class Served:
    """An app, started, and a client of it; `ranks(n)` joins n ranks to it."""

    def __init__(self, app, client: httpx.AsyncClient):
        self.app, self.state, self.client = app, app.state, client
        self.endings: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.state.runs.on_end.append(lambda run: self.endings[run.id].set())

    def ranks(self, n: int, **hello_fields) -> Joined:
        return Joined(self.state, n, **hello_fields)

    async def call(self, method: str, path: str, body=None, token: str | None = PRESENTER, **kwargs):
        """(status, JSON body or text) of a request, with the presenter's token unless told another
        or none."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = await self.client.request(
            method, path, json=body, headers={**headers, **kwargs.pop("headers", {})}, **kwargs
        )
        kind = answer.headers.get("content-type", "")
        return answer.status_code, answer.json() if kind.startswith("application/json") else answer.text

    async def submit(self, **spec) -> str:
        status, body = await self.call("POST", "/api/runs", {**SMALL, **spec})
        assert status == 202, body
        return body["id"]

    async def ended(self, run_id: str) -> dict:
        """The run, as GET /api/runs/{id} says it, once it has ended."""
        await asyncio.wait_for(self.endings[run_id].wait(), 10)
        return (await self.call("GET", f"/api/runs/{run_id}"))[1]

    async def total(self) -> int:
        return (await self.call("GET", "/api/runs"))[1]["total"]


@contextlib.asynccontextmanager
async def served(db: Path, local=None, **settings):
    """The app over the store `db`, started; `local`: what stands in for the ranks `ringside up`
    started (the world it may resize), else none. It leaves the test process's collector as it is
    (a server's start tunes its own: door/reclaim.py)."""
    given = dict(db=db, presenter_token=PRESENTER, worker_token=WORKER)
    app = create_app(Settings(**{**given, **settings}), local, tune_process=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
            yield Served(app, client)
