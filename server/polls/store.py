"""Polls, kept in the runs' SQLite file beside their runs: a poll's record (the poll, its
answer, its votes) as one JSON body, written whenever it changes; and the key that signs the
audience's ballots (ballots.py), made once."""

from __future__ import annotations

import re
import secrets

from ringside.server.db.database import Database
from ringside.server.polls.poll import PollRecord

MAX_OF_RUN = 100  # polls listed for one run
BALLOT_KEY = "ballots"


class PollStore:
    def __init__(self, database: Database):
        self.db, self.writer = database.db, database.writer  # its table is made with the file (schema.py)

    def ballot_key(self) -> bytes:
        """The key that signs ballots: the store's, or a new one, kept from now on."""
        row = self.db.execute("SELECT value FROM secrets WHERE name = ?", (BALLOT_KEY,)).fetchone()
        if row:
            return bytes.fromhex(row[0])
        key = secrets.token_bytes(32)
        keep = "INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)"
        self.writer.put([(keep, (BALLOT_KEY, key.hex()))])
        return key

    def last_number(self) -> int:
        """The number in the newest poll's id (p-000042: 42), 0 for none."""
        row = self.db.execute("SELECT id FROM polls ORDER BY rowid DESC LIMIT 1").fetchone()
        number = re.search(r"(\d+)$", row[0]) if row else None
        return int(number.group(1)) if number else 0

    def newest(self, limit: int) -> list[PollRecord]:
        """The newest `limit` polls, oldest first."""
        rows = self.db.execute("SELECT body FROM polls ORDER BY rowid DESC LIMIT ?", (limit,)).fetchall()
        return [PollRecord.model_validate_json(r[0]) for r in reversed(rows)]

    def get(self, poll_id: str) -> PollRecord | None:
        row = self.db.execute("SELECT body FROM polls WHERE id = ?", (poll_id,)).fetchone()
        return PollRecord.model_validate_json(row[0]) if row else None

    def ids_of_run(self, run_id: str) -> list[str]:
        rows = self.db.execute(
            "SELECT id FROM polls WHERE run_id = ? ORDER BY rowid LIMIT ?", (run_id, MAX_OF_RUN)
        ).fetchall()
        return [r[0] for r in rows]

    def save(self, record: PollRecord) -> None:
        self.writer.put(
            [
                (
                    "INSERT INTO polls (id, run_id, body) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE "
                    "SET body = excluded.body",
                    (record.poll.id, record.poll.run_id, record.model_dump_json()),
                )
            ]
        )
