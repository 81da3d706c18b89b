"""A watched job of thousands of ranks, fed through the server's door (frames.parse_event) the
frames a synthetic job's ranks send (worker_agent/clients/synthetic_job.py: the real watch
protocol), with the server's clock moved by hand: the stopped rank is named, and only it, with
every other rank waiting; and the world that every rank names is kept once. And what a job may make
the server hold, whatever a forged hello claims or a forged reporter names: bounded."""

from __future__ import annotations

import json

from matched import Clock

from ringside.server.door.frames import parse_event
from ringside.server.watched import hangs, rank_waits
from ringside.server.watched.bounds import MAX_OPS, Bounds
from ringside.server.watched.live import GROUP_RANKS, LiveWatchedJob
from ringside.server.watched.matching import MAX_OPEN, RANKS_HELD
from ringside.worker_agent.clients.synthetic_job import Plan, SyntheticJob
from ringside.worker_agent.core.watch_protocol import (
    MAX_GROUPS,
    WATCH_MESSAGE,
    Issued,
    Link,
    WatchHello,
    WatchReport,
)

WORLD, STOPPED, STOP_AT = 4096, 2051, 3


def read(frame: dict):
    return parse_event({"text": json.dumps(frame)}, WATCH_MESSAGE)


def test_the_stopped_rank_of_4096_is_named_alone_and_every_other_rank_waits(monkeypatch):
    plan = Plan(world=WORLD, key="k" * 16, t0=1000.0, stop_rank=STOPPED, stop_at=STOP_AT)
    job, clock = SyntheticJob("http://127.0.0.1:1", "t", plan), Clock()
    watched = None
    for rank in range(WORLD):
        hello = read(job.hello_of(rank))
        watched = watched or LiveWatchedJob.start("j-000001", hello, clock=clock)
        watched.joined(hello)
    assert watched is not None
    now = plan.stop_time + 0.05  # every other rank has issued the stopped one's next, and waits in it
    for rank in range(WORLD):  # the first names the world, as each rank's first report does
        world = {"0": list(range(WORLD))} if rank == 0 else {}
        watched.report(read({**job.report_of(rank, -1, plan.last_issued(rank, now), now), "groups": world}))
    assert hangs.hang_change(watched) is None  # the collective is not yet open for long: no hang
    clock.t += rank_waits.HANG_S
    asked = []  # whether a rank finished a collective: asked of each rank in it at most a few times a check
    monkeypatch.setattr(
        watched, "finished_by", lambda rank, c, ask=watched.finished_by: asked.append(1) or ask(rank, c)
    )
    change = hangs.hang_change(watched)
    assert len(asked) <= 4 * WORLD, f"{len(asked):,} asked: a check must not walk the ranks once a rank"
    assert change is not None and change[0] is not None
    hang = change[0]
    assert (hang.kind, hang.op, hang.seq, hang.late) == ("wait", "all_reduce", STOP_AT, [STOPPED])
    assert hang.waiting == [r for r in range(WORLD) if r != STOPPED]
    others = f"ranks 0–{STOPPED - 1}, {STOPPED + 1}–{WORLD - 1}"
    assert hang.text.startswith(f"{others} wait in all_reduce #{STOP_AT}")
    assert f"rank {STOPPED} last reported #{STOP_AT - 1}" in hang.text
    # every collective before it completed; the one waited in has every rank but the stopped one
    waited = watched.collectives.open[("0", STOP_AT)]
    assert len(waited.issued) == WORLD - 1 and str(STOPPED) not in waited.issued
    assert all(watched.collectives.recent[("0", seq)].complete for seq in range(STOP_AT))


def test_a_group_every_rank_names_again_is_kept_once_and_a_new_list_for_it_replaces_it():
    plan = Plan(world=64, key="k" * 16, t0=1000.0)
    job = SyntheticJob("http://127.0.0.1:1", "t", plan)
    watched = None
    for rank in range(64):
        hello = read(job.hello_of(rank))
        watched = watched or LiveWatchedJob.start("j-000001", hello, clock=Clock())
        watched.joined(hello)
    assert watched is not None
    said = {"0": list(range(64)), "7": [0, 1]}
    watched.report(read({**job.report_of(0, -1, -1, 1000.0), "groups": said}))
    kept = watched.job.groups["7"]
    for rank in range(1, 64):  # each names them again, the second with the name torch gave group 7
        descs = {"7": "mesh_tp"} if rank == 1 else {}
        watched.report(read({**job.report_of(rank, -1, -1, 1000.0), "groups": said, "group_descs": descs}))
    assert watched.job.groups["7"] is kept  # the one list a group's collectives share
    assert watched.job.group_descs == {"7": "mesh_tp"}
    watched.report(read({**job.report_of(2, -1, -1, 1000.0), "groups": {"7": [0, 1, 2]}}))
    assert watched.job.groups["7"] == [0, 1, 2]
    watched.report(read({**job.report_of(3, -1, -1, 1000.0), "groups": {"8": [0, 64]}}))  # beyond the world
    assert "8" not in watched.job.groups
    assert any("beyond what a job keeps" in e.text for e in watched.job.events)


