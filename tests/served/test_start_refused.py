"""`ringside serve` with a store it cannot keep its runs in: one line on stderr naming the file and
the fix, no link printed (none would lead anywhere), and the exit status docs/operate.md gives."""

from __future__ import annotations

import subprocess

from ringside.worker_agent.clients.harness import CLI
from ringside.worker_agent.rank.local import free_port

REFUSED = 2  # docs/operate.md: Exit status


def test_serve_on_a_file_that_is_not_a_store_says_one_line_and_no_link(tmp_path):
    store = tmp_path / "notes.db"
    store.write_bytes(b"the lecture's notes, not a store\n" * 200)
    done = subprocess.run(
        [*CLI, "serve", "--port", str(free_port()), "--db", str(store)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == REFUSED, done.stderr
    assert done.stderr.splitlines() == [
        f"error: store {store} is not an SQLite file: move it aside, or give another file with --db "
        "(a new one is made there)"
    ], done.stderr
    assert "http" not in done.stdout and "token" not in done.stdout, done.stdout
