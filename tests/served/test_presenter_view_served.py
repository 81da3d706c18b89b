"""What the presenter's page sends over its socket to lead the room, through a real server: J over
the stage, with the watched job it has open, is part of the presenter's view like C and T, and a
joining viewer is told it. The ranks are scripted: the view needs a run, not what it computed."""

from __future__ import annotations

import json
import time

import pytest
from server_helpers import messages, serve_with_scripted_ranks
from websockets.sync.client import connect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with serve_with_scripted_ranks(tmp_path_factory.mktemp("presenter")) as served:
        yield served


def scripted_run(server, ranks) -> str:
    """A broadcast the scripted ranks run: started, a step, finished. Its id, once it is done."""
    status, body = server.call(
        "POST", "/api/runs", {"collective": "broadcast", "algorithm": "ring", "count": 2}
    )
    assert status == 202, body
    for rank in ranks:
        command = rank.command()
        rank.start(command)
        rank.step(command, 0)
        rank.finish(command)
    assert server.wait(body["id"], timeout=10)["state"] == "done"
    return body["id"]


def told_a_joining_viewer(server, holds, within_s: float = 30) -> dict | None:
    """The presenter's view in a joining viewer's snapshot, once `holds(view)`: asked again at once
    until then, each ask a round trip to the server."""
    deadline = time.monotonic() + within_s
    while True:
        with connect(server.ws_url("/ws")) as ws:
            view = next(m for m in messages(ws.recv(timeout=10)) if m["type"] == "snapshot")["presenter"]
        if holds(view):
            return view
        assert time.monotonic() < deadline, f"the server still holds {view}"


def test_the_presenters_jobs_view_reaches_the_audience(server):
    """J over the stage, with the job open, is part of the presenter's view like C and T."""
    up, ranks = server
    frame = {
        "type": "presenter",
        "run_id": scripted_run(up, ranks),
        "step": 0,
        "playing": False,
        "speed": 1.0,
        "overlay": "jobs",
        "job": "j-000001",
    }
    with connect(up.ws_url("/ws") + f"?token={up.presenter}") as presenter:
        presenter.recv(timeout=10)  # the snapshot
        presenter.send(json.dumps(frame))
        heard = told_a_joining_viewer(up, lambda view: view is not None and view.get("overlay") == "jobs")
    assert heard["overlay"] == "jobs" and heard["job"] == "j-000001"
