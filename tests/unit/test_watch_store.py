"""A watched job's collectives in the store (server/watched/store.py) while the writer has not landed
them: a real SQLite file, held locked by another connection as another process would hold it."""

import sqlite3

import pytest

from ringside.server.db.database import Database
from ringside.server.watched.record import WatchedCollective
from ringside.server.watched.store import KEPT, WatchStore

JOB = "j-000001"


def made(first: int, n: int, count: int = 256) -> list[WatchedCollective]:
    return [
        WatchedCollective(
            index=i,
            group="0",
            seq=i + 1,
            op="all_reduce",
            dtype="float32",
            count=count,
            bytes=4 * count,
            ranks=[0, 1],
            issued={"0": i / 1e3, "1": i / 1e3},
            complete=True,
        )
        for i in range(first, first + n)
    ]


@pytest.fixture
def store(tmp_path):
    database = Database(tmp_path / "runs.db")
    yield database, WatchStore(database)
    database.close()


@pytest.fixture
def locked(store):
    """The file held by another writer: the store's writes wait, its reads go on (WAL)."""
    database, _ = store
    other = sqlite3.connect(database.writer.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    yield
    other.execute("ROLLBACK")
    other.close()


def test_collectives_not_yet_in_the_file_are_read_with_those_that_are(store, locked):
    """A job that ends leaves memory for the store at once: what the writer has not landed is read
    from the store's memory, in order, and a page before them reaches into the file's."""
    database, kept = store
    database.writer.flush(timeout=0)  # nothing of the fixture's waits
    kept.add(JOB, made(0, 10))
    assert database.writer.waiting() > 0, "the lock holds the writes back"
    assert [c.index for c in kept.collectives(JOB, 500)] == list(range(10))
    assert [c.index for c in kept.collectives(JOB, 4)] == [6, 7, 8, 9]
    assert [c.index for c in kept.collectives(JOB, 4, before=6)] == [2, 3, 4, 5]
    assert kept.collectives("j-000002", 500) == [], "another job's are not its"
    assert kept.next_index(JOB) == 10, "a job its ranks come back to goes on past them"


def test_a_collective_given_again_is_read_as_given_last_and_once(store):
    database, kept = store
    kept.add(JOB, made(0, 6))
    database.flush()
    other = sqlite3.connect(database.writer.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        kept.add(JOB, made(4, 4, count=8))  # 4 and 5 again, changed; 6 and 7 new
        shown = kept.collectives(JOB, 500)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert [(c.index, c.count) for c in shown] == [(0, 256), (1, 256), (2, 256), (3, 256)] + [
        (i, 8) for i in range(4, 8)
    ]
    database.flush()
    assert [(c.index, c.count) for c in kept.collectives(JOB, 500)] == [(c.index, c.count) for c in shown]
    assert not kept.unlanded.of(JOB), "what landed is read from the file alone"


def test_a_long_job_keeps_a_bounded_tail_of_its_collectives_and_totals_of_all(store):
    """A job of more collectives than KEPT keeps the newest KEPT, a page of them one walk down the primary
    key. (Was tests/served/test_watch.py, in-process already.)"""
    database, kept = store
    n = KEPT + 5_000
    for at in range(0, n, 1_000):
        kept.add(JOB, made(at, min(1_000, n - at)))
    database.flush()
    assert database.db.execute("SELECT COUNT(*) FROM job_collectives").fetchone()[0] == KEPT
    newest = kept.collectives(JOB, 500)
    assert [c.index for c in newest] == list(range(n - 500, n))
    page = kept.collectives(JOB, 500, before=newest[0].index)
    assert [c.index for c in page] == list(range(n - 1000, n - 500))
    assert kept.collectives(JOB, 500, before=n - KEPT) == [], "the oldest are gone"
    plan = " ".join(
        r[-1]
        for r in database.db.execute(
            "EXPLAIN QUERY PLAN SELECT body FROM job_collectives WHERE job = ? AND idx < ? "
            "ORDER BY idx DESC LIMIT ?",
            (JOB, n, 500),
        )
    )
    assert "PRIMARY KEY" in plan and "TEMP B-TREE" not in plan, plan
