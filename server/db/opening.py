"""The store's file opened, or refused in one line naming it and what to do: a file that is not
SQLite, one a newer Ringside wrote, one another process keeps locked from being read (or from
being brought up to date), one that is read-only, one that cannot be opened at all. `ringside
serve` and `up` ask before they print a link (serve.py), so an operator reads the one line, not a
traceback after links that lead nowhere.

A store whose write lock another holds (a write transaction it keeps open, as a script's may)
is not refused: it reads as ever in WAL mode, and the server's writes wait for the lock (writer.py;
health says for how long), as they do for a lock taken once the server runs."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ringside.server.db import schema

START_BUSY_S = 2.0  # at start, how long another may keep the store from being read (or upgraded)
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
    """The store at `path` in WAL mode, checked readable (kept from it by another for `busy_s`,
    it reads as locked), at most at this Ringside's schema and writable. Nothing in it is changed:
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
        _writable(db, path, have, busy_s)
    except (sqlite3.Error, StoreError) as e:
        if db is not None:
            db.close()
        raise e if isinstance(e, StoreError) else said(path, e) from None
    return db


def said(path: Path, e: sqlite3.Error) -> StoreError:
    words = str(e)
    what, fix = next((fix for start, fix in FIXES.items() if words.startswith(start)), (words, ""))
    return refused(path, what, fix or "see SQLite's words before this")


def _writable(db: sqlite3.Connection, path: Path, version: int, busy_s: float) -> None:
    """A write, rolled back: a read-only file opens and reads, and refuses only this. A store this
    Ringside must bring up to date is written before the server answers (schema.migrate): its lock
    is waited for `busy_s`, then refused. Any other's is not waited for: held by another, the store
    is written once it lets go (the module's words), and the file's mode says if this user may."""
    upgrade = version < schema.VERSION
    db.execute(f"PRAGMA busy_timeout = {round(busy_s * 1000) if upgrade else 0}")
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as e:
        if upgrade or not str(e).startswith("database is locked"):  # SQLITE_BUSY's words (FIXES)
            raise
        if not os.access(path, os.W_OK):
            raise refused(path, *FIXES["attempt to write a readonly database"]) from None
        return
    finally:
        db.execute(f"PRAGMA busy_timeout = {round(busy_s * 1000)}")
    try:
        db.execute(f"PRAGMA user_version = {version}")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


def check(path: Path) -> None:
    """Whether a server may keep its runs at `path`: StoreError if not."""
    connect(path).close()
