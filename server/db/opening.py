"""The store's file opened, or refused in one line naming it and what to do: a file that is not
SQLite, one a newer Ringside wrote, one another process holds locked, one that is read-only, one
that cannot be opened at all. `ringside serve` and `up` ask before they print a link (serve.py),
so an operator reads the one line, not a traceback after links that lead nowhere."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ringside.server.db import schema

START_BUSY_S = 2.0  # at start, how long another may hold the store's lock before it is refused
CANNOT_OPEN = ("cannot be opened", "make it a file in a folder you may write")
# SQLite's words (sqlite3ErrStr's, the same in every version): what they mean, what an operator does
FIXES = {
    "file is not a database": ("is not an SQLite file", "move it aside"),
    "database disk image is malformed": ("is damaged", "restore it from a copy"),
    "database is locked": ("is locked by another program (a transaction it holds open)", "end that"),
    "attempt to write a readonly database": ("is read-only", "make it and its folder writable"),
    "unable to open database file": CANNOT_OPEN,
}


class StoreError(RuntimeError):
    """A store this server cannot keep its runs in: one line naming the file and the fix."""


def refused(path: Path, what: str, fix: str) -> StoreError:
    return StoreError(f"store {path} {what}: {fix}, or give another file with --db (a new one is made there)")


def connect(path: Path, busy_s: float = START_BUSY_S) -> sqlite3.Connection:
    """The store at `path` in WAL mode, checked readable, at most at this Ringside's schema and
    writable (its lock held by another for `busy_s` reads as locked). Nothing in it is changed:
    the write that proves it writable is rolled back."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise refused(path, f"{CANNOT_OPEN[0]} ({e.strerror or e})", CANNOT_OPEN[1]) from None
    db = None
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=busy_s)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        have = db.execute("PRAGMA user_version").fetchone()[0]
        if have > schema.VERSION:
            newer = f"was written by a newer Ringside (schema {have}; this one knows up to {schema.VERSION})"
            raise refused(path, newer, "upgrade Ringside")
        _writable(db, have)
    except (sqlite3.Error, StoreError) as e:
        if db is not None:
            db.close()
        raise e if isinstance(e, StoreError) else said(path, e) from None
    return db


def said(path: Path, e: sqlite3.Error) -> StoreError:
    words = str(e)
    what, fix = next((fix for start, fix in FIXES.items() if words.startswith(start)), (words, ""))
    return refused(path, what, fix or "see SQLite's words before this")


def _writable(db: sqlite3.Connection, version: int) -> None:
    """A write, rolled back: a read-only file opens and reads, and refuses only this."""
    db.execute("BEGIN IMMEDIATE")  # the write lock, waited for: held all along, the store is locked
    try:
        db.execute(f"PRAGMA user_version = {version}")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


def check(path: Path) -> None:
    """Whether a server may keep its runs at `path`: StoreError if not."""
    connect(path).close()
