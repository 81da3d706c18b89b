"""A watched job of thousands of ranks, fed through the server's door (frames.parse_event) the
frames a synthetic job's ranks send (worker_agent/clients/synthetic_job.py: the real watch
protocol), with the server's clock moved by hand: the stopped rank is named, and only it, with
every other rank waiting; and the world that every rank names is kept once."""

from __future__ import annotations

import json

from matched import Clock

from ringside.server.door.frames import parse_event
from ringside.server.watched import hangs, rank_waits
from ringside.server.watched.live import LiveWatchedJob
from ringside.worker_agent.clients.synthetic_job import Plan, SyntheticJob
from ringside.worker_agent.core.watch_protocol import WATCH_MESSAGE

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
