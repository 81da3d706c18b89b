"""The rest of the server's promises: `ringside run` from a terminal, a run that loses a
rank fails naming it (and the group comes back), and the cost model's fit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from server_helpers import start_up

from ringside.server.model import costs as model
from ringside.server.runs.run import Run, new_run
from ringside.worker_agent.core.protocol import RunSpec

pytestmark = pytest.mark.cluster(ranks=3)


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


def test_a_run_that_loses_a_rank_fails_naming_it_and_the_group_returns(tmp_path):
    own = start_up(tmp_path, ranks=3)
    try:
        status, body = own.call(
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
        while own.call("GET", f"/api/runs/{body['id']}")[1]["state"] != "running":
            time.sleep(0.05)
        victim = next(r for r in own.cluster()["ranks"] if r["rank"] == 2)["pid"]
        os.kill(victim, signal.SIGKILL)
        run = own.wait(body["id"])
        assert run["state"] == "failed"
        # the one that died, not who heard it
        assert run["error"].startswith("rank 2 was lost during the run"), run["error"]
        own.wait_ranks(3, exclude_pids={victim})
        assert own.run(collective="all_reduce", algorithm="tree", count=6)["verified"] is True
    finally:
        own.stop()


def test_the_cost_model_fits_alpha_and_beta_from_runs():
    alpha, beta = 40e-6, 2e-9
    runs = []
    for i, (algorithm, count) in enumerate(
        [("ring", 4096), ("tree", 4096), ("master_worker", 1024), ("ring", 65536), ("rabenseifner", 8192)]
    ):
        run = new_run(f"r-{i}", RunSpec(collective="all_reduce", algorithm=algorithm, count=count), "gloo", 4)
        steps, nbytes = model.features("all_reduce", algorithm, 4, 0, 1, count, 4)
        run.time = steps * alpha + nbytes * beta
        runs.append(run)
    fitted_alpha, fitted_beta, n = model.fit(runs)
    assert n == 5 and fitted_alpha == pytest.approx(alpha) and fitted_beta == pytest.approx(beta)
    answer = model.predict(
        model.ModelQuery(collective="all_reduce", algorithm="ring", world_size=4, count=4096), model.fit(runs)
    )
    assert answer["time"] == pytest.approx(6 * alpha + 6 * 4096 * beta) and answer["fitted_from_runs"] == 5
    assert model.fit(runs[:1])[2] == 0  # one shape cannot separate alpha from beta: the defaults stand


def test_a_run_stored_before_layouts_were_kept_gets_its_layout_and_op_when_read():
    run = new_run(
        "r-1", RunSpec(collective="broadcast", algorithm="binomial_tree", root=2, count=4), "gloo", 4
    )
    old = run.model_dump(mode="json", exclude={"layout", "op"})
    again = Run.model_validate_json(json.dumps(old))
    assert again.layout == run.layout and again.layout.root == 2 and again.layout.shape == run.schedule.layout
    assert (
        again.op is None
        and Run.model_validate(
            new_run("r-2", RunSpec(collective="barrier"), "gloo", 4).model_dump(exclude={"layout", "op"})
        ).op
        == "BOR"
    )
