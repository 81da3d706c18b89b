"""Who may join the cluster (Cluster.conflict, join, leave): a hello is only a claim, so what it
claims is bounded, a slot is taken by one rank at a time, and while a whole world's ranks restart
only its own ranks (its size, its key) take their slots back."""

from __future__ import annotations

from fake_clock import FakeClock
from in_process import hello

from ringside.server.cluster.cluster import Cluster

HOLD = 30.0


def whole(n: int, key: str = "ours") -> tuple[Cluster, FakeClock]:
    clock = FakeClock()
    cluster = Cluster(lost_after=5, hold=HOLD, clock=clock.now)
    for r in range(n):
        assert cluster.conflict(hello(r, n, world_key=key)) is None
        cluster.join(hello(r, n, world_key=key))
    return cluster, clock


def test_a_hello_with_an_impossible_local_world_or_pid_is_refused():
    cluster, _ = whole(1)
    cluster.leave(0)
    cluster.forget()
    for fields, words in ((dict(local_world_size=-5), "local world size"), (dict(pid=10**30), "pid")):
        assert words in (cluster.conflict(hello(0, 1, **fields)) or ""), fields


def test_a_forged_rank_of_the_worlds_own_size_takes_no_slot_while_the_group_restarts():
    """The worker token alone does not make a rank of this world: after a kill -9 `ringside up`
    restarts the group, and meanwhile a hello with the world's size but not its key is refused;
    the real ranks, which share the key, come back."""
    cluster, clock = whole(3)
    cluster.leave(1)  # the rank killed
    assert "world key differs from its ranks'" in cluster.conflict(hello(1, 3, world_key=""))
    assert "rank 0 is already connected" in cluster.conflict(hello(0, 3, world_key=""))
    for r in (0, 2):  # the group restarts: every rank goes
        cluster.leave(r)
    clock.advance(1)
    refused = cluster.conflict(hello(0, 3, world_key=""))
    assert refused == "the world key differs from the cluster's, held while it restarts (29 s)"
    assert "world size 2 differs from the cluster's 3, held while its ranks restart" in cluster.conflict(
        hello(0, 2, world_key="")
    )
    for r in range(3):  # the real ranks come back
        assert cluster.conflict(hello(r, 3, world_key="ours", pid=200 + r)) is None
        cluster.join(hello(r, 3, world_key="ours", pid=200 + r))
    assert cluster.missing() == [] and [r["pid"] for r in cluster.to_json()["ranks"]] == [200, 201, 202]


def test_a_world_gone_longer_than_its_hold_may_be_replaced():
    cluster, clock = whole(3)
    for r in range(3):
        cluster.leave(r)
    clock.advance(HOLD + 1)
    assert cluster.held() == 0.0
    assert cluster.conflict(hello(0, 2, world_key="theirs")) is None
    cluster.join(hello(0, 2, world_key="theirs"))
    assert cluster.world_size == 2 and list(cluster.ranks) == [0]
