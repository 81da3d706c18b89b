"""What reads of the run store cost as the history grows, counted in SQLite's own instructions and
not on a clock, and a store written before figures and summaries were kept, read by a server built
in-process over it (in_app.py)."""

from __future__ import annotations

import asyncio
import re
import sqlite3

import pytest
from in_app import served
from seeded import ALPHA, BETA, SHAPES, seed

from ringside.server.db.database import Database
from ringside.server.dispatch.job import JobState
from ringside.server.model import costs as model
from ringside.server.runs.run import new_run
from ringside.server.runs.store import RunStore
from ringside.worker_agent.core.protocol import RunSpec


def counted(store: RunStore, read):
    """What `read(store)` returns, and SQLite's progress ticks (one per 50 instructions) it took."""
    ticks = [0]
    store.db.set_progress_handler(lambda: ticks.__setitem__(0, ticks[0] + 1), 50)
    try:
        return read(store), ticks[0]
    finally:
        store.db.set_progress_handler(None, 50)


def test_the_newest_run_of_a_shape_is_found_without_walking_the_history(tmp_path):
    """The compare views' lookup (/api/compare, /api/compare/beside): SQLite's own instruction
    count, not a clock, stays flat from 500 stored runs to 5,000."""
    spent = []
    for n in (500, 5000):
        seed(tmp_path / f"{n}.db", n, readable=n)
        store = RunStore(Database(tmp_path / f"{n}.db"))
        (shaped, newest), ticks = counted(
            store,
            lambda s: (
                s.newest_done("all_reduce", "tree", 1024, "float32", 4),
                s.newest_done("all_gather", "ring"),
            ),
        )
        assert (
            shaped.spec.algorithm == "tree"
            and shaped.spec.count == 1024
            and newest.spec.collective == "all_gather"
        )
        assert int(shaped.id[2:]) > n - len(SHAPES) and int(newest.id[2:]) > n - 2 * len(SHAPES)
        assert store.newest_done("all_reduce", "tree", 1024, "float32", 8) is None  # no run of 8 ranks
        spent.append(ticks)
        store.database.close()
    assert spent[1] <= spent[0] + 20, spent


def test_runs_of_the_same_bytes_in_another_dtype_are_not_walked_past(tmp_path):
    """The parameter server's compare view asks for the newest run of one count and dtype: runs
    after it with the same bytes per rank but another dtype (count 2048 of float16 beside 1024 of
    float32) cost it nothing, however many there are."""
    spent = []
    for n in (500, 5000):
        store = RunStore(Database(tmp_path / f"{n}.db"))
        wanted = new_run(
            "r-000000", RunSpec(collective="all_reduce", algorithm="tree", count=1024), "gloo", 4
        )
        other = new_run(
            "r-0", RunSpec(collective="all_reduce", algorithm="tree", count=2048, dtype="float16"), "gloo", 4
        )
        for run in [wanted] + [other.model_copy(update={"id": f"r-{i:06d}"}) for i in range(1, n + 1)]:
            run.state = JobState.DONE
            store.save(run)
            store.add_figures(run, None)
        store.database.flush()
        found, ticks = counted(store, lambda s: s.newest_done("all_reduce", "tree", 1024, "float32", 4))
        assert found.id == "r-000000"
        spent.append(ticks)
        store.database.close()
    assert spent[1] <= spent[0] + 20, spent


def metric(text: str, line: str) -> float:
    found = re.search(rf"^{re.escape(line)} (\S+)$", text, re.MULTILINE)
    assert found, line
    return float(found.group(1))


def test_a_store_from_before_figures_and_summaries_gets_them(tmp_path):
    db = tmp_path / "runs.db"
    seed(db, 600, readable=600)
    with sqlite3.connect(db) as conn:  # as the previous version wrote it
        conn.execute("DROP TABLE figures")
        conn.execute("ALTER TABLE runs DROP COLUMN summary")
        conn.execute("PRAGMA user_version = 0")  # it kept no schema version
    conn.close()

    async def scenario():
        async with served(db) as s:
            return (
                (await s.call("GET", "/api/runs?limit=30"))[1],
                (await s.call("GET", "/api/model?collective=all_reduce&algorithm=ring"))[1],
                (await s.call("GET", "/metrics"))[1],
            )

    page, answer, text = asyncio.run(scenario())
    assert page["total"] == 600 and [r["id"] for r in page["runs"]] == [
        f"r-{i:06d}" for i in range(600, 570, -1)
    ]
    newest_done = [i for i in range(599, -1, -1) if i % 10 != 3][: model.FIT_WINDOW]  # seed's pattern
    # the stepwise ones among them
    assert answer["fitted_from_runs"] == sum(i % 4 != 3 for i in newest_done)
    assert answer["alpha"] == pytest.approx(ALPHA) and answer["beta"] == pytest.approx(BETA)
    assert metric(text, 'ringside_last_busbw_bytes_per_second{collective="broadcast"}') == 600
