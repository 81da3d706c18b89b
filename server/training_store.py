"""Training runs, kept in the runs' SQLite file beside them: a training's JSON (its rows,
not its syncs) written whenever it changes state, and each step's gradient sync in a row
of its own, written once when the training ends, so a list reads no body and opening one
step's sync reads one row. Used on the server's event loop only, like store.py."""

from __future__ import annotations

import json
import re
import sqlite3

from ringside.worker_agent.core.protocol import SyncCapture

from .runs import RunState
from .trainings import Training, TrainingSummary

class TrainingStore:
    def __init__(self, db: sqlite3.Connection):
        self.db = db  # the runs' store's connection: its tables are made there (schema.py)

    def save(self, training: Training) -> None:
        body, summary = training.model_dump_json(), training.summary().model_dump_json()
        self.db.execute("INSERT INTO trainings (id, state, summary, body) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                        "SET state = excluded.state, summary = excluded.summary, body = excluded.body",
                        (training.id, training.state.value, summary, body))

    def save_syncs(self, training_id: str, syncs: dict[int, dict[str, SyncCapture]]) -> None:
        rows = [(training_id, step, json.dumps({r: s.model_dump(mode="json") for r, s in by_rank.items()}))
                for step, by_rank in syncs.items()]
        self.db.execute("BEGIN")
        self.db.executemany("INSERT OR REPLACE INTO training_syncs (training, step, body) VALUES (?, ?, ?)", rows)
        self.db.execute("COMMIT")

    def get(self, training_id: str) -> Training | None:
        row = self.db.execute("SELECT body FROM trainings WHERE id = ?", (training_id,)).fetchone()
        return Training.model_validate_json(row[0]) if row else None

    def sync(self, training_id: str, step: int) -> dict[str, SyncCapture] | None:
        row = self.db.execute("SELECT body FROM training_syncs WHERE training = ? AND step = ?", (training_id, step)).fetchone()
        return {r: SyncCapture.model_validate(s) for r, s in json.loads(row[0]).items()} if row else None

    def newest(self, limit: int) -> list[TrainingSummary]:
        rows = self.db.execute("SELECT summary FROM trainings ORDER BY seq DESC LIMIT ?", (limit,)).fetchall()
        return [TrainingSummary.model_validate_json(r[0]) for r in rows]

    def unfinished(self) -> list[Training]:
        rows = self.db.execute("SELECT body FROM trainings WHERE state IN (?, ?)",
                               (RunState.QUEUED.value, RunState.RUNNING.value)).fetchall()
        return [Training.model_validate_json(r[0]) for r in rows]

    def last_number(self) -> int:
        row = self.db.execute("SELECT id FROM trainings ORDER BY seq DESC LIMIT 1").fetchone()
        digits = re.search(r"(\d+)$", row[0]) if row else None
        return int(digits.group(1)) if digits else 0
