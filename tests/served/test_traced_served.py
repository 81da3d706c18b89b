"""Traced send/recv code on a live cluster (`ringside up --algorithms examples/...`): the
server learns a traced run's schedule from its ranks and keeps it with every step's
states, a wrong result says where it first departed, a deadlock fails naming its cycle and
the cluster then runs on. The page that shows those words: tests/page/test_traced_page.py."""

from __future__ import annotations

import pytest
from traced_examples import FLAGS, STUCK_AT

pytestmark = pytest.mark.cluster(flags=FLAGS)


@pytest.fixture(scope="module")
def runs(up):
    """The three examples, run once each in this order (the deadlock breaks the ranks' group)."""
    good = up.run(collective="all_reduce", algorithm="tutorial_ring", count=8, dtype="int64", capture="full")
    bug = up.run(
        collective="all_reduce", algorithm="tutorial_ring_bug", count=8, dtype="int64", capture="full"
    )
    lesson = up.run(collective="send_recv", algorithm="blocking", count=4, capture="full")
    pids = [r["pid"] for r in up.cluster()["ranks"]]
    status, body = up.call(
        "POST",
        "/api/runs",
        {"collective": "all_reduce", "algorithm": "deadlock_ring", "count": 8, "timeout": 2},
    )
    assert status == 202, body
    stuck = up.wait(body["id"])
    return {"good": good, "bug": bug, "lesson": lesson, "stuck": stuck, "pids": pids}


def test_the_examples_are_offered_and_said_to_be_traced(up):
    entry = next(c for c in up.call("GET", "/api/catalog")[1]["collectives"] if c["name"] == "all_reduce")
    assert {"tutorial_ring", "tutorial_ring_bug", "deadlock_ring"} <= set(entry["algorithms"])
    assert (
        "algorithm all_reduce/tutorial_ring from" in up.log_text()
        and "send/recv code, traced when it runs" in up.log_text()
    )


def test_a_traced_run_carries_its_rebuilt_schedule_and_every_steps_states(runs):
    run = runs["good"]
    assert run["state"] == "done" and run["verified"] is True and run["departure"] is None
    assert run["schedule"]["algorithm"] == "tutorial_ring" and run["layout"]["shape"] == "ring"
    assert run["chunk_bounds"] == [[0, 2], [2, 4], [4, 6], [6, 8]]
    assert run["input_chunks"] == {str(r): [0, 1, 2, 3] for r in range(4)}
    assert len(run["steps"]) == 6
    assert run["steps"][0]["transfers"] == [
        [3, 0, 2, 2, 1],
        [0, 1, 3, 3, 1],
        [1, 2, 0, 0, 1],
        [2, 3, 1, 1, 1],
    ]
    for step in run["steps"]:
        assert sorted(step["ranks"]) == ["0", "1", "2", "3"]
        for rank, report in step["ranks"].items():
            written = {t[3] for t in step["transfers"] if str(t[1]) == rank}
            assert {s["chunk"] for s in report["states"]} == written and all(
                len(s["values"]) == 2 for s in report["states"]
            )
    final = {
        r: {s["chunk"]: s["values"] for s in run["steps"][-1]["ranks"][r]["states"]}
        for r in run["steps"][-1]["ranks"]
    }

    # the sum over the ranks of the pattern "index" (rank r holds 8r, 8r + 1, ...) in a chunk
    def total(chunk):
        return [sum(8 * r + 2 * chunk + i for r in range(4)) for i in range(2)]

    assert final["1"][2] == total(2) and final["2"][3] == total(3)
    assert run["traffic"]["total"] == 4 * 6 * 2 * 8


def test_a_wrong_result_names_where_it_first_departed(runs):
    run = runs["bug"]
    assert run["state"] == "done" and run["verified"] is False
    assert run["departure"] == {
        "step": 0,
        "rank": 0,
        "chunk": 3,
        "words": "after step 1, rank 0's chunk 3 holds rank 3's chunk 2, which does not belong there",
    }


def test_the_p2p_lessons_run_keeps_every_ranks_calls(runs):
    run = runs["lesson"]
    assert (
        run["state"] == "done"
        and run["verified"] is True
        and run["layout"] == {"shape": "star", "root": 0, "servers": []}
    )
    assert [s["transfers"] for s in run["steps"]] == [[[0, 1, 0, 0, 0]]]
    (send,), (recv,) = run["calls"]["0"], run["calls"]["1"]
    assert (send["name"], send["peer"], recv["name"], recv["peer"]) == ("send", 1, "recv", 0)
    assert send["posted"] <= send["waited"] <= send["done"] and run["calls"]["2"] == run["calls"]["3"] == []


def test_a_deadlock_fails_naming_its_cycle_and_the_cluster_runs_on(up, runs):
    run = runs["stuck"]
    assert run["state"] == "failed"
    assert (
        f"deadlock: rank 0 waits in send to rank 1 ({STUCK_AT}) → rank 1 waits in send to rank 2"
        in run["error"]
    )
    assert run["error"].endswith(f"rank 3 waits in send to rank 0 ({STUCK_AT}) → rank 0")
    ranks = up.cluster()["ranks"]  # the broken group was built again inside the same ranks
    assert [r["pid"] for r in ranks] == runs["pids"] and all(r["status"] != "lost" for r in ranks), ranks
    after = up.run(collective="all_reduce", algorithm="ring", count=8, dtype="int64")
    assert after["state"] == "done" and after["verified"] is True
    again = up.run(collective="all_reduce", algorithm="tutorial_ring", count=8, dtype="int64")
    assert again["state"] == "done" and again["verified"] is True