def claimed(world: int, key: str = "k-wide", clock: Clock | None = None) -> LiveWatchedJob:
    """A job whose one rank's hello claims `world` ranks."""
    hello = WatchHello(
        job=key, rank=0, world_size=world, host="h", pid=1, launcher="script", backend="gloo", started_ns=1
    )
    watched = LiveWatchedJob.start("j-000001", hello, clock=clock or Clock())
    watched.joined(hello)
    return watched


def test_a_job_of_many_ranks_holds_fewer_collectives_in_memory():
    """A hello may claim 65,536 ranks: what the server holds of its open collectives stays bounded.
    (Was tests/served/test_watch.py, in-process already.)"""
    watched = claimed(1 << 16)
    watched.report(
        WatchReport(
            rank=0,
            t_ns=2,
            issued=[Issued(group="0", seq=i, op="all_reduce", t_ns=2 + i) for i in range(1000)],
        )
    )
    assert len(watched.collectives.open) == watched.collectives.held(MAX_OPEN) == RANKS_HELD // (1 << 16)
    assert sum(len(c.ranks) for c in watched.collectives.open.values()) <= RANKS_HELD


class Walked(list):
    """A group's ranks that count how often they are walked."""

    walks = 0

    def __iter__(self):
        Walked.walks += 1
        return super().__iter__()


def test_a_wide_world_of_absent_ranks_is_checked_for_hangs_without_walking_it():
    """A hello claims 65,536 ranks and its one rank issues 1,024 collectives: every tick's hang check
    walked each open one's 65,536 ranks twice (1.4 s a check, four checks a second: the loop's all).
    Nothing is walked while no rank of it that is here is late; a rank here that is late is named.
    (Was tests/served/test_watch.py, in-process already.)"""
    clock = Clock()
    watched = claimed(1 << 16, "k-absent", clock)
    watched.collectives.world = Walked(range(1 << 16))  # the list the world group's collectives share
    watched.report(
        WatchReport(
            rank=0,
            t_ns=2,
            issued=[Issued(group="0", seq=i, op="all_reduce", t_ns=2 + i) for i in range(1024)],
        )
    )
    clock.t += rank_waits.HANG_S + 1
    Walked.walks = 0
    hangs.hang_change(watched)
    assert Walked.walks == 0 and watched.job.hang is None
    hello = WatchHello(
        job="k-absent",
        rank=7,
        world_size=1 << 16,
        host="h",
        pid=8,
        launcher="script",
        backend="gloo",
        started_ns=1,
    )
    watched.joined(hello)  # here, and in none of them
    hangs.hang_change(watched)
    assert watched.job.hang is not None and watched.job.hang.late == [7]
    assert Walked.walks == 1, "the first wait is named: one walk"


def test_process_groups_past_a_jobs_bounds_are_dropped_and_said_once():
    """A report names only new groups, at most 256: a forged rank that names 256 more of every rank
    in each report grew the server by hundreds of megabytes and its job's page to 100 MB. (Was
    tests/served/test_watch.py, through a server's socket.)"""
    world = 4096
    every = list(range(world))
    watched = claimed(world, "k-groups")
    watched.report(WatchReport(rank=0, t_ns=1, groups={"past": [0, world], "tp": [0, 1]}))
    for first in range(0, 512, 64):  # 512 groups of the whole world: twice the names, 8 M ranks
        watched.report(WatchReport(rank=0, t_ns=2, groups={f"g{i}": every for i in range(first, first + 64)}))
    watched.report(WatchReport(rank=0, t_ns=3, groups={"tp": [2, 3]}))
    groups = watched.job.groups
    assert groups["tp"] == [2, 3] and "past" not in groups, "a group of a rank beyond the world is dropped"
    assert sum(len(r) for r in groups.values()) <= GROUP_RANKS
    assert len(groups) == GROUP_RANKS // world, "tp, and the 63 more that fit"
    said = [e.text for e in watched.job.events if "process group beyond" in e.text]
    assert len(said) == 1, said


def test_a_reporter_naming_new_groups_ops_and_peers_is_kept_to_the_jobs_bounds():
    """One rank sends reports each naming 1,024 collectives in a group and an op of its own and 1,024
    peers: the job keeps MAX_GROUPS group names and MAX_OPS op names, no peer beyond its world, and
    says so once for each. (Was asserted by tests/served/test_watch_bounds.py, which keeps the
    server's memory; there the totals it read were of no complete collective, and bounded nothing.)"""
    watched = claimed(2, "flood")
    bounds = Bounds.of(watched.job, watched.note)
    for n in range(3):
        issued = [Issued(group=f"g{n}-{i}", seq=0, op=f"op{n}-{i}", count=1, t_ns=2) for i in range(1024)]
        links = [Link(peer=(n * 1024 + i) % 65536, sent=8, sends=1) for i in range(1024)]
        watched.report(bounds.screen(WatchReport(rank=0, t_ns=2, issued=issued, links=links)))
    held = watched.collectives.open.values()
    assert len({c.group for c in held}) <= MAX_GROUPS + 1 and len({c.op for c in held}) <= MAX_OPS
    assert all(link.dst < 2 for link in watched.job.links.values()), "no peer beyond the world of 2"
    said = [e.text for e in watched.job.events]
    assert sum("group names than a job keeps" in t for t in said) == 1, said
    assert sum("op names than a job keeps" in t for t in said) == 1, said
    assert sum("beyond the world of 2" in t for t in said) == 1, said
