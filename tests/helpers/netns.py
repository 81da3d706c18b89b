"""Two nodes on one machine: each a network namespace with its own address and host name
(a UTS namespace of its own), joined to this host by a bridge. Needs root, iproute2 and
unshare (CI's container has them); the `bridge` fixture (conftest.py) skips cleanly without
them."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

NODES = ("node-a", "node-b")
# Chromium aborts its page loads (net::ERR_NETWORK_CHANGED) when this host's interfaces change,
# and a bridge's change for seconds after it is up (its ports' carrier, IPv6's duplicate address
# detection): a bridge lives only while no page test of the other pytest worker is in flight
CALM = Path(tempfile.gettempdir()) / "ringside-tests-interfaces.lock"


@contextlib.contextmanager
def interfaces(changing: bool):
    """Held shared by a page test for its length, exclusively by a bridge for its life."""
    with open(CALM, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX if changing else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


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
            probe = (
                f"import socket; socket.create_connection(('{self.host_ip}', "
                f"{listener.getsockname()[1]}), timeout=3)"
            )
            for ns, _, _ in self.nodes:
                named = subprocess.run(
                    ["ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", "hostname probe && hostname"],
                    capture_output=True,
                    text=True,
                )
                reached = subprocess.run(
                    ["ip", "netns", "exec", ns, sys.executable, "-c", probe], capture_output=True
                )
                if named.stdout.strip() != "probe" or reached.returncode != 0:
                    return False
        return True

    def down(self) -> None:
        for ns, _, _ in self.nodes:  # deleting a namespace deletes its veth pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


@contextlib.contextmanager
def two_nodes():
    """A Bridge, up and usable, for the `with`; the test skips where none can be made (the
    `bridge` fixture, conftest.py)."""
    if (
        not sys.platform.startswith("linux")
        or os.geteuid() != 0
        or not (shutil.which("ip") and shutil.which("unshare"))
    ):
        pytest.skip("two-node test needs Linux, root, iproute2 and unshare")
    with interfaces(changing=True):
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


def on_node(net: Bridge, node: int, *cmd: str) -> list[str]:
    """`cmd` run inside node `node`'s namespace under its host name (every step execs: the pid is cmd's)."""
    ns = net.nodes[node][0]
    return [
        "ip",
        "netns",
        "exec",
        ns,
        "unshare",
        "--uts",
        "sh",
        "-c",
        'hostname "$0" && exec "$@"',
        NODES[node],
        *cmd,
    ]
