"""What one watched job keeps is bounded: the names its reports may bring in (bounds.py) and
the bytes of the collectives its store keeps (store.Kept)."""

from __future__ import annotations

from ringside.server.watched.bounds import MAX_OPS, Bounds
from ringside.server.watched.store import KEPT_BYTES, Kept
from ringside.server.watched.words import english
from ringside.worker_agent.core.watch_protocol import MAX_GROUPS, WatchReport


def report(issued=(), links=(), pending=None) -> WatchReport:
    return WatchReport(rank=0, t_ns=1, issued=list(issued), links=list(links), pending=pending)


def one(group: str, op: str = "all_reduce") -> dict:
    return {"group": group, "seq": 0, "op": op, "t_ns": 1}


def test_group_and_op_names_past_the_bounds_are_dropped_and_said_once():
    said: list[str] = []
    bounds = Bounds(world_size=4, note=lambda words: said.append(english(words)))
    first = bounds.screen(report([one(f"g{i}") for i in range(MAX_GROUPS + 10)]))
    assert [i.group for i in first.issued] == [f"g{i}" for i in range(MAX_GROUPS)], "the default group is one"
    again = bounds.screen(report([one("g3"), one("new"), one("0")]))
    assert [i.group for i in again.issued] == ["g3", "0"], "a name the job has is always taken"
    ops = bounds.screen(report([one("0", f"op{i}") for i in range(MAX_OPS + 5)]))
    assert len(ops.issued) == MAX_OPS - 1, "all_reduce is one of them"
    assert len(said) == 2 and "group names" in said[0] and "op names" in said[1], said


def test_peers_beyond_the_world_are_dropped_and_a_report_with_nothing_past_is_itself():
    said: list[str] = []
    bounds = Bounds(world_size=4, note=lambda words: said.append(english(words)))
    links = [{"peer": p, "sent": 8, "sends": 1} for p in (1, 3, 4, 60000)]
    assert [link.peer for link in bounds.screen(report(links=links)).links] == [1, 3]
    fine = report([one("0")], [{"peer": 2, "sent": 1, "sends": 1}], {"0": 0})
    assert bounds.screen(fine) is fine
    assert said == ["rank 0 named a peer beyond the world of 4: dropped"]


def test_the_oldest_collectives_go_once_a_jobs_kept_bytes_pass_the_bound():
    kept = Kept()
    quarter = KEPT_BYTES // 4
    assert kept.add([(0, quarter), (1, quarter), (2, quarter)]) == (0, -1)
    assert kept.add([(3, quarter), (4, quarter), (5, quarter)]) == (2, 1), "0 and 1 go, 2 to 5 fill it"
    assert kept.bytes == KEPT_BYTES and [i for i, _ in kept.sizes] == [2, 3, 4, 5]
    assert kept.add([(6, 2 * KEPT_BYTES)]) == (4, 5), "one larger than the bound is kept alone"
