"""Every run, kept in one SQLite file: the Run's JSON, written whenever the run
changes state. A server that stops mid-run finds that run `running` when it
starts again and marks it `interrupted`: never lost, never silent."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .runs import Run, RunState

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    state TEXT NOT NULL,
    collective TEXT NOT NULL,
    created_at REAL NOT NULL,
    body TEXT NOT NULL
);
"""


class Store:
    def __init__(self, path: Path):
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def save(self, run: Run) -> None:
        self.db.execute(
            "INSERT INTO runs (id, state, collective, created_at, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET state = excluded.state, body = excluded.body",
            (run.id, run.state.value, run.spec.collective, run.created_at, run.model_dump_json()),
        )

    def get(self, run_id: str) -> Run | None:
        row = self.db.execute("SELECT body FROM runs WHERE id = ?", (run_id,)).fetchone()
        return Run.model_validate_json(row[0]) if row else None

    def page(self, limit: int, offset: int) -> tuple[list[Run], int]:
        rows = self.db.execute("SELECT body FROM runs ORDER BY seq DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        total = self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return [Run.model_validate_json(r[0]) for r in rows], total

    def last_seq(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM runs").fetchone()[0]

    def unfinished(self) -> list[Run]:
        rows = self.db.execute("SELECT body FROM runs WHERE state IN (?, ?) ORDER BY seq",
                               (RunState.QUEUED.value, RunState.RUNNING.value)).fetchall()
        return [Run.model_validate_json(r[0]) for r in rows]

    def counts(self) -> dict[tuple[str, str], int]:
        rows = self.db.execute("SELECT state, collective, COUNT(*) FROM runs GROUP BY state, collective").fetchall()
        return {(s, c): n for s, c, n in rows}

    def finished(self, limit: int = 500) -> list[Run]:
        """The last `limit` runs that ended `done`, newest first."""
        rows = self.db.execute("SELECT body FROM runs WHERE state = ? ORDER BY seq DESC LIMIT ?",
                               (RunState.DONE.value, limit)).fetchall()
        return [Run.model_validate_json(r[0]) for r in rows]

    def close(self) -> None:
        self.db.close()
