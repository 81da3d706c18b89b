"""The store's schema versions (server/schema.py), on a real SQLite file."""

import sqlite3

import pytest

from ringside.server import schema
from ringside.server.store import Store


def test_a_new_store_is_at_the_last_version_and_opening_it_again_changes_nothing(tmp_path):
    Store(tmp_path / "runs.db").close()
    db = sqlite3.connect(tmp_path / "runs.db")
    assert db.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION == len(schema.STEPS)
    tables = db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
    assert {"runs", "figures", "trainings", "training_syncs"} <= {name for name, _ in tables}
    assert schema.migrate(db) is False  # nothing to do, nothing to refill
    assert db.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall() == tables


def test_a_store_without_a_version_gets_every_step_and_its_figures_again(tmp_path):
    db = sqlite3.connect(tmp_path / "runs.db", isolation_level=None)
    for statement in schema.RUNS + schema.FIGURES:  # the tables as an early version made them
        db.execute(statement)
    assert schema.migrate(db) is True  # the model's columns were missing: figures are filled again
    assert set(schema.MODEL_COLUMNS) <= {c[1] for c in db.execute("PRAGMA table_info(figures)")}
    assert db.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION


def test_a_store_from_a_newer_version_is_refused_and_left_as_it_is(tmp_path):
    db = sqlite3.connect(tmp_path / "runs.db")
    db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    db.commit()
    with pytest.raises(RuntimeError, match="newer Ringside"):
        Store(tmp_path / "runs.db")
    assert db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0
