"""Two nodes, as an engineer's cluster has them: each a network namespace with its own
address and host name, joined to the server's by a bridge. Workers join the way the
README says (`python -m ringside.worker_agent --server URL` with torchrun's variables), gloo
talks across the bridge, and the cluster view groups the ranks by host.

Needs root and iproute2 (CI's container has both); skips cleanly without them."""

from __future__ import annotations

import os
import subprocess
import sys

from netns import NODES, Bridge, on_node
from server_helpers import WORKER_TOKEN, start_serve

RANKS_PER_NODE = 2


def start_rank(net: Bridge, rank: int, server_url: str) -> subprocess.Popen:
    node = rank // RANKS_PER_NODE
    inside = net.nodes[node][1]
    env = {
        **os.environ,
        "RANK": str(rank),
        "WORLD_SIZE": str(len(NODES) * RANKS_PER_NODE),
        "LOCAL_RANK": str(rank % RANKS_PER_NODE),
        "LOCAL_WORLD_SIZE": str(RANKS_PER_NODE),
        "MASTER_ADDR": net.nodes[0][2],
        "MASTER_PORT": "29500",
        "GLOO_SOCKET_IFNAME": inside,
        "OMP_NUM_THREADS": "1",
        "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN,
    }
    cmd = on_node(net, node, sys.executable, "-m", "ringside.worker_agent", "--server", server_url)
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)


def test_ranks_on_two_nodes_run_collectives_across_them(tmp_path, bridge):
    server = start_serve(tmp_path, "--host", "0.0.0.0")
    port = server.url.rsplit(":", 1)[1]
    workers = [
        start_rank(bridge, r, f"http://{bridge.host_ip}:{port}") for r in range(len(NODES) * RANKS_PER_NODE)
    ]
    try:
        cluster = server.wait_ranks(4)
        hosts = {r["rank"]: r["host"] for r in cluster["ranks"]}
        assert hosts == {0: "node-a", 1: "node-a", 2: "node-b", 3: "node-b"}

        ring = server.run(collective="all_reduce", algorithm="ring", count=64, capture="full")
        assert ring["state"] == "done" and ring["verified"] is True
        node_of = {r: r // RANKS_PER_NODE for r in range(4)}
        # [src, dst, chunk, into, reduce]
        links = {(src, dst) for step in ring["steps"] for src, dst, *_ in step["transfers"]}
        crossing = {(src, dst) for src, dst in links if node_of[src] != node_of[dst]}
        assert crossing == {(1, 2), (3, 0)}, "a ring over two nodes crosses between them twice"

        pair = server.run(collective="broadcast", algorithm="binomial_tree", count=16, root=1, group=[1, 2])
        assert pair["state"] == "done" and pair["verified"] is True and pair["group"] == [1, 2]
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(timeout=30)
        server.stop()
