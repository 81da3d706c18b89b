"""What the stage writes beside a run's traffic, against what real ranks measured, through a real
server and four gloo ranks: every built-in algorithm's closed form equals the bytes its ranks
counted; the compare view's curves, simulated, hold this cluster's runs as points on them; a
parameter server's run says which ranks are its servers and its bytes, simulated and counted, equal
(P-S)·N/S. A bad S refused: tests/unit/test_run_requests_refused.py; on the page:
tests/page/test_stage.py and tests/page/test_parameter_server.py."""

from __future__ import annotations

import pytest
from server_helpers import WORKER_TOKEN

from ringside.worker_agent.core.algorithms import algorithms
from ringside.worker_agent.core.algorithms import parameter_server as ps

P = 4
PS = "parameter_server"
QUICK = {"capture": "full", "iterations": 1, "warmup": 0}

pytestmark = pytest.mark.cluster(ranks=P, env={"RINGSIDE_WORKER_TOKEN": WORKER_TOKEN})


def test_the_formula_equals_the_measured_bytes_for_every_algorithm_that_has_one(up):
    """Real gloo runs at P=4 for every built-in (collective, algorithm) with a closed form."""
    for collective, algorithm in [(a.collective, a.name) for a in algorithms() if a.formula]:
        run = up.run(
            collective=collective,
            algorithm=algorithm,
            count=8,
            root=1 if collective != "all_reduce" else 0,
            **QUICK,
        )
        assert run["state"] == "done", run["error"]
        f = run["display"]["formula"]
        assert f is not None and f["value"] == f["measured"], f"{collective} {algorithm}: {f}"
        if (collective, algorithm) == ("all_reduce", "ring"):
            ring = run
    assert ring["display"]["formula"]["value"] == 2 * (8 * 4 // 4) * 3 == 48
    assert ring["display"]["formula"]["formula"] == "2·(N/P)·(P-1)"

    # The compare view: simulated curves, and these runs' points on them.
    status, compare = up.call("GET", "/api/compare")
    assert status == 200
    assert [s["algorithm"] for s in compare["series"]] == ["master_worker", "ring", "tree", "pull_push"]
    # the one-server parameter server: its server takes (P-1)·N, as master-worker's master
    server = compare["series"][-1]
    assert (
        server["label"] == "parameter server (S=1)" and server["per_rank"] == compare["series"][0]["per_rank"]
    )
    for point in compare["measured"]:
        series = next(s for s in compare["series"] if s["algorithm"] == point["algorithm"])
        i = series["p"].index(point["p"])
        assert point["per_rank"] == pytest.approx(series["per_rank"][i]), point
        assert point["busiest_link"] == pytest.approx(series["busiest_link"][i]), point
    assert {p["algorithm"] for p in compare["measured"]} == {"master_worker", "ring", "tree"}
    assert series["p"] == list(range(2, 65))


def test_a_served_run_shows_its_servers_and_its_bytes(up):
    run = up.run(collective=PS, algorithm=ps.NAME, servers=2, root=1, count=8, dtype="int32", capture="full")
    assert run["state"] == "done" and run["verified"] is True, run["error"]
    assert run["layout"] == {"shape": "servers", "root": 1, "servers": [1, 2]}
    assert [s["phase"] for s in run["steps"]] == ["pull", "push"]
    n = 8 * 4
    # simulated = counted
    assert run["traffic"]["sent"] == {r: x["bytes_sent"] for r, x in run["results"].items()}
    assert run["traffic"]["sent"]["1"] == run["traffic"]["received"]["2"] == ps.formula(n, P, 2)["value"]
    assert run["results"]["0"]["output"] and run["results"]["3"]["bytes_sent"] == n
    shown = run["display"]["formula"]  # what the stage writes beside the measurement
    assert shown["formula"] == "(P-S)·N/S" and shown["value"] == shown["measured"] == (P - 2) * n // 2
    native = up.run(collective=PS, servers=3, count=6, dtype="int32")
    assert native["state"] == "done" and native["layout"]["servers"] == [0, 1, 2], native["error"]
