"""Two nodes, as an engineer's cluster has them: each a network namespace with its own
address and host name, joined to the server's by a bridge. Workers join the way the
README says (`python -m ringside.worker_agent --server URL` with torchrun's variables), gloo
talks across the bridge, and the cluster view groups the ranks by host.

Needs root and iproute2 (CI's container has both); skips cleanly without them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys

import pytest
from server_helpers import WORKER_TOKEN, start_serve

NODES = ("node-a", "node-b")
RANKS_PER_NODE = 2


def sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True, text=True)


class Bridge:
    """A bridge on this host at SUBNET.1 and one namespace per node at SUBNET.10, .11, …"""

    def __init__(self):
        tag = os.getpid() % 100_000
        self.subnet = f"10.213.{os.getpid() % 250}"
        self.bridge = f"rsb{tag}"
        self.nodes = [(f"rs{tag}{i}", f"rs{tag}{i}n", f"{self.subnet}.{10 + i}") for i in range(len(NODES))]

    @property
    def host_ip(self) -> str:
        return f"{self.subnet}.1"

    def up(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.host_ip}/24", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for ns, inside, ip in self.nodes:
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", f"{ns}h", "type", "veth", "peer", "name", inside)
            sh("ip", "link", "set", f"{ns}h", "master", self.bridge, "up")
            sh("ip", "link", "set", inside, "netns", ns)
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{ip}/24", "dev", inside)
            sh("ip", "netns", "exec", ns, "ip", "link", "set", inside, "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")

    def usable(self) -> bool:
        """Whether every node can name itself and open a TCP connection to this host across the bridge."""
        with socket.create_server((self.host_ip, 0)) as listener:
            probe = f"import socket; socket.create_connection(('{self.host_ip}', {listener.getsockname()[1]}), timeout=3)"
            for ns, _, _ in self.nodes:
                named = subprocess.run(["ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", "hostname probe && hostname"],
                                       capture_output=True, text=True)
                reached = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", probe], capture_output=True)
                if named.stdout.strip() != "probe" or reached.returncode != 0:
                    return False
        return True

    def down(self) -> None:
        for ns, _, _ in self.nodes:  # deleting a namespace deletes its veth pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


@pytest.fixture
def bridge():
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or not (shutil.which("ip") and shutil.which("unshare")):
        pytest.skip("two-node test needs Linux, root, iproute2 and unshare")
    net = Bridge()
    try:
        net.up()
    except subprocess.CalledProcessError as e:
        net.down()
        pytest.skip(f"cannot make network namespaces here: {e.stderr.strip()}")
    if not net.usable():
        net.down()
        pytest.skip("the namespaces cannot name themselves or reach this host across the bridge")
    try:
        yield net
    finally:
        net.down()


def start_rank(net: Bridge, rank: int, server_url: str) -> subprocess.Popen:
    node = rank // RANKS_PER_NODE
    ns, inside, _ = net.nodes[node]
    env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(len(NODES) * RANKS_PER_NODE),
           "LOCAL_RANK": str(rank % RANKS_PER_NODE), "LOCAL_WORLD_SIZE": str(RANKS_PER_NODE),
           "MASTER_ADDR": net.nodes[0][2], "MASTER_PORT": "29500", "GLOO_SOCKET_IFNAME": inside,
           "OMP_NUM_THREADS": "1", "RINGSIDE_WORKER_TOKEN": WORKER_TOKEN}
    # a UTS namespace of its own gives the node its host name; every step execs, so the pid is the worker's
    cmd = ["ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', NODES[node],
           sys.executable, "-m", "ringside.worker_agent", "--server", server_url]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL)


def test_ranks_on_two_nodes_run_collectives_across_them(tmp_path, bridge):
    server = start_serve(tmp_path, "--host", "0.0.0.0")
    port = server.url.rsplit(":", 1)[1]
    workers = [start_rank(bridge, r, f"http://{bridge.host_ip}:{port}") for r in range(len(NODES) * RANKS_PER_NODE)]
    try:
        cluster = server.wait_ranks(4)
        hosts = {r["rank"]: r["host"] for r in cluster["ranks"]}
        assert hosts == {0: "node-a", 1: "node-a", 2: "node-b", 3: "node-b"}

        ring = server.run(collective="all_reduce", algorithm="ring", count=64, capture="full")
        assert ring["state"] == "done" and ring["verified"] is True
        node_of = {r: r // RANKS_PER_NODE for r in range(4)}
        links = {(src, dst) for step in ring["steps"] for src, dst, *_ in step["transfers"]}  # [src, dst, chunk, into, reduce]
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
