"""A run held for a poll, read as a viewer reads it (a real `ringside up --ranks 4`): no path
gives the answer before the reveal. A question of which algorithm is faster is answered by
the times of every run of its shape, not only its own: each of them is held, on every route
that carries a time (the run, its trace, the list, the model's account, /metrics)."""

from __future__ import annotations

import time

from server_helpers import messages, start_up
from websockets.sync.client import connect

LECTURE = {"collective": "all_reduce", "count": 8, "capture": "full", "pattern": "digits"}


def run_seconds(up, token) -> list[str]:
    """The all_reduce lines of ringside_run_seconds that this token's scrape of /metrics holds."""
    text = up.call("GET", "/metrics", token=token)[1]
    return [
        line
        for line in text.splitlines()
        if line.startswith("ringside_run_seconds") and 'collective="all_reduce"' in line
    ]


def test_a_race_holds_the_times_of_every_run_it_compares_until_the_reveal(up):
    ring, tree, master = (up.run(algorithm=a, **LECTURE) for a in ("ring", "tree", "master_worker"))
    again = up.run(algorithm="tree", **LECTURE)  # fitted from the three before: its prediction has its time
    assert again["prediction"]["measured"] == again["time"]
    server = up.run(collective="parameter_server", algorithm="pull_push", servers=1, count=8)
    status, race = up.call("POST", "/api/polls", {"run_id": again["id"], "question": "faster"})
    assert status == 201, race

    mine = up.call("GET", f"/api/runs/{again['id']}", token=None)[1]
    assert mine["held_for"] == race["id"] and mine["time"] is None and mine["prediction"] is None, (
        "the model's account of a held run carries its measured time"
    )
    for run in (ring, master, tree):  # the runs the race compares: their times are its answer
        seen = up.call("GET", f"/api/runs/{run['id']}", token=None)[1]
        assert (
            seen["held_for"] == race["id"]
            and seen["time"] is None
            and seen["busbw"] is None
            and seen["finished_at"] is None
        ), run["id"]
        assert all(step["ranks"] == {} for step in seen["steps"]), "a step's t0 and t1 are times"
        assert up.call("GET", f"/api/runs/{run['id']}/trace", token=None)[0] == 409
    assert up.call("GET", f"/api/runs/{ring['id']}")[1]["time"] == ring["time"], (
        "the presenter reads it whole"
    )
    listed = up.call("GET", "/api/runs", token=None)[1]["runs"]
    raced = [s for s in listed if s["collective"] == "all_reduce"]
    assert all(s["time"] is None and s["finished_at"] is None for s in raced), (
        "nor the span from start to finish, which ranks them as their times do"
    )
    assert run_seconds(up, None) == [], "a viewer's scrape leaves out the times of the collective asked"
    assert run_seconds(up, "presenter"), "the presenter's scrape keeps them"
    assert up.call("GET", "/api/compare", token=None)[0] == 409, "its bytes and points wait"
    assert up.call("GET", f"/api/compare/beside?run={server['id']}", token=None)[0] == 409
    assert up.call("GET", "/api/model/fit", token=None)[0] == 409, "the fit took in their times"
    assert up.call("GET", "/api/model/fit")[0] == 200
    assert up.call("GET", "/api/runs/" + server["id"], token=None)[1]["time"] == server["time"], (
        "a run of another shape is not held"
    )

    assert up.call("POST", f"/api/polls/{race['id']}/reveal")[0] == 200
    assert up.call("GET", f"/api/runs/{ring['id']}", token=None)[1]["time"] == ring["time"]
    assert up.call("GET", f"/api/runs/{again['id']}", token=None)[1]["prediction"] == again["prediction"]
    assert up.call("GET", f"/api/runs/{ring['id']}/trace", token=None)[0] == 200
    assert len(run_seconds(up, None)) == len(run_seconds(up, "presenter"))


def test_a_training_steps_sync_is_not_asked_about(up):
    """Its training told every page each step's busiest link and times as it ran (and reads them
    to anyone who may watch): a poll about it could hold nothing back."""
    status, training = up.call("POST", "/api/trainings", {"method": "ring", "hidden": 16, "steps": 2})
    assert status == 202, training
    deadline = time.monotonic() + 120
    while up.call("GET", f"/api/trainings/{training['id']}")[1]["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, "the training did not end"
        time.sleep(0.2)
    sync = f"{training['id']}-s1"
    assert up.call("GET", f"/api/runs/{sync}", token=None)[1]["state"] == "done"
    status, refused = up.call("POST", "/api/polls", {"run_id": sync, "question": "busiest_link"})
    assert (
        status == 422
        and refused["detail"]["field"] == "run_id"
        and "training step's sync" in refused["detail"]["message"]
    ), refused


def test_a_poll_left_open_carries_on_after_a_restart_holding_its_run(tmp_path):
    first = start_up(tmp_path, ranks=2)
    try:
        ring = first.run(algorithm="ring", **LECTURE)
        status, poll = first.call("POST", "/api/polls", {"run_id": ring["id"], "question": "busiest_link"})
        assert status == 201, poll
        with connect(first.ws_url("/ws")) as page:
            ballot = messages(page.recv(timeout=10))[0]["ballot"]
            assert vote(first, poll["id"], ballot, 0) == 202
    finally:
        first.stop()
    again = start_up(tmp_path, ranks=2, db=first.db)
    try:
        seen = again.call("GET", f"/api/runs/{ring['id']}", token=None)[1]
        assert seen["held_for"] == poll["id"] and seen["traffic"] is None, "the hold outlives the server"
        assert again.call("GET", "/api/polls/current", token=None)[1]["poll"]["id"] == poll["id"]
        with (
            connect(again.ws_url(f"/ws?ballot={ballot}")) as reloaded,
            connect(again.ws_url("/ws")) as other,
        ):
            assert messages(reloaded.recv(timeout=10))[0]["ballot"] == ballot, "the page's ballot is known"
            assert vote(again, poll["id"], ballot, 1) == 409, "and so are its votes"
            assert vote(again, poll["id"], messages(other.recv(timeout=10))[0]["ballot"], 1) == 202
        status, revealed = again.call("POST", f"/api/polls/{poll['id']}/reveal")
        assert status == 200 and revealed["answers"] and revealed["votes"] == 2, revealed
        assert again.call("GET", f"/api/runs/{ring['id']}", token=None)[1]["traffic"] == ring["traffic"]
    finally:
        again.stop()


def vote(up, poll_id: str, ballot: str, choice: int) -> int:
    body = {"choice": choice, "ballot": ballot}
    return up.call("POST", f"/api/polls/{poll_id}/votes", body, token=None)[0]
