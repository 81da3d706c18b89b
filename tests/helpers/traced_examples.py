"""The shipped traced examples a module's `ringside up` loads (--algorithms), and the line the
deadlocking one stops at: shared by the served and page tests of traced code."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = ("tutorial_ring.py", "tutorial_ring_bug.py", "deadlock_ring.py")
STUCK_AT = "deadlock_ring.py:{}".format(
    next(
        i
        for i, line in enumerate((EXAMPLES / "deadlock_ring.py").read_text().splitlines(), 1)
        if "dist.send(chunks[send], right)" in line
    )
)
FLAGS = [flag for name in FILES for flag in ("--algorithms", str(EXAMPLES / name))]
