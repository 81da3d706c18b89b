"""Retention (server/operate/retention.py) on a real SQLite store written by its real writer
thread: what a prune deletes, what it keeps, and that the event loop goes on meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import datetime

import pytest

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs
from ringside.server.operate import retention
from ringside.server.operate.retention import Keep, Pruner, seconds_until
from ringside.server.runs.run import new_run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.protocol import RunSpec

SPECS = [
    RunSpec(collective="all_reduce", algorithm="ring", count=64),
    RunSpec(collective="broadcast", algorithm="native", count=16),
]
LEFT_RUNNING = "r-000030"  # an old run the store still has as running (a server stopped mid-run)


def seed(store: RunStore, n: int, hours_apart: float = 0.0, running: str | None = LEFT_RUNNING) -> None:
    """n runs saved as a server saves them, the done ones with their figures, `running` left running;
    run i made `hours_apart` * (n - i) hours ago."""
    templates = [new_run("r-0", spec, "gloo", 4) for spec in SPECS]
    now = time.time()
    for i in range(1, n + 1):
        run = templates[i % 2].model_copy(
            update={"id": f"r-{i:06d}", "created_at": now - hours_apart * 3600 * (n - i)}
        )
        run.state = JobState.FAILED if i % 7 == 0 else JobState.DONE
        if run.id == running:
            run.state = JobState.RUNNING
        if run.state == JobState.DONE:
            run.time, run.busbw = 1e-3, float(i)
        store.save(run)
        if run.state == JobState.DONE:
            store.add_figures(run, costs.row_of(run))
    store.database.flush()


def ask(store: RunStore, poll_id: str, run_id: str) -> None:
    store.writer.put([("INSERT INTO polls (id, run_id, body) VALUES (?, ?, '{}')", (poll_id, run_id))])
    store.database.flush()


def stored(path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        return {
            t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "figures", "polls")
        }
    finally:
        db.close()


def ids(path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {r[0] for r in db.execute("SELECT id FROM runs")}
    finally:
        db.close()


def counted_in_sql(path) -> dict[tuple[str, str], int]:
    db = sqlite3.connect(path)
    try:
        return {
            (s, c): n for s, c, n in db.execute("SELECT state, collective, COUNT(*) FROM runs GROUP BY 1, 2")
        }
    finally:
        db.close()


async def prune_while_ticking(pruner: Pruner) -> tuple[int, int]:
    """(runs pruned, times another task ran on the loop while the prune went on)."""
    pruning = asyncio.create_task(pruner.prune())
    ticks = 0
    while not pruning.done():
        await asyncio.sleep(0)
        ticks += 1
    return pruning.result(), ticks


@pytest.fixture
def store(tmp_path):
    store = RunStore(Database(tmp_path / "runs.db"))
    yield store
    store.database.close()


def test_a_thousand_runs_kept_to_the_newest_hundred_with_their_figures_and_polls(
    store, tmp_path, monkeypatch
):
    monkeypatch.setattr(retention, "BATCH", 64)  # many batches: the loop runs between them
    seed(store, 1000)
    ask(store, "p-000001", "r-000020")  # about a run that goes: the poll goes with it
    ask(store, "p-000002", "r-000950")  # about a run that stays
    held = "r-000010"  # a live poll asks about it
    pruner = Pruner(Keep(runs=100), store.writer, store, lambda: {held})

    gone, ticks = asyncio.run(prune_while_ticking(pruner))

    left = ids(tmp_path / "runs.db")
    newest = {f"r-{i:06d}" for i in range(901, 1001)}
    assert left == newest | {held, LEFT_RUNNING}
    assert gone == pruner.pruned == 1000 - len(left)
    done_left = sum(1 for i in range(901, 1001) if i % 7) + 1  # r-000010 is done
    assert stored(tmp_path / "runs.db") == {"runs": 102, "figures": done_left, "polls": 1}
    assert store.counts() == counted_in_sql(tmp_path / "runs.db")  # /metrics and the run list's total
    assert store.total() == 102
    assert ticks > 1000 // 64  # the loop ran other tasks, at least between each two batches
    # a second prune finds nothing more to do
    assert asyncio.run(pruner.prune()) == 0


def test_keep_days_prunes_the_old_and_keeps_the_newest_run_whatever_its_age(store, tmp_path):
    seed(store, 48, hours_apart=1.0, running=None)  # one an hour, the newest now
    assert asyncio.run(Pruner(Keep(days=12.5 / 24), store.writer, store, set).prune()) == 48 - 13
    assert ids(tmp_path / "runs.db") == {f"r-{i:06d}" for i in range(36, 49)}  # made in the last 12 h

    store.db.execute("UPDATE runs SET created_at = created_at - 86400 * 30")  # all a month old
    asyncio.run(Pruner(Keep(days=1), store.writer, store, set).prune())
    assert ids(tmp_path / "runs.db") == {"r-000048"}  # its number continues the ids after a restart
    assert store.last_number() == 48


def test_both_bounds_prune_what_either_says(store, tmp_path):
    seed(store, 48, hours_apart=1.0, running=None)
    asyncio.run(Pruner(Keep(runs=20, days=12.5 / 24), store.writer, store, set).prune())
    assert len(ids(tmp_path / "runs.db")) == 13  # 12 h of runs is fewer than 20
    asyncio.run(Pruner(Keep(runs=5, days=30), store.writer, store, set).prune())
    assert ids(tmp_path / "runs.db") == {f"r-{i:06d}" for i in range(44, 49)}


def test_no_bound_prunes_nothing(store, tmp_path):
    seed(store, 30)
    assert asyncio.run(Pruner(Keep(), store.writer, store, set).prune()) == 0
    assert stored(tmp_path / "runs.db")["runs"] == 30


@pytest.mark.parametrize("keep", [{"runs": 0}, {"days": 0}, {"days": -1.0}])
def test_a_bound_that_would_keep_nothing_is_refused(keep):
    with pytest.raises(ValueError, match="keep-"):
        Keep(**keep)


def test_the_nightly_prune_is_at_three_in_the_morning():
    assert seconds_until(3, datetime(2026, 3, 2, 1, 30)) == 1.5 * 3600
    assert seconds_until(3, datetime(2026, 3, 2, 3, 0)) == 24 * 3600
    assert seconds_until(3, datetime(2026, 3, 2, 23, 0)) == 4 * 3600
