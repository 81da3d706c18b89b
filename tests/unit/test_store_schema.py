"""The store's schema versions (server/schema.py), on a real SQLite file."""

import json
import sqlite3

import pytest

from ringside.server.db import schema
from ringside.server.db.database import Database
from ringside.server.runs.store import RunStore


def test_a_new_store_is_at_the_last_version_and_opening_it_again_changes_nothing(tmp_path):
    RunStore(Database(tmp_path / "runs.db")).database.close()
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
        RunStore(Database(tmp_path / "runs.db"))
    assert db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0] == 0


def test_a_run_whose_schedule_an_earlier_version_stored_as_a_dict_reads_back(tmp_path):
    """Before PlanDoc, a run kept Schedule.to_json's dict: the same JSON, its keys in another order, and
    before layouts and servers were kept, without them. Such a row reads back as the run it was."""
    from ringside.server.runs import figures
    from ringside.server.runs.run import new_run
    from ringside.worker_agent.core.protocol import RunSpec

    run = new_run(
        "r-1",
        RunSpec(collective="broadcast", algorithm="binomial_tree", group=[1, 2, 3], root=3, count=4),
        "gloo",
        4,
    )
    plan = run.schedule
    written = {
        "collective": plan.collective,
        "algorithm": plan.algorithm,
        "world_size": plan.world_size,
        "root": plan.root,
        "blocks": plan.blocks,
        "pieces": plan.pieces,
        "layout": plan.layout,
        "servers": plan.servers,
        "steps": [
            {"phase": s.phase, "caption": s.caption, "transfers": [list(t) for t in s.transfers]}
            for s in plan.steps
        ],
    }
    earliest = {k: v for k, v in written.items() if k not in ("layout", "servers")}
    RunStore(Database(tmp_path / "runs.db")).database.close()
    db = sqlite3.connect(tmp_path / "runs.db")
    for i, schedule in enumerate((written, earliest)):
        body = json.loads(run.model_dump_json()) | {"id": f"r-{i}", "schedule": schedule}
        db.execute(
            "INSERT INTO runs (id, state, collective, created_at, body, summary) VALUES (?, ?, ?, ?, ?, ?)",
            (
                f"r-{i}",
                "queued",
                "broadcast",
                run.created_at,
                json.dumps(body),
                run.summary().model_dump_json(),
            ),
        )
    db.commit()
    store = RunStore(Database(tmp_path / "runs.db"))
    try:
        again, oldest = store.get("r-0"), store.get("r-1")
    finally:
        store.database.close()
    assert (
        again.schedule == plan and again.steps == run.steps and figures.traffic(again) == figures.traffic(run)
    )
    # what from_json read it as
    assert oldest.schedule == plan.model_copy(update={"layout": "ring", "servers": 0})
