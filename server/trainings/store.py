"""Training runs, kept in the runs' SQLite file beside them: a training's JSON (its rows,
not its syncs) written whenever it changes state, and each step's gradient sync in a row
of its own, written once when the training ends, so a list reads no body and opening one
step's sync reads one row. Read on the server's event loop and written by the file's
writer (db/writer.py); until a write lands, reads see it from memory."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ringside.server.db.database import Database
from ringside.server.db.writer import Latest
from ringside.server.dispatch.job import JobState
from ringside.server.trainings.training import Training, TrainingSummary
from ringside.worker_agent.core.protocol import SyncCapture


class TrainingStore:
    def __init__(self, database: Database):
        self.db, self.writer = database.db, database.writer  # its tables are made with the file (schema.py)
        self.latest = Latest()  # training id -> (body, summary), and "id/syncs" -> its syncs, not yet landed

    def save(self, training: Training, landed: Callable[[], None] | None = None) -> None:
        body, summary = training.model_dump_json(), training.summary().model_dump_json()
        forget = self.latest.put(training.id, (body, summary))

        def done() -> None:
            forget()
            if landed is not None:
                landed()

        self.writer.put(
            [
                (
                    "INSERT INTO trainings (id, state, summary, body) VALUES (?, ?, ?, ?) ON "
                    "CONFLICT(id) DO UPDATE SET state = excluded.state, summary = "
                    "excluded.summary, body = excluded.body",
                    (training.id, training.state.value, summary, body),
                )
            ],
            done,
        )

    def save_syncs(self, training_id: str, syncs: dict[int, dict[str, SyncCapture]]) -> None:
        rows = [
            (training_id, step, json.dumps({r: s.model_dump(mode="json") for r, s in by_rank.items()}))
            for step, by_rank in syncs.items()
        ]
        forget = self.latest.put(f"{training_id}/syncs", syncs)
        insert = "INSERT OR REPLACE INTO training_syncs (training, step, body) VALUES (?, ?, ?)"
        self.writer.put([(insert, row) for row in rows], forget)

    def get(self, training_id: str) -> Training | None:
        if (given := self.latest.get(training_id)) is not None:
            return Training.model_validate_json(given[0])
        row = self.db.execute("SELECT body FROM trainings WHERE id = ?", (training_id,)).fetchone()
        return Training.model_validate_json(row[0]) if row else None

    def sync(self, training_id: str, step: int) -> dict[str, SyncCapture] | None:
        if (given := self.latest.get(f"{training_id}/syncs")) is not None:
            return given.get(step)
        row = self.db.execute(
            "SELECT body FROM training_syncs WHERE training = ? AND step = ?", (training_id, step)
        ).fetchone()
        return {r: SyncCapture.model_validate(s) for r, s in json.loads(row[0]).items()} if row else None

    def newest(self, limit: int) -> list[TrainingSummary]:
        rows = self.db.execute(
            "SELECT id, summary FROM trainings ORDER BY seq DESC LIMIT ?", (limit,)
        ).fetchall()
        return [
            TrainingSummary.model_validate_json(given[1] if (given := self.latest.get(i)) else summary)
            for i, summary in rows
        ]

    def unfinished(self) -> list[Training]:
        rows = self.db.execute(
            "SELECT body FROM trainings WHERE state IN (?, ?)",
            (JobState.QUEUED.value, JobState.RUNNING.value),
        ).fetchall()
        return [Training.model_validate_json(r[0]) for r in rows]

    def last_number(self) -> int:
        row = self.db.execute("SELECT id FROM trainings ORDER BY seq DESC LIMIT 1").fetchone()
        digits = re.search(r"(\d+)$", row[0]) if row else None
        return int(digits.group(1)) if digits else 0
