"""The watched jobs' routes in-process: the app's watched router over httpx's ASGI transport (no
server process), its service fed what a job's ranks say as their socket hands it on. /api/watched
names them; /api/jobs, their name while "job" meant two things, answers the same, deprecated."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI

from ringside.server.db.database import Database
from ringside.server.door.auth import need_viewer
from ringside.server.watched import routes
from ringside.server.watched.service import Watching
from ringside.server.watched.store import WatchStore
from ringside.worker_agent.core.watch_protocol import Issued, WatchHello, WatchReport


class Heard:
    """The fan-out, recorded: what viewers would hear."""

    def __init__(self) -> None:
        self.messages: list = []

    def publish(self, message) -> None:
        self.messages.append(message)


@pytest.fixture
def served(tmp_path):
    database = Database(tmp_path / "runs.db")
    watching = Watching(WatchStore(database), Heard())
    app = FastAPI()
    app.include_router(routes.router)
    app.dependency_overrides[need_viewer] = lambda: None  # the door's token checks are tested apart
    app.state.watching = watching
    yield app, watching
    database.close()


def answers(app: FastAPI, *paths: str) -> list[tuple[int, object]]:
    async def asked() -> list[tuple[int, object]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://ringside") as client:
            return [((r := await client.get(path)).status_code, r.json()) for path in paths]

    return asyncio.run(asked())


def a_job_of_two_ranks(watching: Watching) -> str:
    """Two ranks said hello and each issued all_reduce #1 and #2: its id."""
    for rank in range(2):
        hello = WatchHello(
            job="k", rank=rank, world_size=2, host="h", pid=rank + 1, launcher="torchrun", backend="gloo",
            started_ns=1, script="train.py",
        )  # fmt: skip
        watched, problem = watching.join(hello, socket=object())
        assert watched is not None, problem
        issued = [
            Issued(group="0", seq=s, op="allreduce", dtype="float32", count=8, t_ns=5 + s) for s in (1, 2)
        ]
        watching.report(watched, WatchReport(rank=rank, t_ns=10, issued=issued, where=f"train.py:{rank}"))
    return watched.job.id


def test_a_watched_job_reads_the_same_under_its_old_name(served):
    app, watching = served
    job_id = a_job_of_two_ranks(watching)
    new, old = (f"/api/watched/{job_id}", f"/api/jobs/{job_id}")
    (listed, listed_old), (shown, shown_old), (trace, trace_old) = (
        answers(app, "/api/watched", "/api/jobs"),
        answers(app, new, old),
        answers(app, f"{new}/trace", f"{old}/trace"),
    )
    assert listed == listed_old and listed[0] == 200
    assert [j["id"] for j in listed[1]["jobs"]] == [job_id]
    assert shown == shown_old and shown[0] == 200
    assert [(c["seq"], c["complete"]) for c in shown[1]["collectives"]] == [(1, True), (2, True)]
    assert [r["where"] for r in shown[1]["ranks"]] == ["train.py:0", "train.py:1"]
    assert trace == trace_old and trace[1]["metadata"]["job"] == job_id
    missing = answers(app, "/api/watched/j-999999", "/api/jobs/j-999999")
    assert missing[0] == missing[1] and missing[0][0] == 404


def test_the_old_name_is_marked_deprecated_in_the_schema():
    app = FastAPI()
    app.include_router(routes.router)
    paths = app.openapi()["paths"]
    for path in ("/api/watched", "/api/watched/{watched_id}", "/api/watched/{watched_id}/trace"):
        old = path.replace("/api/watched", "/api/jobs")
        assert not paths[path]["get"].get("deprecated"), path
        assert paths[old]["get"]["deprecated"] is True, old
