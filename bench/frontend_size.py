"""The size of the project's own frontend (JS, CSS, HTML), against its 236 KiB budget
(232 KiB until the hall's QR code; 216 KiB until the polls, issue 20; 200 KiB until the watched-jobs view, issue 19).
plotly.js is not counted: the server serves it from the installed plotly package.
Prints figures; asserts nothing.

    .venv/bin/python bench/frontend_size.py
"""

from __future__ import annotations

import gzip
from pathlib import Path

FRONTEND = Path(__file__).resolve().parent.parent / "frontend"
BUDGET = 236 * 1024  # 232 KiB before the QR code (K), 216 KiB before the polls (polls.js), 200 KiB before the watched-jobs view (jobs.js)


def main() -> None:
    files = sorted(p for p in FRONTEND.rglob("*") if p.suffix in (".js", ".css", ".html"))
    total = zipped = 0
    print(f"{'file':32} {'bytes':>8} {'gzip':>8}")
    for p in files:
        raw = p.read_bytes()
        z = len(gzip.compress(raw, 9))
        total += len(raw)
        zipped += z
        print(f"{str(p.relative_to(FRONTEND)):32} {len(raw):8} {z:8}")
    print(f"{'total':32} {total:8} {zipped:8}")
    print(f"{total / 1024:.1f} KiB of {BUDGET // 1024} KiB budget ({100 * total / BUDGET:.0f}%), "
          f"{len(files)} files, {zipped / 1024:.1f} KiB gzipped")


if __name__ == "__main__":
    main()
