"""A job opened from dumps holds what a watched job may (judge.Dumped): each rank's dump is taken
into the job as it comes and let go; past DUMPS_BYTES a rank still counts in the job, its
collectives are not read, and the job says so once."""

from __future__ import annotations

from ringside.server.postmortem import judge
from ringside.server.postmortem.judge import Dumped
from ringside.worker_agent.core.dump_protocol import DumpedRank, DumpsHello
from ringside.worker_agent.core.watch_protocol import Issued, WatchHello, WatchReport

T0 = 1_000_000_000
WORLD = 4


def dumped_rank(rank: int, seqs: range) -> DumpedRank:
    hello = WatchHello(
        job="k", rank=rank, world_size=WORLD, host="h", pid=0, launcher="dump", backend="gloo", started_ns=T0
    )
    issued = [Issued(group="0", seq=s, op="all_reduce", count=4, bytes=16, t_ns=T0 + s) for s in seqs]
    return DumpedRank(hello=hello, reports=[WatchReport(rank=rank, t_ns=T0 + 100, issued=issued)])


def said(ranks: list[int]) -> DumpsHello:
    return DumpsHello(source="dumps", world_size=WORLD, ranks=ranks, taken_ns=T0 + 10**9)


def test_ranks_past_the_bound_are_judged_as_ranks_that_left_no_dump(monkeypatch):
    monkeypatch.setattr(judge, "DUMPS_BYTES", 250)
    dumps = Dumped(said([0, 1, 2, 3]), dumped_rank(0, range(1, 4)).hello)
    for rank in range(WORLD):
        dumps.take(dumped_rank(rank, range(1, 4)), 100)  # two fit in 250 bytes
    w = dumps.judged("j-000001")
    assert {r: info.issued for r, info in w.job.ranks.items()} == {"0": {"0": 3}, "1": {"0": 3}}
    unread = [e.text for e in w.job.events if "were not read" in e.text]
    assert unread == ["the dumps past 0 MB were not read: ranks 2, 3 judged as ranks that left none"]
    assert w.job.hang is not None and w.job.hang.late == [2, 3]  # ranks 0 and 1 wait in seq 1 for them
    assert "ranks 2, 3 left no dump" in w.job.hang.text


def test_within_the_bound_every_dump_is_judged_as_one_taken_at_once():
    ranks = [dumped_rank(r, range(1, 6 if r else 4)) for r in range(WORLD)]  # rank 0 behind the others
    one_by_one = Dumped(said(list(range(WORLD))), ranks[0].hello)
    for rank in ranks:
        one_by_one.take(rank, len(rank.model_dump_json()))
    at_once = judge.judged("j-000001", said(list(range(WORLD))), ranks)
    w = one_by_one.judged("j-000001")
    assert w.job.model_dump() == at_once.job.model_dump()
    assert w.job.hang is not None and w.job.hang.late == [0]
