"""The size of the project's own frontend (JS, CSS, HTML), file by file, raw and gzipped, and what a
page loads against its budget (which tests/unit/test_frontend_unit.py holds, with its history).
plotly.js is not counted: the server serves it from the installed plotly package.
Prints figures; asserts nothing.

    .venv/bin/python bench/frontend_size.py
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONTEND = ROOT / "frontend"


def budget() -> int:
    """The test's budget in bytes, read from its `assert size < K * 1024`, so that it is said once."""
    test = ROOT / "tests" / "unit" / "test_frontend_unit.py"
    return int(re.search(r"assert size < (\d+) \* 1024", test.read_text()).group(1)) * 1024


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
    # a page loads one language's table at most (i18n.js imports it when the page shows it): the largest
    tables = [p.stat().st_size for p in files if p.parent.name == "i18n" and p.name in ("ko.js", "zh.js")]
    loaded = total - sum(tables) + max(tables, default=0)
    limit = budget()
    print(
        f"{loaded / 1024:.1f} KiB a page loads of {limit // 1024} KiB budget ({100 * loaded / limit:.0f}%), "
        f"{total / 1024:.1f} KiB in {len(files)} files, {zipped / 1024:.1f} KiB gzipped"
    )


if __name__ == "__main__":
    main()
