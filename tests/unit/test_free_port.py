"""A port chosen for a listener is one no outgoing connection can be handed meanwhile."""

from __future__ import annotations

import socket

import pytest

from ringside.worker_agent.rank import local


def test_a_free_port_lies_below_the_kernel_s_ephemeral_range_and_binds():
    low = local._ephemeral_low()
    if low <= 1024:
        pytest.skip("no ephemeral range to keep below here")
    port = local.free_port()
    assert low - local.BELOW_EPHEMERAL <= port < low
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


def test_a_port_someone_listens_on_is_never_chosen(monkeypatch):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    # the one port in the range is taken: the choice falls back to one the kernel gives
    monkeypatch.setattr(local, "_ephemeral_low", lambda: port + 1)
    monkeypatch.setattr(local, "BELOW_EPHEMERAL", 1)
    try:
        assert local.free_port() != port
    finally:
        taken.close()
