"""The one SQLite file every feature keeps its records in: opened in WAL mode, brought up to
the schema's version, read on the server's event loop and written by one thread of its own
(writer.py), so a file another process holds locked never stalls the loop. sqlite3 refuses
a call from any other thread: a stray read fails loudly instead of racing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from starlette.requests import HTTPConnection

from ringside.server.db import schema
from ringside.server.db.opening import connect
from ringside.server.db.writer import Writer

READ_BUSY_S = 0.5  # a read waits this long for SQLite's lock at most (in WAL mode, reads seldom wait)
CLOSE_WITHIN_S = 5.0  # a stopping server waits this long for writes a locked file held back


class Database:
    def __init__(self, path: Path, timed: Callable[[float], None] | None = None):
        """`timed`: told how long each write took to land (Writer's). A store that cannot be kept is
        refused with opening.StoreError, in one line."""
        path = Path(path)
        self.db = connect(path)
        self.db.execute(f"PRAGMA busy_timeout = {round(READ_BUSY_S * 1000)}")
        self.new_figures = schema.migrate(self.db)  # figures to fill from the runs (runs/store.py)
        self.writer = Writer(path, timed)

    def flush(self) -> None:
        """Until every write so far is in the file (tests, benchmarks, and close)."""
        self.writer.flush()

    def close(self) -> None:
        self.writer.close(CLOSE_WITHIN_S)
        self.db.close()


async def database_of(conn: HTTPConnection) -> Database:
    return conn.app.state.database
