"""Every run, kept in one SQLite file: the merged Run JSON, written whenever
the run changes state. A server that stops mid-run finds that run `running`
when it starts again and marks it `interrupted`: never lost, never silent."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

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

    def save(self, run: dict) -> None:
        self.db.execute(
            "INSERT INTO runs (id, state, collective, created_at, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET state = excluded.state, body = excluded.body",
            (run["id"], run["state"], run["spec"]["collective"], run["created_at"], json.dumps(run)),
        )

    def get(self, run_id: str) -> dict | None:
        row = self.db.execute("SELECT body FROM runs WHERE id = ?", (run_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def page(self, limit: int, offset: int) -> tuple[list[dict], int]:
        rows = self.db.execute("SELECT body FROM runs ORDER BY seq DESC LIMIT ? OFFSET ?", (limit, offset)).fetchall()
        total = self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        return [json.loads(r[0]) for r in rows], total

    def last_seq(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM runs").fetchone()[0]

    def unfinished(self) -> list[dict]:
        rows = self.db.execute("SELECT body FROM runs WHERE state IN ('queued', 'running') ORDER BY seq").fetchall()
        return [json.loads(r[0]) for r in rows]

    def counts(self) -> dict[tuple[str, str], int]:
        rows = self.db.execute("SELECT state, collective, COUNT(*) FROM runs GROUP BY state, collective").fetchall()
        return {(s, c): n for s, c, n in rows}

    def finished(self, limit: int = 500) -> list[dict]:
        rows = self.db.execute("SELECT body FROM runs WHERE state = 'done' ORDER BY seq DESC LIMIT ?", (limit,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def close(self) -> None:
        self.db.close()
