"""The rest of what a user does with `ringside up`, end to end: `ringside run` from a terminal, and a
rank killed during a run (the run fails naming it, the group comes back). How the dispatcher names a
lost rank and who may take a slot while a group restarts are tested in-process
(tests/unit/test_dispatcher.py, test_cluster_joins.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from server_helpers import WORKER_TOKEN, ScriptedRank, wait_gone
from websockets.exceptions import ConnectionClosed

# the worker token known: the forged hellos carry it
pytestmark = pytest.mark.cluster(ranks=3, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})


def ringside_run(up, *args):
    env = {**os.environ, "RINGSIDE_PRESENTER_TOKEN": up.presenter}
    return subprocess.run(
        [sys.executable, "-m", "ringside.worker_agent.cli", "run", "--server", up.url, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_ringside_run_prints_the_table_and_the_link(up):
    done = ringside_run(
        up, "--collective", "reduce_scatter", "--algorithm", "recursive_halving", "--count", "5"
    )
    assert done.returncode == 0, done.stderr
    assert ": done" in done.stdout and done.stdout.count("True") == 3
    run_id = done.stdout.split("see it: ")[1].strip().split("?run=")[1]
    assert up.call("GET", f"/api/runs/{run_id}")[1]["spec"]["algorithm"] == "recursive_halving"
    refused = ringside_run(up, "--collective", "broadcast", "--root", "7")
    assert refused.returncode == 2 and "root: rank 7 is not in the group" in refused.stderr
    malformed = ringside_run(up, "--collective", "shuffle")
    assert malformed.returncode == 2 and "collective" in malformed.stderr


def test_a_rank_killed_mid_run_is_named_and_the_group_comes_back_with_no_forged_rank(up):
    """A rank killed during a run: the run fails naming it (the one that died, not who heard it).
    `ringside up` restarts the group, and meanwhile a hello with the world's size and the worker
    token but not the world's key takes no slot; the group comes back as new processes and runs.
    Last in the module: the cluster it leaves is whole again, but its processes are new."""
    before = {r["rank"]: r["pid"] for r in up.wait_ranks(3)["ranks"]}
    status, body = up.call(
        "POST",
        "/api/runs",
        {
            "collective": "all_reduce",
            "algorithm": "ring",
            "count": 1 << 18,
            "iterations": 5000,
            "capture": "none",
        },
    )
    assert status == 202, body
    while up.call("GET", f"/api/runs/{body['id']}")[1]["state"] != "running":
        time.sleep(0.05)
    os.kill(before[2], signal.SIGKILL)
    refusals = []  # tried again and again until the new ranks are all back
    while len(live_new(up, before.values())) < 3 and len(refusals) < 300:
        refusals.append(forged_hello(up, rank=0, world_size=3))
    run = up.wait(body["id"])
    assert run["state"] == "failed"
    assert run["error"].startswith("rank 2 was lost during the run"), run["error"]
    after = {r["rank"]: r["pid"] for r in up.wait_ranks(3, exclude_pids=set(before.values()))["ranks"]}
    assert set(after) == {0, 1, 2} and not set(after.values()) & set(before.values())
    assert wait_gone(list(before.values())) == []
    assert None not in refusals, f"a forged rank 0 held a slot: {Counter(refusals)}"
    assert any("world key differs" in r and "restart" in r for r in refusals), Counter(refusals)
    assert up.run(collective="all_reduce", algorithm="tree", count=6)["verified"] is True


def live_new(up, old_pids) -> list[dict]:
    return [r for r in up.cluster()["ranks"] if r["status"] != "lost" and r["pid"] not in set(old_pids)]


def forged_hello(up, rank: int, world_size: int) -> str | None:
    """The reason a hello with the worker token but not the world's key is refused; None if it held a
    slot (the server closes a refused hello at once; one that holds a slot hears nothing)."""
    forged = ScriptedRank(up, rank, world_size, pid=4242)
    try:
        forged.ws.recv(timeout=10)
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return closed.rcvd.reason if closed.rcvd else ""
    finally:
        forged.close()
    return None
