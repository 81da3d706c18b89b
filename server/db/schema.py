"""The store's tables, and how a store of any earlier version becomes this one. Each change
is a step numbered by SQLite's `user_version`, so a store is brought up to date once, in
order, and no step runs twice. A store from before versions were kept reads 0 and runs
every step, so each step also holds for a store that already has what it adds."""

from __future__ import annotations

import sqlite3

RUNS = [
    """CREATE TABLE IF NOT EXISTS runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT UNIQUE NOT NULL,
        state TEXT NOT NULL,
        collective TEXT NOT NULL,
        created_at REAL NOT NULL,
        body TEXT NOT NULL,
        summary TEXT  -- RunSummary's JSON: what a run list shows, without parsing the body
    )""",
    # counted once at open; paged through without touching the (large) rows
    "CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state, collective)",
    "CREATE INDEX IF NOT EXISTS runs_by_seq ON runs (seq)",
]
FIGURES = [
    """CREATE TABLE IF NOT EXISTS figures (
        seq INTEGER PRIMARY KEY,  -- the run's seq in runs
        collective TEXT NOT NULL,
        busbw REAL,
        steps INTEGER,  -- the cost model's row (model.row_of); NULL for a native run
        bytes INTEGER,
        time REAL
    )""",
    "CREATE INDEX IF NOT EXISTS figures_fit ON figures (seq) WHERE steps IS NOT NULL",
]
# the model's row beyond steps, bytes and time (model.Row)
MODEL_COLUMNS = {"algorithm": "TEXT", "ranks": "INTEGER", "size": "INTEGER", "reduced": "INTEGER"}
MODEL_INDEXES = [
    "CREATE INDEX IF NOT EXISTS figures_model ON figures (seq) WHERE size IS NOT NULL",
    # the newest done run of an algorithm, of a shape: a walk down one index, however long the history
    "CREATE INDEX IF NOT EXISTS figures_by_algorithm ON figures (collective, algorithm, seq)",
    "CREATE INDEX IF NOT EXISTS figures_by_shape ON figures (collective, algorithm, ranks, size, seq)",
]
TRAININGS = [
    """CREATE TABLE IF NOT EXISTS trainings (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT UNIQUE NOT NULL,
        state TEXT NOT NULL,
        summary TEXT NOT NULL,
        body TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS training_syncs (
        training TEXT NOT NULL,
        step INTEGER NOT NULL,
        body TEXT NOT NULL,  -- {rank: SyncCapture}
        PRIMARY KEY (training, step)
    ) WITHOUT ROWID""",
]

JOBS = [
    """CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT UNIQUE NOT NULL,
        key TEXT NOT NULL,  -- what the job's ranks share (ringside.watch): a restarted server finds it again
        state TEXT NOT NULL,
        summary TEXT NOT NULL,
        body TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS jobs_by_key ON jobs (key, seq)",
    "CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state)",
    """CREATE TABLE IF NOT EXISTS job_collectives (
        job TEXT NOT NULL,
        idx INTEGER NOT NULL,
        body TEXT NOT NULL,  -- watched.Collective
        PRIMARY KEY (job, idx)
    ) WITHOUT ROWID""",
]

POLLS = [
    """CREATE TABLE IF NOT EXISTS polls (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        body TEXT NOT NULL  -- polls.PollRecord: the poll, its answer, its votes
    )""",
    "CREATE INDEX IF NOT EXISTS polls_by_run ON polls (run_id)",
]
# a server's keys that outlive it (polls/ballots.py: the key that signs the audience's ballots)
SECRETS = ["CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)"]


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {c[1] for c in db.execute(f"PRAGMA table_info({table})")}


def _runs(db: sqlite3.Connection) -> bool:
    for statement in RUNS:
        db.execute(statement)
    if "summary" not in _columns(db, "runs"):
        db.execute("ALTER TABLE runs ADD COLUMN summary TEXT")
    return False


def _figures(db: sqlite3.Connection) -> bool:
    """Figures, the model's columns among them: a store that lacked any gets its rows again from
    its last done runs (runs/store.py), once."""
    new = not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'figures'").fetchone()
    for statement in FIGURES:
        db.execute(statement)
    missing = {name: kind for name, kind in MODEL_COLUMNS.items() if name not in _columns(db, "figures")}
    for name, kind in missing.items():
        db.execute(f"ALTER TABLE figures ADD COLUMN {name} {kind}")
    for statement in MODEL_INDEXES:
        db.execute(statement)
    return new or bool(missing)


def _trainings(db: sqlite3.Connection) -> bool:
    for statement in TRAININGS:
        db.execute(statement)
    return False


def _figures_by_spec(db: sqlite3.Connection) -> bool:
    """A done run's count and dtype in `figures`, indexed with its shape: the newest run of a
    spec is found down one index (a walk past runs of the same bytes in another dtype took
    half a second at 100,000 of them)."""
    for name, kind in (("count", "INTEGER"), ("dtype", "TEXT")):
        if name not in _columns(db, "figures"):
            db.execute(f"ALTER TABLE figures ADD COLUMN {name} {kind}")
    db.execute(
        "UPDATE figures SET (count, dtype) = (SELECT json_extract(r.summary, '$.count'), "
        "json_extract(r.summary, '$.dtype') FROM runs r WHERE r.seq = figures.seq) "
        "WHERE count IS NULL"
    )
    db.execute(
        "CREATE INDEX IF NOT EXISTS figures_by_spec "
        "ON figures (collective, algorithm, ranks, count, dtype, seq)"
    )
    return False


def _jobs(db: sqlite3.Connection) -> bool:
    for statement in JOBS:
        db.execute(statement)
    return False


def _polls(db: sqlite3.Connection) -> bool:
    for statement in POLLS:
        db.execute(statement)
    return False


def _secrets(db: sqlite3.Connection) -> bool:
    for statement in SECRETS:
        db.execute(statement)
    return False


# a new change is a new step at the end, never an edit to one before it
STEPS = [_runs, _figures, _trainings, _figures_by_spec, _jobs, _polls, _secrets]
VERSION = len(STEPS)


def migrate(db: sqlite3.Connection) -> bool:
    """Bring the store up to VERSION, each step in a transaction of its own; whether its figures
    must be filled again from its runs."""
    have = db.execute("PRAGMA user_version").fetchone()[0]
    if have > VERSION:
        raise RuntimeError(
            f"this store was written by a newer Ringside (schema {have}; this one knows up to {VERSION})"
        )
    refill = False
    for version, step in enumerate(STEPS[have:], start=have + 1):
        db.execute("BEGIN IMMEDIATE")
        refill = step(db) or refill
        db.execute(f"PRAGMA user_version = {version}")
        db.execute("COMMIT")
    return refill
