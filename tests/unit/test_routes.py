"""The routes in-process: the app as `ringside serve` builds it, driven through httpx.ASGITransport
(in_app.py), with ranks joined where a rank's socket would be and its store a SQLite file in
tmp_path. What a request is refused for and what it changes; the listing, reading and cancelling of
runs; what the cluster's and the model's routes say."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest
import uvicorn
from in_app import PRESENTER, SMALL, served

from ringside.server.serve import Server
from ringside.worker_agent.core.protocol import Cancel

AS_PRESENTER = {"Authorization": f"Bearer {PRESENTER}"}


def test_health_answers_to_anyone_while_the_dispatcher_runs(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db", viewer_token="let-me-watch") as s:
            s.ranks(2)
            return await s.call("GET", "/api/health", token=None)

    status, health = asyncio.run(scenario())
    assert status == 200 and health["status"] == "ok" and health["world_size"] == 2
    assert health["live_ranks"] == 2 and health["dispatcher"] == {"running": True, "restarts": 0}
    assert health["store"] == {"waiting_writes": 0, "locked_for_s": 0}


def test_a_run_is_refused_without_the_presenter_token_and_nothing_changes(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(2)
            before = await s.total()
            assert (await s.call("POST", "/api/runs", {"collective": "barrier"}, token=None))[0] == 401
            status, body = await s.call("POST", "/api/runs", {"collective": "barrier"}, token="wrong")
            assert status == 403 and body["detail"]["field"] == "token"
            assert (await s.call("POST", "/api/runs/r-000001/cancel", token=None))[0] == 401
            assert await s.total() == before and s.state.dispatcher.holder() is None

    asyncio.run(scenario())


def test_bad_specs_are_refused_naming_the_field_and_change_nothing(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(4)
            before = await s.total()
            for spec, field in [
                ({"collective": "broadcast", "root": 9}, "root"),
                ({"collective": "all_reduce", "count": 0}, "count"),
                ({"collective": "all_reduce", "op": "BAND"}, "op"),
                ({"collective": "nope"}, "collective"),
                ({"collective": "all_reduce", "extra": 1}, "extra"),
                ({"collective": "all_reduce", "group": [0, 8]}, "group"),
            ]:
                status, body = await s.call("POST", "/api/runs", spec)
                assert status == 422 and body["detail"]["field"] == field, (spec, body)
            status, body = await s.call("POST", "/api/runs", content=b"not json", headers=AS_PRESENTER)
            assert status == 422 and body["detail"]["field"] == "body"
            assert await s.total() == before and s.state.dispatcher.holder() is None

    asyncio.run(scenario())


def test_without_ranks_a_run_is_refused_with_503_and_the_log_says_why(tmp_path, caplog):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            before = await s.total()
            status, body = await s.call("POST", "/api/runs", SMALL)
            assert await s.total() == before
            return status, body

    with caplog.at_level(logging.WARNING, logger="ringside.server"):
        status, body = asyncio.run(scenario())
    assert status == 503 and body["detail"]["field"] == "group" and "connected" in body["detail"]["message"]
    # the server's state, not the request, refused it: the operator reads why in the log
    assert f"refused POST /api/runs (503): group: {body['detail']['message']}" in caplog.text


def test_runs_are_listed_newest_first_and_paged(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(2)
            ids = []
            for _ in range(3):
                ids.append(await s.submit())
                await ranks.run_through(steps=2)
                await s.ended(ids[-1])
            running = await s.submit()
            await ranks.command()
            first = (await s.call("GET", "/api/runs?limit=2"))[1]
            rest = (await s.call("GET", "/api/runs?limit=2&offset=2"))[1]
            refused = [
                (await s.call("GET", f"/api/runs?{q}"))[0] for q in ("limit=0", "limit=201", "offset=-1")
            ]
            return ids, running, first, rest, refused

    ids, running, first, rest, refused = asyncio.run(scenario())
    assert first["total"] == rest["total"] == 4
    assert [r["id"] for r in first["runs"]] == [running, ids[2]]
    assert [r["id"] for r in rest["runs"]] == [ids[1], ids[0]]
    assert first["runs"][0]["state"] == "running", "a run not yet ended: as the service has it now"
    assert [r["state"] for r in rest["runs"]] == ["done", "done"] and "steps" not in rest["runs"][0]
    assert refused == [422, 422, 422]


def test_a_run_is_read_as_it_ended_and_a_late_reader_gets_the_same(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(4)
            run_id = await s.submit(collective="broadcast", algorithm="binomial_tree", root=2, count=6)
            await ranks.run_through(steps=2)
            run = await s.ended(run_id)
            again = (await s.call("GET", f"/api/runs/{run_id}"))[1]
            newest = (await s.call("GET", "/api/runs?limit=2"))[1]
            missing = await s.call("GET", "/api/runs/r-999999")
            return run, again, newest, missing

    run, again, newest, missing = asyncio.run(scenario())
    assert run["state"] == "done" and again == run
    assert newest["runs"][0]["id"] == run["id"] and newest["total"] == 1
    assert missing[0] == 404 and missing[1]["detail"]["field"] == "run_id"


def test_cancel_a_queued_run_now_and_a_running_one_at_its_ranks_next_check(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(2)
            running, queued = await s.submit(iterations=100), await s.submit()
            command = await ranks.command()
            assert command.run_id == running
            cancelled_now = (await s.call("POST", f"/api/runs/{queued}/cancel"))[1]
            asked = (await s.call("POST", f"/api/runs/{running}/cancel"))[1]
            told = await ranks.command()
            unknown = await s.call("POST", "/api/runs/r-424242/cancel")
            return cancelled_now, asked, told, unknown, (await s.call("GET", f"/api/runs/{queued}"))[1]

    cancelled_now, asked, told, unknown, queued = asyncio.run(scenario())
    assert cancelled_now == {"id": queued["id"], "state": "cancelled", "cancel_requested": False}
    assert queued["state"] == "cancelled"
    assert asked["state"] == "running" and asked["cancel_requested"] is True
    assert told == Cancel(run_id=asked["id"])
    assert unknown[0] == 404


def test_a_foreign_host_is_refused_before_any_route(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(2)
            before = await s.total()
            foreign = {"Host": "evil.example"}
            reading = await s.call("GET", "/api/runs", headers=foreign)
            posting = await s.call("POST", "/api/runs", SMALL, headers=foreign)
            return reading, posting, before, await s.total()

    reading, posting, before, after = asyncio.run(scenario())
    for status, body in (reading, posting):
        assert status == 403 and body["detail"]["field"] == "host", body
    assert after == before


def test_a_configured_viewer_token_guards_watching_and_not_liveness(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db", viewer_token="let-me-watch") as s:
            return [
                (await s.call("GET", "/api/runs", token=None))[0],
                (await s.call("GET", "/api/cluster", token="nope"))[0],
                (await s.call("GET", "/api/runs", token="let-me-watch"))[0],
                (await s.call("GET", "/api/runs"))[0],  # a presenter may watch too
                (await s.call("GET", "/api/health", token=None))[0],  # liveness stays open
            ]

    assert asyncio.run(scenario()) == [401, 403, 200, 200, 200]


def test_the_catalog_names_the_run_states(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            return (await s.call("GET", "/api/catalog"))[1]

    assert asyncio.run(scenario())["run_states"] == {
        "all": ["queued", "running", "done", "failed", "cancelled", "interrupted"],
        "ended": ["done", "failed", "cancelled", "interrupted"],
    }


def test_the_model_answers_for_a_parameter_server_and_names_bad_servers(tmp_path):
    query = "/api/model?collective=parameter_server&algorithm=pull_push&world_size=4&count=12"

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            answers = [await s.call("GET", query + given) for given in ("&servers=3", "")]
            refusals = [
                (given, await s.call("GET", query + given))
                for given in ("&servers=4", "&servers=0", "&count=13&servers=2")
            ]
            ring = await s.call("GET", "/api/model?collective=all_reduce&algorithm=ring&servers=2")
            return answers, refusals, ring

    (three, one), refusals, ring = asyncio.run(scenario())
    # a shard each: pull, then push
    assert three[0] == 200 and three[1]["count"] == 4 and three[1]["terms"]["steps"] == 2
    assert one[1]["count"] == 12  # one server by default
    for (given, (status, body)), field in zip(refusals, ("servers", "servers", "count")):
        assert status == 422 and body["detail"]["field"] == field, (given, body)
    assert ring[0] == 422 and ring[1]["detail"]["field"] == "servers"


def test_the_model_takes_ranks_sharing_cores_where_the_cluster_has_them(tmp_path):
    """Three ranks on one host with one core: the model reads a ring's steps as three ranks taking
    turns on the core; at a world size the cluster does not have, every rank is taken to have a
    core of its own."""
    query = "/api/model?collective=all_reduce&algorithm=ring&count=12&world_size="

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(3, cores=1)
            here, elsewhere = (await s.call("GET", query + "3"))[1], (await s.call("GET", query + "6"))[1]
            return here, elsewhere, (await s.call("GET", "/api/model/predict?collective=all_reduce&p=3"))[1]

    here, elsewhere, curves = asyncio.run(scenario())
    assert here["sharing"] == [[[0, 1, 2], 1]] and here["terms"]["steps"] == 2 * 2 * 3
    assert elsewhere["sharing"] == [] and elsewhere["terms"]["steps"] == 2 * 5
    assert curves["sharing"] == [[[0, 1, 2], 1]]


def test_a_runs_trace_the_model_and_the_metrics(tmp_path):
    p = 4

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(p)
            run_id = await s.submit(count=1 << 6)
            await ranks.run_through(steps=2 * (p - 1))
            await s.ended(run_id)
            return (
                (await s.call("GET", f"/api/runs/{run_id}/trace"))[1],
                (
                    await s.call(
                        "GET",
                        "/api/model?collective=all_reduce&algorithm=ring&world_size=8&count=800"
                        "&alpha=1e-5&beta=1e-9",
                    )
                )[1],
                (await s.call("GET", "/api/model?collective=all_reduce&algorithm=native"))[1],
                (await s.call("GET", "/metrics"))[1],
            )

    trace, model, refused, text = asyncio.run(scenario())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    flows = [e for e in trace["traceEvents"] if e["ph"] in "sf"]
    assert len(slices) == p * 2 * (p - 1) and len(flows) == 2 * p * 2 * (p - 1)
    assert {e["pid"] for e in slices} == set(range(p))
    assert model["steps"] == 14 and model["time"] == pytest.approx(14 * 1e-5 + 1e-9 * 14 * 400)
    assert refused["detail"]["field"] == "algorithm"
    assert 'ringside_runs{state="done",collective="all_reduce"} 1' in text
    assert re.search(r'^ringside_ranks\{host="[^"]+",status="lost"\} 0$', text, re.MULTILINE)
    assert "ringside_step_seconds_count" in text


def test_the_page_and_plotly_are_served(tmp_path, monkeypatch):
    page = tmp_path / "page"
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>scripted page</title>")
    monkeypatch.setenv("RINGSIDE_FRONTEND", str(page))

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            return await s.call("GET", "/", token=None), await s.call(
                "GET", "/vendor/plotly.min.js", token=None
            )

    (status, text), (bundle_status, bundle) = asyncio.run(scenario())
    assert status == 200 and "scripted page" in text
    assert bundle_status == 200 and "plotly" in bundle[:2000].lower()


def test_ctrl_c_says_the_server_is_stopping_before_the_ranks_sockets_close(tmp_path):
    """What makes a run cut short by Ctrl-C or SIGTERM interrupted, not failed (the run service's
    tests say what the dispatcher does with it)."""

    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            server = Server(s.app, uvicorn.Config(s.app))
            server.handle_exit(2, None)
            return s.state.dispatcher.stopping, server.should_exit

    assert asyncio.run(scenario()) == (True, True)


class Started:
    """Where `ringside up`'s own ranks would be (rank/launch.py LocalWorkers), as far as a resize
    that is refused asks: the most ranks the world may grow to, and whether nodes split n ranks."""

    max_ranks = 16

    def splits(self, n: int) -> str | None:
        return None


def test_sizes_beyond_the_bound_and_viewers_are_refused(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db", local=Started()) as s:
            s.ranks(2)
            answers = [
                await s.call("POST", "/api/cluster/size", {"ranks": 17}),
                await s.call("POST", "/api/cluster/size", {"ranks": 0}),
                await s.call("POST", "/api/cluster/size", {"ranks": 3}, token=None),
            ]
            return answers, (await s.call("GET", "/api/cluster"))[1], (await s.call("GET", "/api/catalog"))[1]

    (beyond, none, viewer), cluster, catalog = asyncio.run(scenario())
    assert beyond[0] == 422 and beyond[1]["detail"]["field"] == "ranks", beyond
    assert "must be 1 to 16 (ringside up --max-ranks), not 17" in beyond[1]["detail"]["message"]
    assert none[0] == 422 and viewer[0] == 401
    assert cluster["world_size"] == 2 and catalog["max_ranks"] == 16


def test_a_world_the_server_did_not_start_is_never_resized(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            s.ranks(2, world_key="theirs")
            status, body = await s.call("POST", "/api/cluster/size", {"ranks": 3})
            return (
                status,
                body,
                (await s.call("GET", "/api/catalog"))[1],
                (await s.call("GET", "/api/cluster"))[1],
            )

    status, body, catalog, cluster = asyncio.run(scenario())
    assert status == 422 and body["detail"]["field"] == "ranks", body
    assert "this server did not start its ranks" in body["detail"]["message"]
    assert catalog["max_ranks"] is None and cluster["world_size"] == 2


def test_a_training_is_refused_409_while_a_run_holds_the_cluster_and_nothing_changes(tmp_path):
    async def scenario():
        async with served(tmp_path / "runs.db") as s:
            ranks = s.ranks(2)
            run_id = await s.submit()
            await ranks.command()  # the run holds the cluster
            refused = await s.call("POST", "/api/trainings", {"steps": 2})
            return run_id, refused, (await s.call("GET", "/api/trainings"))[1]

    run_id, (status, body), trainings = asyncio.run(scenario())
    assert status == 409 and body["detail"]["field"] == "cluster", body
    assert body["detail"]["message"] == f"{run_id} holds the cluster; start a training when it has ended"
    assert trainings == {"trainings": []}, "nothing was kept of it"
