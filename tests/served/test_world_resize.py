"""`ringside up`'s world grows and shrinks in place (POST /api/cluster/size, what a lesson's stage
asks for): the ranks it keeps keep their processes, the token the page had still runs, an audience
socket stays open throughout and hears the runs on every size, and a run stored before stays. (A
size beyond the bound, a viewer's ask and a world the server did not start are refused:
tests/unit/test_routes.py.)"""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from server_helpers import ended, messages, wait_gone
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

pytestmark = pytest.mark.cluster(ranks=2)


class Audience(threading.Thread):
    """A watch-only socket, read until it closes: every message it heard, and whether it closed."""

    def __init__(self, ws):
        super().__init__(daemon=True)
        self.ws = ws
        self.heard: list[dict] = []
        self.closed = False
        self.news = threading.Condition()
        self.start()

    def run(self) -> None:
        try:
            while True:
                got = messages(self.ws.recv())
                with self.news:
                    self.heard += got
                    self.news.notify_all()
        except ConnectionClosed:
            with self.news:
                self.closed = True
                self.news.notify_all()

    def hears(self, said, timeout: float = 30) -> bool:
        """Whether it hears a message that `said` holds for, within `timeout`."""
        with self.news:
            return self.news.wait_for(lambda: any(map(said, self.heard)) or self.closed, timeout) and any(
                map(said, self.heard)
            )


def stage(up, collective: str, ranks: int) -> dict:
    """The seed lesson's stage of `collective` on `ranks` ranks, its run as the page submits it."""
    _, lesson = up.call("GET", "/api/lesson")
    return next(
        s["run"] for s in lesson["stages"] if (s["run"]["collective"], s["ranks"]) == (collective, ranks)
    )


def values(run: dict, rank: int) -> list:
    return [v for chunk in run["results"][str(rank)]["output"] for v in chunk["values"]]


def resize(up, n: int) -> dict:
    status, cluster = up.call("POST", "/api/cluster/size", {"ranks": n})
    assert status == 200, cluster
    assert cluster["world_size"] == n and [r["rank"] for r in cluster["ranks"]] == list(range(n))
    assert all(r["status"] != "lost" for r in cluster["ranks"]), cluster
    return {r["rank"]: r["pid"] for r in cluster["ranks"]}


def test_the_world_grows_and_shrinks_in_place_and_the_pages_stay(up):
    before = up.run(collective="all_reduce", algorithm="ring", count=2, capture="full")
    first = {r["rank"]: r["pid"] for r in up.cluster()["ranks"]}
    with connect(up.ws_url("/ws"), max_size=None) as ws:
        audience = Audience(ws)
        # grown to 4: the seed's 4-rank reduce_scatter (powers of ten times the rank), its sums right
        grown = resize(up, 4)
        assert {r: grown[r] for r in first} == first, "ranks 0 and 1 stayed the same processes"
        four = up.run(**stage(up, "reduce_scatter", 4))
        assert four["state"] == "done" and four["world_size"] == 4, four["error"]
        assert [values(four, r) for r in range(4)] == [[6], [60], [600], [6000]]
        # shrunk to 3: rank 3 leaves, the others stay; the seed's 3-rank broadcast of [1, 2, 3, 4, 5]
        shrunk = resize(up, 3)
        assert {r: shrunk[r] for r in range(3)} == {r: grown[r] for r in range(3)}
        assert wait_gone([grown[3]]) == []
        three = up.run(**stage(up, "broadcast", 3))
        assert three["state"] == "done" and three["world_size"] == 3, three["error"]
        assert [values(three, r) for r in range(3)] == [[1, 2, 3, 4, 5]] * 3
        _, catalog = up.call("GET", "/api/catalog")
        assert catalog["world_size"] == 3 and catalog["max_ranks"] == 16
        # the audience heard both runs and the new worlds, its socket open all along
        for run in (four, three):
            assert audience.hears(lambda m, run=run: ended(m, run["id"]))
        for n in (4, 3):
            assert audience.hears(lambda m, n=n: m["type"] == "cluster" and m["world_size"] == n)
        assert not audience.closed
    assert up.call("GET", f"/api/runs/{before['id']}")[1]["results"] == before["results"]


def test_a_resize_waits_for_the_run_in_flight_and_two_at_once_take_turns(up):
    world = up.cluster()["world_size"]
    status, body = up.call(
        "POST", "/api/runs", {"collective": "all_reduce", "count": 4096, "iterations": 300, "capture": "none"}
    )
    assert status == 202, body
    while up.call("GET", f"/api/runs/{body['id']}")[1]["state"] == "queued":
        pass  # until it runs: the resizes below come while it holds the cluster
    with ThreadPoolExecutor(2) as pool:
        asked = [pool.submit(up.call, "POST", "/api/cluster/size", {"ranks": n}) for n in (2, 3)]
        answers = [a.result() for a in asked]
    assert [status for status, _ in answers] == [200, 200], answers
    run = up.wait(body["id"])
    assert run["state"] == "done" and run["world_size"] == world, run["error"]  # not cut short
    cluster = up.cluster()
    n = cluster["world_size"]
    live = sorted(r["rank"] for r in cluster["ranks"] if r["status"] != "lost")
    assert n in (2, 3) and live == list(range(n)), cluster
    after = up.run(collective="all_gather", count=1, pattern="own_rank", capture="full")
    assert after["state"] == "done" and after["world_size"] == n, after["error"]
    assert [values(after, r) for r in range(n)] == [list(range(n))] * n


def test_a_rank_killed_while_the_world_grows_leaves_it_recoverable(up):
    world = up.cluster()["world_size"]
    victim = next(r["pid"] for r in up.cluster()["ranks"] if r["rank"] == 1)
    before = set(up.descendants())
    with ThreadPoolExecutor(1) as pool:
        asked = pool.submit(up.call, "POST", "/api/cluster/size", {"ranks": world + 1})
        while not set(up.descendants()) - before:
            pass  # until the new rank is started: the resize is under way
        os.kill(victim, signal.SIGKILL)
        status, body = asked.result()
    # ringside up restarts the group at the new size, and the resize answers once it is whole
    assert status == 200 and body["world_size"] == world + 1, body
    assert victim not in {r["pid"] for r in body["ranks"]}
    run = up.run(collective="all_gather", count=1, pattern="own_rank", capture="full")
    assert run["state"] == "done", run["error"]
    assert [values(run, r) for r in range(world + 1)] == [list(range(world + 1))] * (world + 1)
