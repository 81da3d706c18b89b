"""Faults a torchrun job survives: a rank held back by a run's hang option, under torchrun with
its default settings (no restarts), on one node and on two (network namespaces, as
test_multinode.py makes them). The ranks build their group again in process: the same
processes stay connected to a real server, torchrun never sees a rank exit, and the next
run verifies; the run's error names the rank and the step as the option gave them."""

from __future__ import annotations

import os
import subprocess
import sys

from distributed import stop_torchrun
from netns import NODES, Bridge, on_node
from server_helpers import WORKER_TOKEN, start_serve

TORCHRUN = (sys.executable, "-m", "torch.distributed.run")
RANKS_PER_NODE = 2


def torchrun(
    *flags: str, server_url: str, node: tuple[Bridge, int] | None = None, env=None
) -> subprocess.Popen:
    """`torchrun FLAGS -m ringside.worker_agent --server URL`, as the README joins a cluster, in a
    session of its own (stop_torchrun stops it), inside a node's namespace if `node` is given."""
    cmd = [*TORCHRUN, *flags, "-m", "ringside.worker_agent", "--server", server_url]
    if node is not None:
        cmd = on_node(*node, *cmd)
    env = {**os.environ, "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN, "OMP_NUM_THREADS": "1", **(env or {})}
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True)


def hang(server, rank: int, step: int, **spec) -> dict:
    """A ring all_reduce in which `rank` never arrives at `step`: the failed run."""
    status, body = server.call(
        "POST",
        "/api/runs",
        {
            "collective": "all_reduce",
            "algorithm": "ring",
            "count": 16,
            "timeout": 2,
            **spec,
            "perturb": {"hang": {"rank": rank, "step": step}},
        },
    )
    assert status == 202, body
    return server.wait(body["id"], timeout=60)


def assert_same_ranks_connected(server, pids: set[int], launchers: list[subprocess.Popen]) -> None:
    ranks = server.cluster()["ranks"]
    assert {r["pid"] for r in ranks} == pids and all(r["status"] != "lost" for r in ranks), ranks
    assert all(launcher.poll() is None for launcher in launchers), "torchrun saw no rank exit"


def test_a_hang_under_torchrun_with_default_settings_leaves_every_rank_connected(tmp_path):
    server = start_serve(tmp_path)
    job = torchrun("--standalone", "--nproc-per-node=3", server_url=server.url)
    try:
        pids = {r["pid"] for r in server.wait_ranks(3)["ranks"]}
        run = hang(server, rank=2, step=1)
        assert run["state"] == "failed"
        assert run["error"].startswith(
            "rank 2 never arrived at step 1 (step 2 counting from 1); ranks 0, 1 waited for it"
        ), run["error"]
        assert (
            "(its own report: rank 2: all_reduce/ring failed: rank 2 was held back from step 1 "
            "by the run's hang option" in run["error"]
        ), run["error"]
        assert_same_ranks_connected(server, pids, [job])
        again = server.run(collective="all_reduce", algorithm="ring", count=16)
        assert again["state"] == "done" and again["verified"] is True

        # rank 2 takes no part in this hang: it hears of the broken group while idle, and joins the new one
        pair = hang(server, rank=1, step=0, group=[0, 1])
        assert pair["state"] == "failed" and pair["error"].startswith("rank 1 never arrived at step 0"), pair[
            "error"
        ]
        assert_same_ranks_connected(server, pids, [job])
        tree = server.run(collective="broadcast", algorithm="binomial_tree", count=16, root=2, group=[1, 2])
        assert tree["state"] == "done" and tree["verified"] is True, "subgroups are made anew"
        ring = server.run(collective="all_reduce", algorithm="ring", count=16)
        assert ring["state"] == "done" and ring["verified"] is True
    finally:
        stop_torchrun(job)
        server.stop()


def test_a_hang_on_one_of_two_torchrun_nodes_leaves_every_rank_connected(tmp_path, bridge):
    server = start_serve(tmp_path, "--host", "0.0.0.0")
    url = f"http://{bridge.host_ip}:{server.url.rsplit(':', 1)[1]}"
    master = bridge.nodes[0][2]
    jobs = [
        torchrun(
            f"--nnodes={len(NODES)}",
            f"--node-rank={node}",
            f"--nproc-per-node={RANKS_PER_NODE}",
            f"--master-addr={master}",
            "--master-port=29500",
            server_url=url,
            node=(bridge, node),
            env={"GLOO_SOCKET_IFNAME": bridge.nodes[node][1]},
        )
        for node in range(len(NODES))
    ]
    try:
        cluster = server.wait_ranks(4)
        assert {r["rank"]: r["host"] for r in cluster["ranks"]} == {
            0: "node-a",
            1: "node-a",
            2: "node-b",
            3: "node-b",
        }
        pids = {r["pid"] for r in cluster["ranks"]}
        run = hang(server, rank=3, step=2)
        assert run["state"] == "failed" and run["error"].startswith(
            "rank 3 never arrived at step 2 (step 3 counting from 1)"
        ), run["error"]
        assert_same_ranks_connected(server, pids, jobs)
        again = server.run(collective="all_reduce", algorithm="ring", count=64)
        assert again["state"] == "done" and again["verified"] is True
    finally:
        for job in jobs:
            stop_torchrun(job)
        server.stop()
