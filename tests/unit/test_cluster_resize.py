"""The cluster while the server resizes its own world (Cluster.resize): the ranks it had are
forgotten, only the new world's hellos (its size, the world's key) join until it is whole, and then
the usual rules hold again."""

from __future__ import annotations

from ringside.server.cluster.cluster import Cluster
from ringside.worker_agent.core.protocol import Hello


def hello(rank: int, world_size: int, key: str = "ours") -> Hello:
    return Hello(
        rank=rank,
        world_size=world_size,
        host="h",
        pid=100 + rank,
        backend="gloo",
        device="cpu",
        torch_version="t",
        world_key=key,
    )


def whole(cluster: Cluster, n: int, key: str = "ours") -> None:
    for r in range(n):
        assert cluster.conflict(hello(r, n, key)) is None
        cluster.join(hello(r, n, key))


def test_a_resized_world_takes_only_its_own_ranks_until_whole():
    cluster = Cluster(lost_after=5)
    whole(cluster, 2)
    cluster.resize(3)
    assert cluster.ranks == {} and cluster.world_size == 0
    refused = "the world is being resized to 3 ranks: only its own ranks join"
    assert cluster.conflict(hello(0, 2)) == refused  # a rank of the old world
    assert cluster.conflict(hello(0, 3, "theirs")) == refused  # another world's
    whole(cluster, 3)
    assert cluster.world_size == 3 and cluster.complete and cluster.missing() == []
    assert cluster.expect is None
    # whole again: the usual rules, by which a rank of another size is refused while it is connected
    assert "differs from the cluster's 3" in (cluster.conflict(hello(3, 4)) or "")


def test_a_rank_of_the_old_world_leaving_late_forgets_nothing_of_the_new():
    cluster = Cluster(lost_after=5)
    whole(cluster, 4)
    cluster.resize(2)
    cluster.join(hello(0, 2))
    cluster.leave(3)  # the old rank 3, gone after the resize began
    assert list(cluster.ranks) == [0] and cluster.ranks[0].connected
    assert cluster.conflict(hello(1, 2)) is None
