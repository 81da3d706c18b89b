"""A store the server cannot keep its runs in is refused in one line naming the file and the fix,
on real files: one that is not SQLite, one a newer Ringside wrote, one another connection holds
locked as another program would, a read-only one, a folder. A good one is left as it was, and one
whose write lock another merely holds is opened, its writes waiting for the lock."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess

import pytest

from ringside.server.db import schema
from ringside.server.db.database import Database
from ringside.server.db.opening import StoreError, check, connect

ELSEWHERE = "or give another file with --db (a new one is made there)"


def refusal(path, busy_s: float = 0.05) -> str:
    with pytest.raises(StoreError) as refused:
        connect(path, busy_s)
    said = str(refused.value)
    assert said.startswith(f"store {path} ") and said.endswith(ELSEWHERE) and "\n" not in said, said
    return said


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "runs.db"
    Database(path).close()
    return path


@contextlib.contextmanager
def read_only(path):
    """`path` unwritable, as its owner: 0444, or for root (whom modes do not stop) immutable."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield
        path.chmod(0o644)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("run as root on a file system without chattr +i: no file is read-only to root")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"the lecture's notes, not a store\n" * 200)
    assert "is not an SQLite file: move it aside" in refusal(path)


def test_a_store_from_a_newer_ringside_is_refused_and_left_as_it_is(store):
    db = sqlite3.connect(store)
    db.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    db.commit()
    tables = db.execute("SELECT name FROM sqlite_master").fetchall()
    said = refusal(store)
    assert f"was written by a newer Ringside (schema {schema.VERSION + 1}; this one knows up to" in said
    assert "upgrade Ringside" in said
    assert db.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION + 1
    assert db.execute("SELECT name FROM sqlite_master").fetchall() == tables


def test_a_store_another_program_holds_locked_is_refused(store):
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")  # as a program that keeps the file to itself
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert "is locked by another program" in refusal(store)
    finally:
        holder.close()
    check(store)  # once it lets go


def test_a_store_whose_write_lock_another_holds_opens_and_its_writes_wait_for_it(store):
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a transaction held open: readers go on, writers wait
    try:
        check(store)
        database = Database(store)
        database.writer.put([("INSERT INTO secrets (name, value) VALUES (?, ?)", ("held", "then landed"))])
        assert database.writer.waiting() == 1  # it cannot land while the lock is held
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    database.close()  # after every write has landed (CLOSE_WITHIN_S)
    landed = sqlite3.connect(store).execute("SELECT value FROM secrets WHERE name = 'held'").fetchone()
    assert landed == ("then landed",)


def test_a_store_to_bring_up_to_date_is_refused_while_another_holds_its_write_lock(store):
    db = sqlite3.connect(store, isolation_level=None)
    db.execute(f"PRAGMA user_version = {schema.VERSION - 1}")  # its last step to run again
    db.execute("BEGIN IMMEDIATE")
    try:
        assert "is locked by another program (a transaction it holds open): end that" in refusal(store)
    finally:
        db.close()


def test_a_read_only_store_is_refused_though_another_holds_its_write_lock(store):
    with read_only(store):
        holder = sqlite3.connect(store, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            assert "is read-only: make it and its folder writable" in refusal(store)
        finally:
            holder.close()


def test_a_read_only_store_is_refused(store):
    with read_only(store):
        assert "is read-only: make it and its folder writable" in refusal(store)


def test_a_folder_or_a_file_for_a_folder_cannot_be_opened(tmp_path):
    (tmp_path / "runs.db").mkdir()
    assert "cannot be opened: make it a file in a folder you may write" in refusal(tmp_path / "runs.db")
    (tmp_path / "plain").write_text("")
    assert "cannot be opened (" in refusal(tmp_path / "plain" / "runs.db")


def test_a_good_store_is_checked_without_a_change(store):
    before = store.read_bytes()
    check(store)
    assert store.read_bytes() == before
    assert sqlite3.connect(store).execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
